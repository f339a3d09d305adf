/**
 * Tasks on 2026-07-28 (the io.modelcontextprotocol/tasks extension) through
 * /mcp, with the engine app's prepare_report: a task in two steps with a
 * question between them. The task lives in its own Durable Object and runs
 * in that object, started by its alarm, so the tests also evict it mid-run and between
 * every two steps, and check a finished step is never run again.
 */
import {
  createExecutionContext,
  env,
  evictDurableObject,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import { taskStub } from "../../../src/engine/objects/addresses";
import app from "../app/app";
import { SseReader, buildModernRequest, expectRpcError, modernPost, modernResult, type RpcMessage } from "../helpers/mcp";
import { runEnded, taskObject, untilStepStarted, untilTask } from "../helpers/tasks";

const EXTENSION = "io.modelcontextprotocol/tasks";
const CAPS = { elicitation: {}, extensions: { [EXTENSION]: {} } };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Each test spends the in-flight budget of its own client address (MAX_TASKS_IN_FLIGHT is per owner). */
const from = (address: string) => ({ capabilities: CAPS, headers: { "CF-Connecting-IP": address } });

async function startReport(address: string, args: Record<string, unknown> = {}) {
  const created = await modernResult("tools/call", { name: "prepare_report", arguments: { topic: "tides", ...args } }, from(address));
  expect(created.resultType, JSON.stringify(created)).toBe("task");
  return created as { taskId: string; status: string; [k: string]: unknown };
}

const getTask = (taskId: string, address = "203.0.113.1") => modernResult("tasks/get", { taskId }, from(address));

/** Polls tasks/get until the task has `status` (or has ended), within a bound. */
const until = (taskId: string, status: string, address?: string, ms = 5000): Promise<any> =>
  untilTask(() => getTask(taskId, address), status, ms);

const answer = (words: number) => ({ length: { action: "accept", content: { words } } });

describe("a task's life", () => {
  it("2026-07-28: create → progress → input_required → tasks/update → completed, with the result inlined on tasks/get", async () => {
    const created = await startReport("203.0.113.1");
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.status).toBe("working");
    expect(created.createdAt).toMatch(ISO);
    expect(created.lastUpdatedAt).toMatch(ISO);
    expect(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0).toBe(true);
    expect(Number.isInteger(created.pollIntervalMs)).toBe(true);
    for (const absent of ["result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval", "content"])
      expect(created).not.toHaveProperty(absent);

    const waiting = await until(created.taskId, "input_required");
    expect(waiting.status).toBe("input_required");
    expect(waiting.resultType).toBe("complete");
    expect(waiting.statusMessage).toBe("outlined");
    expect(Object.keys(waiting.inputRequests)).toEqual(["length"]);
    expect(waiting.inputRequests.length).toMatchObject({
      method: "elicitation/create",
      params: { message: "How long should the report on tides be?" },
    });

    const ack = await modernResult("tasks/update", { taskId: created.taskId, inputResponses: answer(50) }, from("203.0.113.1"));
    expect(ack.resultType).toBe("complete");
    for (const absent of ["taskId", "status", "result", "inputRequests"]) expect(ack).not.toHaveProperty(absent);

    const done = await until(created.taskId, "completed");
    expect(done.status).toBe("completed");
    expect(done.result.content[0].text).toBe("Report: an outline of tides, then 50 words on tides (outline ran 1×, write 1×)");
    expect(done.result.resultType).toBe("complete");
    expect(done).not.toHaveProperty("inputRequests");
    // Done is done: the task stays readable (no early expiry) and unchanged.
    expect((await getTask(created.taskId)).result).toEqual(done.result);
  });

  it("2026-07-28: an answer that comes in while the run is still announcing its question is not lost", async () => {
    const address = "203.0.113.15";
    // Each step pauses 1.5 s, so the object is prepared before the run reaches its question.
    const { taskId } = await startReport(address, { pauseMs: 1500 });
    // The announcement (index, hub) is held: the question is stored and readable, and the run goes on
    // only once a client polling tasks/get has answered it.
    type Announcer = { save(record: { view: { status: string } }): Promise<void>; heldAnnouncement?: boolean };
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    await runInDurableObject(taskObject(taskId), (instance) => {
      const task = instance as unknown as Announcer;
      const save = task.save.bind(task);
      task.save = async (record) => {
        await save(record);
        if (record.view.status === "input_required") {
          task.heldAnnouncement = true;
          await answered;
        }
      };
    });
    await until(taskId, "input_required", address, 15_000);
    await modernResult("tasks/update", { taskId, inputResponses: answer(40) }, from(address));
    release();
    const done = await until(taskId, "completed", address, 15_000);
    expect(await runInDurableObject(taskObject(taskId), (instance) => (instance as unknown as Announcer).heldAnnouncement)).toBe(true);
    expect(done.result.content[0].text).toBe("Report: an outline of tides, then 40 words on tides (outline ran 1×, write 1×)");
  });

  it("2026-07-28: tasks/update ignores unknown keys, refuses a malformed answer (-32602) and leaves the task waiting", async () => {
    const { taskId } = await startReport("203.0.113.2");
    await until(taskId, "input_required", "203.0.113.2");
    expect(await modernResult("tasks/update", { taskId, inputResponses: { nobody: { asked: true } } }, from("203.0.113.2"))).toMatchObject({
      resultType: "complete",
    });
    const bad = await modernPost("tasks/update", { taskId, inputResponses: { length: { action: "maybe" } } }, from("203.0.113.2"));
    await expectRpcError(bad, 200, -32602);
    const still = await getTask(taskId, "203.0.113.2");
    expect(still.status).toBe("input_required");
    expect(Object.keys(still.inputRequests)).toEqual(["length"]);
    await modernResult("tasks/cancel", { taskId }, from("203.0.113.2"));
  });

  it("2026-07-28: tasks/cancel ends a working task as cancelled; cancelling it again is the same empty ack", async () => {
    const { taskId } = await startReport("203.0.113.3", { pauseMs: 30_000 });
    const ack = await modernResult("tasks/cancel", { taskId }, from("203.0.113.3"));
    expect(ack.resultType).toBe("complete");
    expect(ack).not.toHaveProperty("status");
    expect((await getTask(taskId, "203.0.113.3")).status).toBe("cancelled");
    expect(await modernResult("tasks/cancel", { taskId }, from("203.0.113.3"))).toMatchObject({ resultType: "complete" });
    expect((await getTask(taskId, "203.0.113.3")).status).toBe("cancelled");
  });

  it("2026-07-28: an unknown or malformed task id is -32602 on tasks/get, tasks/update and tasks/cancel", async () => {
    const unknown = "A".repeat(43);
    for (const [method, params] of [
      ["tasks/get", { taskId: unknown }],
      ["tasks/update", { taskId: unknown, inputResponses: {} }],
      ["tasks/cancel", { taskId: unknown }],
      ["tasks/get", { taskId: "not-one-of-ours" }],
    ] as const) {
      await expectRpcError(await modernPost(method, params, from("203.0.113.4")), 200, -32602);
    }
  });

  it("2026-07-28: without the extension a task tool answers as usual, and the task methods are -32021 (400) naming the extension", async () => {
    const round1 = await modernResult(
      "tools/call",
      { name: "prepare_report", arguments: { topic: "moss" } },
      { capabilities: { elicitation: {} } },
    );
    expect(round1.resultType).toBe("input_required");
    expect(round1).not.toHaveProperty("taskId");
    const res = await modernPost("tasks/get", { taskId: "A".repeat(43) }, { capabilities: {} });
    const error = await expectRpcError(res, 400, -32021);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [EXTENSION]: {} } } });
  });

  it("2026-07-28: tasks/get needs Mcp-Name to be the task id (-32020, 400)", async () => {
    const { taskId } = await startReport("203.0.113.5", { pauseMs: 30_000 });
    const res = await modernPost(
      "tasks/get",
      { taskId },
      { ...from("203.0.113.5"), headers: { "CF-Connecting-IP": "203.0.113.5", "Mcp-Name": "someone-else" } },
    );
    await expectRpcError(res, 400, -32020);
    await modernResult("tasks/cancel", { taskId }, from("203.0.113.5"));
  });

  it("2026-07-28: a bad argument is answered at once as a tool error, and no task is made", async () => {
    const r = await modernResult("tools/call", { name: "prepare_report", arguments: { topic: 7 } }, from("203.0.113.6"));
    expect(r.resultType).toBe("complete");
    expect(r.isError).toBe(true);
    expect(r).not.toHaveProperty("taskId");
  });

  it("2026-07-28: MAX_TASKS_IN_FLIGHT (16) unfinished tasks per owner; the next is refused until one ends", async () => {
    const address = "203.0.113.7";
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await startReport(address, { pauseMs: 30_000 })).taskId);
    const refused = await modernPost("tools/call", { name: "prepare_report", arguments: { topic: "one too many" } }, from(address));
    const error = await expectRpcError(refused, 200, -32603);
    expect(error.message).toMatch(/MAX_TASKS_IN_FLIGHT/);
    // Another owner is not affected.
    const other = await startReport("203.0.113.8", { pauseMs: 30_000 });
    await modernResult("tasks/cancel", { taskId: ids[0] }, from(address));
    const again = await startReport(address, { pauseMs: 30_000 });
    for (const taskId of [...ids.slice(1), again.taskId]) await modernResult("tasks/cancel", { taskId }, from(address));
    await modernResult("tasks/cancel", { taskId: other.taskId }, from("203.0.113.8"));
  });
});

describe("what a task survives", () => {
  it("2026-07-28: evicting the task's object between every two steps loses nothing, and no finished step runs again", async () => {
    const { taskId } = await startReport("203.0.113.10");
    const stub = taskObject(taskId);
    await evictDurableObject(stub);
    await until(taskId, "input_required", "203.0.113.10");
    await evictDurableObject(stub);
    await modernResult("tasks/update", { taskId, inputResponses: answer(70) }, from("203.0.113.10"));
    await evictDurableObject(stub);
    const done = await until(taskId, "completed", "203.0.113.10");
    expect(done.result.content[0].text).toBe("Report: an outline of tides, then 70 words on tides (outline ran 1×, write 1×)");
    await evictDurableObject(stub);
    expect((await getTask(taskId, "203.0.113.10")).status).toBe("completed");
  });

  /**
   * Leaves the task's storage as an isolate that died mid-run leaves it: status working, a run marked
   * due an hour ago (a lease and more: its lease has ended), and the lease alarm due. With `dueAgoMs` 0
   * the run is due now instead, as a create or the answers leave it. (evictDurableObject lets a
   * running alarm finish first, so a death mid-run is set up in storage rather than by evicting.)
   */
  async function dieMidRun(taskId: string, cutShortBefore = 0, dueAgoMs = 3_600_000) {
    const stub = taskObject(taskId);
    await evictDurableObject(stub);
    await runInDurableObject(stub, async (_instance, state) => {
      const record = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      record.view.status = "working";
      delete record.view.inputRequests;
      record.runFrom = Date.now() - dueAgoMs;
      record.cutShort = cutShortBefore;
      state.storage.sql.exec("UPDATE task SET record = ?", JSON.stringify(record));
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    return stub;
  }

  it("2026-07-28: a run that died with its isolate is started again by the lease; the step it had finished is not run again", async () => {
    const { taskId } = await startReport("203.0.113.11", { pauseMs: 3000 });
    // A run that goes on past LEASE_AFTER_MS (1 s) sets its lease: were the isolate to die now, the
    // lease's end would start the run again. Before that, the alarm that started it still holds it.
    // The lease shows from 1 s into the run until its pause ends: 2 s to see it in, which a loaded
    // machine's slow polls still do (with a pause of 1.5 s, the 0.5 s left was missed now and then).
    await vi.waitFor(
      async () => {
        const record = await runInDurableObject(taskObject(taskId), (_i, state) => {
          const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one();
          return JSON.parse(row.record);
        });
        expect(record.view.status).toBe("working");
        const alarm = await runInDurableObject(taskObject(taskId), (_i, state) => state.storage.getAlarm());
        expect(alarm).toBeGreaterThan(Date.now() + 30_000);
        expect(alarm).toBeLessThan(Date.now() + 61_000);
      },
      { timeout: 2800, interval: 50 },
    );
    await until(taskId, "input_required", "203.0.113.11");
    // The outline step is done; the run now dies after the question was asked, before the answer.
    const stub = await dieMidRun(taskId);
    await runDurableObjectAlarm(stub);
    // The restarted run gets to the question again, without running the outline step again.
    await until(taskId, "input_required", "203.0.113.11");
    await modernResult("tasks/update", { taskId, inputResponses: answer(30) }, from("203.0.113.11"));
    const done = await until(taskId, "completed", "203.0.113.11", 10_000);
    expect(done.result.content[0].text).toBe("Report: an outline of tides, then 30 words on tides (outline ran 1×, write 1×)");
  });

  it("2026-07-28: a create that waits for its result (immediateMs) starts the run in the call; an alarm during it waits for that run and never starts a second one", async () => {
    const address = "203.0.113.17";
    const taskId = "immediate-then-a-task".padEnd(43, "x");
    const created = await taskStub(env, taskId).create({
      taskId,
      tool: "prepare_report",
      owner: { era: "modern", principal: "" },
      indexKey: `ip:${address}`,
      params: { name: "prepare_report", arguments: { topic: "tides", pauseMs: 300 } },
      protocolVersion: "2026-07-28",
      clientCapabilities: CAPS,
      answers: {},
      trace: {},
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
      immediateMs: 50,
      limits: { inFlight: 16, retained: 100, retainedBytes: 1_000_000 },
    });
    expect(created.kind).toBe("task");
    // The alarm due since the create fires while the run pauses in its outline step, which is not
    // journaled yet: were the alarm to start a run of its own, the step would run twice.
    await runDurableObjectAlarm(taskObject(taskId));
    await until(taskId, "input_required", address);
    await modernResult("tasks/update", { taskId, inputResponses: answer(20) }, from(address));
    const done = await until(taskId, "completed", address);
    expect(done.result.content[0].text).toBe("Report: an outline of tides, then 20 words on tides (outline ran 1×, write 1×)");
  });

  it("2026-07-28: a run that died before it set its lease is started again by the platform's retry of its alarm, and counted as cut short", async () => {
    const address = "203.0.113.18";
    const { taskId } = await startReport(address);
    await until(taskId, "input_required", address);
    // Storage as a run due now leaves it, its isolate dead within LEASE_AFTER_MS: no lease was set.
    const stub = await dieMidRun(taskId, 0, 0);
    // The alarm that started that run did not end, so the platform runs it again, marked as a retry.
    await runInDurableObject(stub, (instance) =>
      (instance as unknown as DurableObject).alarm?.({ isRetry: true, retryCount: 1, scheduledTime: Date.now() }),
    );
    const task = await until(taskId, "input_required", address);
    expect(task.status).toBe("input_required");
    const cutShort = await runInDurableObject(stub, (_i, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one();
      return JSON.parse(row.record).cutShort;
    });
    expect(cutShort).toBe(1);
  });

  it("2026-07-28: a task whose runs keep dying (MAX_CUT_SHORT = 5 in a row) fails instead of running forever", async () => {
    const { taskId } = await startReport("203.0.113.14");
    await until(taskId, "input_required", "203.0.113.14");
    // A run due now that the alarm starts is no death, even after four: it runs to the question again.
    await runDurableObjectAlarm(await dieMidRun(taskId, 4, 0));
    expect((await until(taskId, "input_required", "203.0.113.14")).status).toBe("input_required");
    const stub = await dieMidRun(taskId, 4);
    await runDurableObjectAlarm(stub);
    const task = await getTask(taskId, "203.0.113.14");
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: -32603, message: expect.stringMatching(/cut short 5 times/) });
  });

  it("2026-07-28: after its ttl the task is gone, and so is everything it stored", async () => {
    const { taskId } = await startReport("203.0.113.12", { pauseMs: 30_000 });
    const stub = taskObject(taskId);
    // Move the task's creation back past its ttl, then let its alarm run.
    await runInDurableObject(stub, async (_instance, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one();
      const record = JSON.parse(row.record);
      record.view.createdAt -= record.view.ttlMs + 1000;
      state.storage.sql.exec("UPDATE task SET record = ?", JSON.stringify(record));
      await state.storage.setAlarm(Date.now());
    });
    await runDurableObjectAlarm(stub);
    await expectRpcError(await modernPost("tasks/get", { taskId }, from("203.0.113.12")), 200, -32602);
    const tables = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("2026-07-28: a task that expires while a step still runs gets no storage back when the step ends", async () => {
    const address = "203.0.113.16";
    // The outline step takes 1 s and ignores ctx.signal, as a step awaiting fetch(url) would.
    const { taskId } = await startReport(address, { pauseMs: 1000, deaf: true });
    const stub = taskObject(taskId);
    await untilStepStarted(taskId, "outline");
    await runInDurableObject(stub, async (_instance, state) => {
      const record = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      record.view.createdAt -= record.view.ttlMs + 1000;
      state.storage.sql.exec("UPDATE task SET record = ?", JSON.stringify(record));
    });
    // Reading it finds the ttl passed: the task is forgotten while its step is still running.
    await expectRpcError(await modernPost("tasks/get", { taskId }, from(address)), 200, -32602);
    // The step ends and the run goes on to its question; once the run has ended, nothing it did is left.
    await runEnded(taskId);
    const left = await runInDurableObject(stub, async (_i, state) => ({
      tables: state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ tables: [], alarm: null });
  });

  it("2026-07-28: a task stored by the previous version (all in one record row) goes on after an upgrade with its arguments, answers and steps", async () => {
    const taskId = "stored-by-the-previous-version".padEnd(43, "x");
    const now = Date.now();
    const view = { taskId, status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: 3_600_000, pollIntervalMs: 1000 };
    const start = {
      taskId,
      owner: { era: "modern", principal: "" },
      indexKey: "ip:203.0.113.30",
      params: { name: "prepare_report", arguments: { topic: "upgrades" } },
      protocolVersion: "2026-07-28",
      clientCapabilities: CAPS,
      answers: {},
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
      immediateMs: 0,
      trace: {},
    };
    const stub = taskObject(taskId);
    await runInDurableObject(stub, async (_i, state) => {
      state.storage.sql.exec(`CREATE TABLE task (id TEXT PRIMARY KEY, record TEXT NOT NULL);
        CREATE TABLE steps (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE owned (id TEXT PRIMARY KEY, view TEXT NOT NULL, terminal INTEGER NOT NULL, expires_at INTEGER NOT NULL);`);
      const record = { start, view, answers: answer(5), runs: 1 };
      state.storage.sql.exec("INSERT INTO task (id, record) VALUES (?, ?)", taskId, JSON.stringify(record));
      state.storage.sql.exec("INSERT INTO steps (name, value) VALUES ('outline', ?)", JSON.stringify("an outline of upgrades"));
      await state.storage.setAlarm(Date.now());
    });
    // Its owner's index of that version, which kept whole results in its rows.
    const oldIndex = env.MCP_TASK!.get(env.MCP_TASK!.idFromName("owner:ip:203.0.113.30"));
    await runInDurableObject(oldIndex, (_i, state) => {
      state.storage.sql.exec(
        "CREATE TABLE owned (id TEXT PRIMARY KEY, view TEXT NOT NULL, terminal INTEGER NOT NULL, expires_at INTEGER NOT NULL)",
      );
      state.storage.sql.exec("INSERT INTO owned VALUES (?, ?, 0, ?)", taskId, JSON.stringify(view), now + 3_600_000);
    });
    await runDurableObjectAlarm(stub);
    const done = await until(taskId, "completed", "203.0.113.30");
    expect(done.result.content[0].text).toBe("Report: an outline of upgrades, then 5 words on upgrades (outline ran 0×, write 1×)");
    // Told of the end, the old index lets its rows go.
    const tables = await runInDurableObject(oldIndex, (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("2026-07-28: a guessed task id leaves no storage behind", async () => {
    const guess = "B".repeat(43);
    await expectRpcError(await modernPost("tasks/get", { taskId: guess }, from("203.0.113.13")), 200, -32602);
    const tables = await runInDurableObject(taskObject(guess), (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
    );
    expect(tables).toEqual([]);
  });
});

describe("whose a task is", () => {
  /** The engine app behind an authentication step that names the caller. */
  async function as(who: string, method: string, params: Record<string, unknown>): Promise<RpcMessage> {
    const worker = createMcpWorker(app, { principal: () => who });
    const { message, headers } = buildModernRequest(method, params, { capabilities: CAPS });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return (await res.json()) as RpcMessage;
  }

  it("2026-07-28: another principal gets not-found (-32602) for every task method; the owner is served", async () => {
    const created = await as("alice", "tools/call", { name: "prepare_report", arguments: { topic: "secrets", pauseMs: 30_000 } });
    const { taskId } = created.result;
    expect(created.result.resultType).toBe("task");
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: answer(1) }],
      ["tasks/cancel", { taskId }],
    ] as const) {
      expect((await as("bob", method, params)).error?.code).toBe(-32602);
    }
    expect((await as("alice", "tasks/get", { taskId })).result.status).toBe("working");
    expect((await as("alice", "tasks/cancel", { taskId })).result.resultType).toBe("complete");
  });
});

describe("told, not polled", () => {
  it("2026-07-28: a listen stream with the task's id gets notifications/tasks for each status change, the result inlined at the end", async () => {
    const { taskId } = await startReport("203.0.113.20");
    const res = await modernPost(
      "subscriptions/listen",
      { notifications: { taskIds: [taskId] } },
      { id: "listen-task", capabilities: CAPS },
    );
    const reader = new SseReader(res);
    try {
      const ack = await reader.next(3000);
      expect(ack?.params?.notifications).toEqual({ taskIds: [taskId] });
      await until(taskId, "input_required", "203.0.113.20");
      await modernResult("tasks/update", { taskId, inputResponses: answer(9) }, from("203.0.113.20"));
      const statuses: string[] = [];
      let last: any;
      for (let m = await reader.next(3000); m; m = await reader.next(3000)) {
        if (m.method !== "notifications/tasks" || m.params?.taskId !== taskId) continue;
        expect(m.params?._meta?.["io.modelcontextprotocol/subscriptionId"]).toBe("listen-task");
        statuses.push(m.params.status);
        last = m.params;
        if (m.params.status === "completed") break;
      }
      expect(statuses).toContain("working");
      expect(statuses.at(-1)).toBe("completed");
      expect(last.result.content[0].text).toMatch(/9 words on tides/);
    } finally {
      await reader.cancel();
    }
  });
});
