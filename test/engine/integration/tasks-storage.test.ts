/**
 * What tasks keep, through /mcp: a finished task keeps what it ended with and
 * nothing a run needs; each owner keeps a bounded number of tasks and bytes
 * (MAX_TASKS_RETAINED, MAX_TASK_BYTES_RETAINED); an owner's index keeps task
 * metadata only, so a tasks/list page stays small whatever the tasks returned.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/app";
import { MCP_URL, buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { untilTask } from "../helpers/tasks";

const CAPS = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };
const taskObject = (taskId: string) => env.MCP_TASK!.get(env.MCP_TASK!.idFromName(`task:${taskId}`));

/** A 2026-07-28 request from an anonymous client at `address`, to the engine app with `vars` as its settings. */
async function modern(
  address: string,
  method: string,
  params: Record<string, unknown>,
  vars: Record<string, string> = {},
): Promise<RpcMessage> {
  const { message, headers } = buildModernRequest(method, params, { capabilities: CAPS, headers: { "CF-Connecting-IP": address } });
  const ctx = createExecutionContext();
  const res = await createMcpWorker(app).fetch(
    new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }),
    { ...env, ...vars } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return (await res.json()) as RpcMessage;
}

/** Polls tasks/get until the task has ended or has `status`. */
const until = (address: string, taskId: string, status = "completed"): Promise<any> =>
  untilTask(async () => (await modern(address, "tasks/get", { taskId })).result, status, 10_000);

/** The UTF-8 bytes of the largest row the task's object holds, over all its tables. */
function largestRow(taskId: string): Promise<number> {
  return runInDurableObject(taskObject(taskId), (_i, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name <> 'sqlite_sequence'")
      .toArray();
    let largest = 0;
    for (const { name } of tables) {
      for (const row of sql.exec(`SELECT * FROM ${name}`)) {
        largest = Math.max(largest, new TextEncoder().encode(Object.values(row).join("")).length);
      }
    }
    return largest;
  });
}

describe("what a task keeps", () => {
  it("2026-07-28: a finished task keeps its result, and no longer its arguments, answers or steps", async () => {
    const address = "198.51.100.1";
    const created = await modern(address, "tools/call", { name: "prepare_report", arguments: { topic: "kept" } });
    const { taskId } = created.result;
    await until(address, taskId, "input_required");
    await modern(address, "tasks/update", { taskId, inputResponses: { length: { action: "accept", content: { words: 3 } } } });
    const done = await until(address, taskId);
    expect(done.result.content[0].text).toMatch(/3 words on kept/);
    const stored = await runInDurableObject(taskObject(taskId), (_i, state) => {
      const sql = state.storage.sql;
      const rows = (table: string) =>
        sql.exec("SELECT 1 FROM sqlite_master WHERE name = ?", table).toArray().length ? sql.exec(`SELECT * FROM ${table}`).toArray() : [];
      return {
        parts: rows("parts"),
        steps: rows("steps"),
        record: JSON.parse(sql.exec<{ record: string }>("SELECT record FROM task").one().record),
      };
    });
    // The answer's row went; the result, small, is kept in the record's row, beside no arguments.
    expect(stored.parts).toEqual([]);
    expect(stored.steps).toEqual([]);
    expect(stored.record.view.result.content).toEqual(done.result.content);
    expect(JSON.stringify(stored.record.start)).not.toMatch(/kept/);
  });

  it("2026-07-28: a task whose arguments, answer and result are each near their own limit completes, and no row it stores reaches the 2 MB a Durable Object's row may hold", async () => {
    const address = "198.51.100.5";
    // About 450 KB of arguments, a 900 KB answer and a 900 KB result (the topic appears twice in it).
    const topic = "t".repeat(450_000);
    const created = await modern(address, "tools/call", { name: "prepare_report", arguments: { topic } });
    const { taskId } = created.result;
    await until(address, taskId, "input_required");
    const answered = await modern(address, "tasks/update", {
      taskId,
      inputResponses: { length: { action: "accept", content: { words: 9, note: "n".repeat(900_000) } } },
    });
    expect(answered.error).toBeUndefined();
    const done = await until(address, taskId);
    expect(done.status).toBe("completed");
    expect(done.result.content[0].text).toContain("9 words on ttt");
    // workerd here does not enforce the 2 MB row limit of Durable Objects in production; measure it.
    expect(await largestRow(taskId)).toBeLessThan(2_000_000);
  });
});

describe("what an owner keeps", () => {
  it("2026-07-28: an owner keeps at most MAX_TASKS_RETAINED tasks, finished ones too; the next is refused with -32603 naming it", async () => {
    const vars = { MAX_TASKS_RETAINED: "2" };
    const address = "198.51.100.2";
    for (const n of [1, 2]) {
      const { result } = await modern(address, "tools/call", { name: "quick_task", arguments: { n } }, vars);
      expect((await until(address, result.taskId)).status).toBe("completed");
    }
    const refused = await modern(address, "tools/call", { name: "quick_task", arguments: { n: 3 } }, vars);
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/MAX_TASKS_RETAINED/) });
    // Another owner is not affected.
    expect((await modern("198.51.100.3", "tools/call", { name: "quick_task", arguments: { n: 4 } }, vars)).result.resultType).toBe("task");
  });

  it("2026-07-28: the bytes an owner's tasks keep stay under MAX_TASK_BYTES_RETAINED; a finished task's arguments stop counting", async () => {
    const vars = { MAX_TASK_BYTES_RETAINED: "5000" };
    const address = "198.51.100.4";
    const big = { topic: "x".repeat(3000), pauseMs: 30_000 };
    const first = await modern(address, "tools/call", { name: "prepare_report", arguments: big }, vars);
    expect(first.result.resultType).toBe("task");
    const refused = await modern(address, "tools/call", { name: "prepare_report", arguments: big }, vars);
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/MAX_TASK_BYTES_RETAINED/) });
    // Cancelled, the first task keeps no arguments: there is room again.
    await modern(address, "tasks/cancel", { taskId: first.result.taskId });
    expect((await modern(address, "tools/call", { name: "prepare_report", arguments: big }, vars)).result.resultType).toBe("task");
  });
});

describe("an owner's index", () => {
  const worker = createMcpWorker(app, { principal: () => "index-alice" });

  async function post(sessionId: string | undefined, message: object): Promise<{ status: number; headers: Headers; body: RpcMessage }> {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (sessionId) headers["Mcp-Session-Id"] = sessionId;
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, headers: res.headers, body: res.status === 202 ? ({} as RpcMessage) : ((await res.json()) as RpcMessage) };
  }

  it("2025-11-25: tasks/list answers a page of tasks whose results together pass 32 MiB (the index keeps no results)", async () => {
    const init = await post(undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    const sid = init.headers.get("Mcp-Session-Id")!;
    await post(sid, { jsonrpc: "2.0", method: "notifications/initialized" });
    const ids: string[] = [];
    // 36 results of about 1 MB: one page of them is more than an RPC between objects may carry.
    for (let n = 0; n < 36; n++) {
      const created = await post(sid, {
        jsonrpc: "2.0",
        id: 10 + n,
        method: "tools/call",
        params: { name: "quick_task", arguments: { n, pad: 1_000_000 }, task: {} },
      });
      ids.push(created.body.result.task.taskId);
    }
    for (const taskId of ids)
      await untilTask(async () => (await post(sid, { jsonrpc: "2.0", id: 99, method: "tasks/get", params: { taskId } })).body.result);
    const listed = await post(sid, { jsonrpc: "2.0", id: 100, method: "tasks/list", params: {} });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(ids);
    expect(listed.body.result.tasks.every((t: { status: string }) => t.status === "completed")).toBe(true);
  });
});
