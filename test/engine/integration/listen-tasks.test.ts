/**
 * Task notifications on listen streams (the tasks extension): `notifications.taskIds` needs the
 * extension on both sides, is bounded, and is echoed in the acknowledgement; a
 * `notifications/tasks` reaches only the streams that named its taskId and, when it carries a
 * principal, only that principal's streams; it never reaches a 2025 session.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import app from "../app/app";
import {
  MAX_LISTEN_TASK_IDS,
  MAX_LISTEN_TASK_ID_LENGTH,
  TASKS_EXTENSION,
  honouredFilter,
  serveListen,
} from "../../../src/engine/http/listen";
import { callerOf } from "../../../src/engine/mcp/auth";
import { McpError } from "../../../src/engine/mcp/errors";
import type { ClientCapabilities } from "../../../src/engine/mcp/types";
import { compileApp, type Registry } from "../../../src/engine/mcp/registry";
import { hubShardCount, listenerPlace, principalClientKey } from "../../../src/engine/objects/addresses";
import { TASK_NOTIFICATION, type HubNotification } from "../../../src/engine/objects/contracts";
import { publish } from "../helpers/hub";
import { cancelAllReaders, getStream, openSession, sse } from "../helpers/legacy";
import { SseReader, expectRpcError, modernPost, type RpcMessage } from "../helpers/mcp";

const base = compileApp(app);
/** The test app as a server that offers the tasks extension. */
const withTasks: Registry = { ...base, capabilities: { ...base.capabilities, extensions: { [TASKS_EXTENSION]: {} } } };
const tasksClient = { extensions: { [TASKS_EXTENSION]: {} } };

const open: SseReader[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.cancel()));
  await cancelAllReaders();
});

function rejection(fn: () => unknown): McpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

/** A listen stream served by serveListen for a server that offers tasks, as `principal`. */
async function listenTasks(id: string, taskIds: string[], principal?: string) {
  const msg = {
    jsonrpc: "2.0" as const,
    id,
    method: "subscriptions/listen",
    params: { notifications: { taskIds }, _meta: { "io.modelcontextprotocol/clientCapabilities": tasksClient } },
  };
  const res = await serveListen(
    msg,
    withTasks,
    env,
    callerOf(principal ? { id: principal, scopes: [] } : undefined, principal ? `principal:${principal}` : "ip:192.0.2.1"),
  );
  expect(res.status).toBe(200);
  const reader = new SseReader(res);
  open.push(reader);
  const ack = await reader.next(3000);
  expect(ack?.method).toBe("notifications/subscriptions/acknowledged");
  return { reader, ack: ack! };
}

const task = (taskId: string, principal?: string): HubNotification => ({
  method: TASK_NOTIFICATION,
  params: { taskId, status: "working" },
  ...(principal === undefined ? {} : { principal }),
});

/** The next task notification on a stream, or undefined. */
async function nextTask(reader: SseReader, timeoutMs = 1500): Promise<RpcMessage | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await reader.next(Math.max(1, deadline - Date.now()));
    if (!m || m.method === TASK_NOTIFICATION) return m;
  }
}

describe("the taskIds filter", () => {
  it("is honoured when the client declares the tasks extension and the server offers it", () => {
    expect(honouredFilter({ taskIds: ["t-1", "t-2"] }, withTasks, tasksClient)).toEqual({ taskIds: ["t-1", "t-2"] });
  });

  it("is dropped when the server does not offer the tasks extension", () => {
    expect(
      honouredFilter(
        { toolsListChanged: true, taskIds: ["t-1"] },
        { ...base, capabilities: { ...base.capabilities, extensions: undefined } },
        tasksClient,
      ),
    ).toEqual({ toolsListChanged: true });
  });

  it("needs the client's tasks extension: -32021 naming it", () => {
    const clients: (ClientCapabilities | undefined)[] = [undefined, {}, { extensions: {} }, { extensions: { other: {} } }];
    for (const client of clients) {
      const err = rejection(() => honouredFilter({ taskIds: ["t-1"] }, withTasks, client));
      expect(err.code).toBe(-32021);
      expect(err.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
  });

  it("must be at most 256 strings of at most 256 characters: -32602", () => {
    const cases = [
      "t-1",
      [1],
      Array.from({ length: MAX_LISTEN_TASK_IDS + 1 }, (_, i) => `t-${i}`),
      ["x".repeat(MAX_LISTEN_TASK_ID_LENGTH + 1)],
    ];
    for (const taskIds of cases) expect(rejection(() => honouredFilter({ taskIds }, withTasks, tasksClient)).code).toBe(-32602);
    const atLimits = Array.from({ length: MAX_LISTEN_TASK_IDS }, (_, i) => `${i}-`.padEnd(MAX_LISTEN_TASK_ID_LENGTH, "x"));
    expect(honouredFilter({ taskIds: atLimits }, withTasks, tasksClient).taskIds).toHaveLength(MAX_LISTEN_TASK_IDS);
  });

  it("2026-07-28: over HTTP, taskIds without the client's tasks extension is 400 -32021 with the required capability", async () => {
    const res = await modernPost("subscriptions/listen", { notifications: { taskIds: ["t-1"] } }, { id: "tasks-no-cap" });
    const error = await expectRpcError(res, 400, -32021, "tasks-no-cap");
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    // The message names the extension itself, not just "extensions".
    expect(error.message).toContain(TASKS_EXTENSION);
  });

  it("2026-07-28: over HTTP, a malformed taskIds is 400 -32602", async () => {
    const res = await modernPost(
      "subscriptions/listen",
      { notifications: { taskIds: "t-1" } },
      { id: "tasks-bad", capabilities: tasksClient },
    );
    await expectRpcError(res, 400, -32602, "tasks-bad");
  });
});

describe("task notifications", () => {
  it("the acknowledgement echoes the accepted taskIds", async () => {
    const { ack } = await listenTasks("ack-tasks", ["t-ack"]);
    expect(ack.params.notifications).toEqual({ taskIds: ["t-ack"] });
  });

  it("reach only the streams that named the taskId, with the task and without the principal", async () => {
    const [a, b] = await Promise.all([listenTasks("task-a", ["t-a"], "alice"), listenTasks("task-b", ["t-b"], "alice")]);
    expect(await publish(task("t-a", "alice"))).toBeGreaterThanOrEqual(1);
    const n = await nextTask(a.reader);
    expect(n?.params).toMatchObject({ taskId: "t-a", status: "working", _meta: { "io.modelcontextprotocol/subscriptionId": "task-a" } });
    expect(JSON.stringify(n)).not.toContain("alice");
    expect(await nextTask(b.reader, 300)).toBeUndefined();
  });

  it('carrying a principal reach only that principal\'s streams (the anonymous one is "")', async () => {
    const [alice, bob, anonymous] = await Promise.all([
      listenTasks("p-alice", ["t-shared"], "alice"),
      listenTasks("p-bob", ["t-shared"], "bob"),
      listenTasks("p-anon", ["t-shared"]),
    ]);
    await publish(task("t-shared", "bob"));
    await publish(task("t-shared", ""));
    expect((await nextTask(bob.reader))?.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("p-bob");
    expect((await nextTask(anonymous.reader))?.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("p-anon");
    expect(await nextTask(alice.reader, 300)).toBeUndefined();
    expect(await nextTask(bob.reader, 300)).toBeUndefined();
  });

  it("carrying a principal reach its streams on whichever shard they joined (they are sent to that shard alone)", async () => {
    // A principal per shard: its streams all join the shard of its client key.
    const shards = hubShardCount(env);
    const byShard = new Map<number, string>();
    for (let i = 0; byShard.size < shards; i++) {
      const { shard } = await listenerPlace(env, principalClientKey(`user-${i}`));
      if (!byShard.has(shard)) byShard.set(shard, `user-${i}`);
    }
    const streams = await Promise.all([...byShard].map(([shard, who]) => listenTasks(`on-${shard}`, [`t-${shard}`], who)));
    for (const [shard, who] of byShard) await publish(task(`t-${shard}`, who));
    for (const [i, [shard]] of [...byShard].entries()) {
      const n = await nextTask(streams[i]!.reader);
      expect(n?.params).toMatchObject({ taskId: `t-${shard}`, _meta: { "io.modelcontextprotocol/subscriptionId": `on-${shard}` } });
    }
  });

  it("2025-11-25: never reach a session", async () => {
    const s = await openSession();
    const reader = sse(await getStream(s.id));
    await reader.next();
    await publish(task("t-session"));
    await publish({ method: "notifications/tools/list_changed" });
    // Delivery is in order: had the task reached the session, it would come first.
    expect((await reader.next())?.message?.method).toBe("notifications/tools/list_changed");
  });
});
