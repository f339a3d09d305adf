/**
 * Tasks on 2025-11-25 (core tasks of that revision) through /mcp: a
 * task-augmented tools/call, tasks/get, tasks/cancel, tasks/list, and
 * tasks/result, which waits on a stream and carries the task's own
 * elicitation to the client there. The same prepare_report handler as on
 * 2026-07-28; the task lives in its own object, the wait in the session.
 */
import {
  createExecutionContext,
  env,
  evictDurableObject,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/app";
import {
  call,
  cancelAllReaders,
  deleteSession,
  getStream,
  notify,
  openSession,
  postInitialize,
  request,
  respond,
  result,
  sessionStub,
  sse,
} from "../helpers/legacy";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { runEnded, taskObject, untilTask } from "../helpers/tasks";

afterEach(cancelAllReaders);

const RELATED = "io.modelcontextprotocol/related-task";
const ELICITING = { elicitation: {} };
const MODERN_TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

async function startReport(sessionId: string, args: Record<string, unknown> = {}, task: Record<string, unknown> = {}) {
  const created = await result(sessionId, "tools/call", { name: "prepare_report", arguments: { topic: "tides", ...args }, task });
  expect(created.task, JSON.stringify(created)).toBeDefined();
  return created.task as { taskId: string; status: string; ttl: number; [k: string]: unknown };
}

const until = (sessionId: string, taskId: string, status: string, ms = 5000): Promise<any> =>
  untilTask(() => result(sessionId, "tasks/get", { taskId }), status, ms);

/** What a task's object holds, read directly: a positive barrier for what a message must have done there. */
const stored = <T>(taskId: string, read: (sql: SqlStorage) => T) =>
  runInDurableObject(taskObject(taskId), (_instance, state) => read(state.storage.sql));
const storedView = (taskId: string) =>
  stored(taskId, (sql) => JSON.parse(sql.exec<{ record: string }>("SELECT record FROM task").one().record).view);

/** Moves a task's creation back past its ttl (as if that much time had gone by), its alarm due with `due`; returns its object. */
async function pastTtl(taskId: string, { due = false } = {}) {
  const stub = taskObject(taskId);
  await runInDurableObject(stub, async (_instance, state) => {
    const record = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
    record.view.createdAt -= record.view.ttlMs + 1000;
    state.storage.sql.exec("UPDATE task SET record = ?", JSON.stringify(record));
    if (due) await state.storage.setAlarm(Date.now());
  });
  return stub;
}

describe("2025-11-25 tasks", () => {
  it("2025-11-25: initialize offers tasks (without tasks/list for an anonymous client) and tools/list says which tools take them", async () => {
    const s = await openSession({ capabilities: ELICITING });
    expect(s.init.capabilities.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    expect(s.init.capabilities.extensions).toBeUndefined();
    const { tools } = await result(s.id, "tools/list");
    expect(tools.find((t: any) => t.name === "prepare_report").execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t: any) => t.name === "greet").execution).toBeUndefined();
    expect((await call(s.id, "tasks/list")).error?.code).toBe(-32601);
  });

  it("2025-11-25: a task-augmented call answers CreateTaskResult; tasks/result carries the task's elicitation, tagged, and ends with the result", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const get = sse(await getStream(s.id));
    const task = await startReport(s.id, {}, { ttl: 120_000 });
    expect(task.status).toBe("working");
    expect(task.ttl).toBe(120_000);
    expect(task).not.toHaveProperty("ttlMs");
    await until(s.id, task.taskId, "input_required");

    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }, { id: "result-1" }));
    const ask = await reader.nextMessage();
    expect(ask?.message?.method).toBe("elicitation/create");
    expect(ask?.message?.params?._meta?.[RELATED]).toEqual({ taskId: task.taskId });
    expect((await respond(s.id, ask!.message!.id!, { result: { action: "accept", content: { words: 20 } } })).status).toBe(202);

    const final = (await reader.rest(5000)).find((e) => e.message && "result" in e.message)?.message;
    expect(final?.id).toBe("result-1");
    expect(final?.result.content[0].text).toBe("Report: an outline of tides, then 20 words on tides (outline ran 1×, write 1×)");
    expect(final?.result._meta[RELATED]).toEqual({ taskId: task.taskId });
    expect((await result(s.id, "tasks/get", { taskId: task.taskId })).status).toBe("completed");

    // Status changes reached the session's GET stream.
    const statuses: string[] = [];
    for (let e = await get.nextMessage(500); e; e = await get.nextMessage(500)) {
      if (e.message?.method === "notifications/tasks/status") statuses.push(e.message.params.status);
    }
    expect(statuses).toContain("input_required");
    expect(statuses).toContain("completed");
  });

  it("2025-11-25: answering one of two questions sends no second input_required status; the task waits for the other", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const get = sse(await getStream(s.id));
    const task = await startReport(s.id, { tone: true });
    await until(s.id, task.taskId, "input_required");
    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }, { id: "two" }));
    const asks = [await reader.nextMessage(), await reader.nextMessage()];
    const byKey = (word: string) => asks.find((a) => String(a?.message?.params?.message).includes(word))!.message!;
    await respond(s.id, byKey("long").id!, { result: { action: "accept", content: { words: 12 } } });
    // The answer reached the task (one question left in its record), which still waits for the other.
    await vi.waitFor(async () => expect(Object.keys((await storedView(task.taskId)).inputRequests ?? {})).toHaveLength(1));
    expect((await result(s.id, "tasks/get", { taskId: task.taskId })).status).toBe("input_required");
    await respond(s.id, byKey("tone").id!, { result: { action: "accept", content: { tone: "dry" } } });
    const final = (await reader.rest(5000)).find((e) => e.message && "result" in e.message)?.message;
    expect(final?.result.content[0].text).toMatch(/12 words on tides/);
    const statuses: string[] = [];
    for (let e = await get.nextMessage(500); e; e = await get.nextMessage(500)) {
      if (e.message?.method === "notifications/tasks/status") statuses.push(e.message.params.status);
    }
    expect(statuses).toEqual(["input_required", "working", "completed"]);
  });

  it("2025-11-25: tasks/result of a finished task answers at once; the session object evicted in between loses nothing", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const task = await startReport(s.id);
    await until(s.id, task.taskId, "input_required");
    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }));
    const ask = await reader.nextMessage();
    await evictDurableObject(sessionStub(s.id));
    await respond(s.id, ask!.message!.id!, { result: { action: "accept", content: { words: 5 } } });
    await until(s.id, task.taskId, "completed");
    const again = await call(s.id, "tasks/result", { taskId: task.taskId });
    expect(again.result.content[0].text).toMatch(/5 words on tides/);
  });

  it("2025-11-25: a tasks/result waiting on a task that passes its ttl ends with -32602 saying so, and the task is gone", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const task = await startReport(s.id, { pauseMs: 30_000 });
    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }, { id: "waits" }));
    // The ttl passes, and the task's alarm runs.
    await runDurableObjectAlarm(await pastTtl(task.taskId, { due: true }));
    // The run the expiry cut off goes on to its question, which is not asked: the end comes first.
    const end = await reader.nextMessage();
    expect(end?.message).toMatchObject({
      id: "waits",
      error: { code: -32602, message: expect.stringMatching(/expired/), data: { [RELATED]: { taskId: task.taskId } } },
    });
    expect((await call(s.id, "tasks/get", { taskId: task.taskId })).error?.code).toBe(-32602);
  });

  it("2025-11-25: a run that outlives its task's ttl asks nothing; the waiting tasks/result ends with the expiry", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const task = await startReport(s.id, { pauseMs: 1000, deaf: true });
    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }, { id: "outlived" }));
    // The ttl passes while the outline step runs; the run then reaches its question.
    await pastTtl(task.taskId);
    // The step ends and the run reaches its question: once the run has ended, it had its chance to ask.
    await runEnded(task.taskId);
    // Reading the task finds it expired, which ends the wait.
    expect((await call(s.id, "tasks/get", { taskId: task.taskId })).error?.code).toBe(-32602);
    const end = await reader.nextMessage();
    expect(end?.message).toMatchObject({ id: "outlived", error: { code: -32602, message: expect.stringMatching(/expired/) } });
  });

  it("2025-11-25: a task whose ttl passes mid-run expires at its ttl, not when the run ends", async () => {
    const s = await openSession({ capabilities: ELICITING });
    // A 6 s step that ignores ctx.signal, in a task kept for 1.5 s.
    const task = await startReport(s.id, { pauseMs: 6000, deaf: true }, { ttl: 1500 });
    const started = Date.now();
    const reader = sse(await request(s.id, "tasks/result", { taskId: task.taskId }, { id: "on-time" }));
    const end = await reader.nextMessage(8000);
    expect(end?.message).toMatchObject({ id: "on-time", error: { code: -32602, message: expect.stringMatching(/expired/) } });
    expect(Date.now() - started).toBeLessThan(4500);
  });

  it("2025-11-25: a task whose tool reports an error is failed with a statusMessage saying why; tasks/result gives the tool's result", async () => {
    const s = await openSession();
    const created = await result(s.id, "tools/call", { name: "quick_task", arguments: { n: 5, fail: true }, task: {} });
    const failed = await until(s.id, created.task.taskId, "failed");
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toBe("The tool reported an error: quick task 5 failed on purpose");
    const answer = await call(s.id, "tasks/result", { taskId: created.task.taskId });
    expect(answer.result).toMatchObject({ isError: true, content: [{ type: "text", text: "quick task 5 failed on purpose" }] });
  });

  it("2025-11-25: tasks/cancel answers the cancelled task; a second cancel is -32602, as are unknown ids", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const task = await startReport(s.id, { pauseMs: 30_000 });
    const cancelled = await result(s.id, "tasks/cancel", { taskId: task.taskId });
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect((await call(s.id, "tasks/cancel", { taskId: task.taskId })).error?.code).toBe(-32602);
    expect((await call(s.id, "tasks/get", { taskId: "C".repeat(43) })).error?.code).toBe(-32602);
    expect((await call(s.id, "tasks/result", { taskId: 42 })).error?.code).toBe(-32602);
  });

  it("2025-11-25: an anonymous task belongs to its session: another session gets -32602", async () => {
    const a = await openSession({ capabilities: ELICITING });
    const b = await openSession({ capabilities: ELICITING });
    const task = await startReport(a.id, { pauseMs: 30_000 });
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect((await call(b.id, method, { taskId: task.taskId })).error?.code, method).toBe(-32602);
    }
    await result(a.id, "tasks/cancel", { taskId: task.taskId });
  });

  it("2025-11-25: params.task on a tool that never runs as a task is -32601; a plain call of a task tool runs as usual", async () => {
    const s = await openSession({ capabilities: ELICITING });
    expect((await call(s.id, "tools/call", { name: "roll_dice", arguments: {}, task: {} })).error?.code).toBe(-32601);
    const res = await request(s.id, "tools/call", { name: "prepare_report", arguments: { topic: "x" } });
    const reader = sse(res);
    const ask = await reader.nextMessage();
    expect(ask?.message?.method).toBe("elicitation/create");
    expect(ask?.message?.params?._meta?.[RELATED]).toBeUndefined();
  });
});

describe("2025-11-25 tasks of an anonymous client", () => {
  /** A session opened from `address` (CF-Connecting-IP). */
  async function openFrom(address: string): Promise<string> {
    const res = await postInitialize(
      { protocolVersion: "2025-11-25", capabilities: ELICITING },
      { headers: { "CF-Connecting-IP": address } },
    );
    const id = res.headers.get("Mcp-Session-Id")!;
    expect((await notify(id, "notifications/initialized")).status).toBe(202);
    return id;
  }
  const slowTask = (sessionId: string) =>
    call(sessionId, "tools/call", { name: "prepare_report", arguments: { topic: "slow", pauseMs: 30_000 }, task: {} });

  it("2025-11-25: an anonymous client's unfinished tasks count against its address (MAX_TASKS_IN_FLIGHT), however many sessions it opens", async () => {
    const [a, b] = [await openFrom("192.0.2.71"), await openFrom("192.0.2.71")];
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await slowTask(a)).result.task.taskId);
    const refused = await slowTask(b);
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/MAX_TASKS_IN_FLIGHT/) });
    // Another address is not affected.
    const other = await openFrom("192.0.2.72");
    const theirs = (await slowTask(other)).result.task.taskId;
    for (const taskId of ids) await result(a, "tasks/cancel", { taskId });
    await result(other, "tasks/cancel", { taskId: theirs });
  });

  it("2025-11-25: ending an anonymous session stops and deletes its unfinished tasks, which nobody else can reach", async () => {
    const s = await openFrom("192.0.2.73");
    const { taskId } = (await slowTask(s)).result.task;
    expect((await deleteSession(s)).status).toBe(200);
    const stub = taskObject(taskId);
    const tables = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
    );
    expect(tables).toEqual([]);
  });
});

describe("2025-11-25 tasks of an authenticated principal", () => {
  const worker = (who: string) => createMcpWorker(app, { principal: () => who });

  /** The raw answer, to read as it comes (a stream). */
  function send(who: string, sessionId: string | undefined, message: object, ctx = createExecutionContext()): Promise<Response> {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (sessionId) headers["Mcp-Session-Id"] = sessionId;
    return worker(who).fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
  }

  async function post(who: string, sessionId: string | undefined, message: object): Promise<{ res: Response; body: RpcMessage }> {
    const ctx = createExecutionContext();
    const res = await send(who, sessionId, message, ctx);
    await waitOnExecutionContext(ctx);
    return { res, body: res.status === 202 ? ({} as RpcMessage) : ((await res.json()) as RpcMessage) };
  }

  async function open(who: string): Promise<string> {
    const init = await post(who, undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: ELICITING, clientInfo: { name: "t", version: "0" } },
    });
    expect(init.body.result.capabilities.tasks.list).toEqual({});
    const id = init.res.headers.get("Mcp-Session-Id")!;
    await post(who, id, { jsonrpc: "2.0", method: "notifications/initialized" });
    return id;
  }

  /** `who` opens sessions a and b, starts prepare_report as a task in a, and waits on its tasks/result in b. */
  async function waitInOtherSession(who: string, args: Record<string, unknown>, resultId: string) {
    const [a, b] = [await open(who), await open(who)];
    const created = await post(who, a, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "prepare_report", arguments: args, task: {} },
    });
    const { taskId } = created.body.result.task;
    const reader = sse(await send(who, b, { jsonrpc: "2.0", id: resultId, method: "tasks/result", params: { taskId } }));
    return { b, taskId, reader };
  }

  it("2025-11-25: a tasks/result from another session of the same principal gets the task's question and then its result", async () => {
    const who = "two-sessions";
    const { b, taskId, reader } = await waitInOtherSession(who, { topic: "shared", pauseMs: 300 }, "from-b");
    const ask = await reader.nextMessage(5000);
    expect(ask?.message?.method).toBe("elicitation/create");
    expect(ask?.message?.params?._meta?.[RELATED]).toEqual({ taskId });
    expect((await send(who, b, { jsonrpc: "2.0", id: ask!.message!.id, result: { action: "accept", content: { words: 7 } } })).status).toBe(
      202,
    );
    const final = (await reader.rest(5000)).find((e) => e.message && "result" in e.message)?.message;
    expect(final?.id).toBe("from-b");
    expect(final?.result.content[0].text).toMatch(/7 words on shared/);
  });

  it("2025-11-25: a tasks/result from another session of the same principal ends with -32602 when the task expires", async () => {
    const { taskId, reader } = await waitInOtherSession("two-sessions-expiry", { topic: "gone", pauseMs: 30_000 }, "b-waits");
    // The wait is stored and the task knows of it (its waiters) before the ttl passes.
    await vi.waitFor(async () => expect(await stored(taskId, (sql) => sql.exec("SELECT session FROM waiters").toArray())).toHaveLength(1));
    await runDurableObjectAlarm(await pastTtl(taskId, { due: true }));
    const end = await reader.nextMessage(5000);
    expect(end?.message).toMatchObject({ id: "b-waits", error: { code: -32602, message: expect.stringMatching(/expired/) } });
  });

  it("2025-11-25: at most 16 other sessions of a principal wait on one task's tasks/result; the next is told so (-32603)", async () => {
    const who = "many-waiters";
    const { taskId, reader } = await waitInOtherSession(who, { topic: "crowd", pauseMs: 30_000 }, "w0");
    const waiting = [reader];
    for (let i = 1; i < 16; i++)
      waiting.push(sse(await send(who, await open(who), { jsonrpc: "2.0", id: `w${i}`, method: "tasks/result", params: { taskId } })));
    const late = sse(await send(who, await open(who), { jsonrpc: "2.0", id: "w16", method: "tasks/result", params: { taskId } }));
    const refused = await late.nextMessage(5000);
    expect(refused?.message).toMatchObject({ id: "w16", error: { code: -32603, message: expect.stringMatching(/16 other sessions/) } });
    // The sixteen that wait are told of the end.
    await post(who, await open(who), { jsonrpc: "2.0", id: 9, method: "tasks/cancel", params: { taskId } });
    const ends = await Promise.all(waiting.map((r) => r.nextMessage(5000)));
    expect(ends.map((e) => e?.message?.error?.message)).toEqual(Array(16).fill(`Task ${taskId} was cancelled`));
  });

  it("2025-11-25: a tasks/list cursor that names no task position is -32602, not an empty page", async () => {
    const who = "cursor-alice";
    const sid = await open(who);
    const created = await post(who, sid, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "quick_task", arguments: { n: 1 }, task: {} },
    });
    expect(created.body.result.task.taskId).toBeDefined();
    expect((await post(who, sid, { jsonrpc: "2.0", id: 3, method: "tasks/list", params: {} })).body.result.tasks).toHaveLength(1);
    const bad = await post(who, sid, { jsonrpc: "2.0", id: 4, method: "tasks/list", params: { cursor: "999999" } });
    expect(bad.body.error?.code).toBe(-32602);
  });

  it("2025-11-25: tasks/list never shows the principal's 2026-07-28 tasks, which a 2025 session cannot read", async () => {
    const who = "era-alice";
    const { message, headers } = buildModernRequest(
      "tools/call",
      { name: "prepare_report", arguments: { topic: "2026", pauseMs: 30_000 } },
      { capabilities: MODERN_TASKS },
    );
    const ctx = createExecutionContext();
    const res = await worker(who).fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const modern = ((await res.json()) as RpcMessage).result;
    expect(modern.resultType).toBe("task");
    const sid = await open(who);
    const legacy = await post(who, sid, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "prepare_report", arguments: { topic: "2025", pauseMs: 30_000 }, task: {} },
    });
    const listed = await post(who, sid, { jsonrpc: "2.0", id: 3, method: "tasks/list", params: {} });
    expect(listed.body.result.tasks.map((t: any) => t.taskId)).toEqual([legacy.body.result.task.taskId]);
    await post(who, sid, { jsonrpc: "2.0", id: 4, method: "tasks/cancel", params: { taskId: legacy.body.result.task.taskId } });
  });

  it("2025-11-25: tasks/list lists the principal's own tasks across its sessions, and nobody else's", async () => {
    const alice1 = await open("list-alice");
    const alice2 = await open("list-alice");
    const bob = await open("list-bob");
    const mine: string[] = [];
    for (const sid of [alice1, alice2]) {
      const r = await post("list-alice", sid, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "prepare_report", arguments: { topic: "a", pauseMs: 30_000 }, task: {} },
      });
      mine.push(r.body.result.task.taskId);
    }
    const theirs = await post("list-bob", bob, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "prepare_report", arguments: { topic: "b", pauseMs: 30_000 }, task: {} },
    });
    const listed = await post("list-alice", alice1, { jsonrpc: "2.0", id: 4, method: "tasks/list", params: {} });
    expect(listed.body.result.tasks.map((t: any) => t.taskId).sort()).toEqual([...mine].sort());
    // The same principal reaches its task from another of its sessions; another principal does not.
    expect(
      (await post("list-alice", alice2, { jsonrpc: "2.0", id: 5, method: "tasks/get", params: { taskId: mine[0] } })).body.result.status,
    ).toBe("working");
    expect(
      (await post("list-bob", bob, { jsonrpc: "2.0", id: 6, method: "tasks/get", params: { taskId: mine[0] } })).body.error?.code,
    ).toBe(-32602);
    expect(
      (await post("list-alice", alice1, { jsonrpc: "2.0", id: 7, method: "tasks/list", params: { cursor: "not a cursor" } })).body.error
        ?.code,
    ).toBe(-32602);
    for (const taskId of mine) await post("list-alice", alice1, { jsonrpc: "2.0", id: 8, method: "tasks/cancel", params: { taskId } });
    await post("list-bob", bob, { jsonrpc: "2.0", id: 9, method: "tasks/cancel", params: { taskId: theirs.body.result.task.taskId } });
  });
});
