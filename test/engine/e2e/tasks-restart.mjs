// Why: a task is promised to outlive the process that runs it. This starts the engine test
// app under real `wrangler dev` with a short lease (TASK_LEASE_SECONDS=2) and state kept on
// disk, starts prepare_report as a task on each revision, kills the whole server while the
// first step is running, starts a new server on the same state, and follows the task to
// its question and its result there: the lease alarm runs it again, and the answer given
// to the new server finishes it. 2026-07-28 through tasks/get and tasks/update; 2025-11-25
// in the same session, through tasks/get and tasks/result (the question on its stream), and
// a tasks/result that was waiting when the server died, resumed with Last-Event-ID.
import { fileURLToPath } from "node:url";
import {
  EventStream,
  buildModernRequest,
  legacyHeaders,
  openLegacySession,
  requestMessage,
  resultOf,
  streamHeaders,
  webSource,
} from "../wire/index.ts";
import { assert } from "./checks.mjs";
import { sleep } from "../../../scripts/lib/procs.mjs";
import { acrossRestarts } from "./restarts.mjs";

const CONFIG = "test/engine/app/wrangler.toml";
// The tasks extension, and form elicitation for the task's question.
const CAPABILITIES = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
const PAUSE_MS = 4000; // each step of prepare_report; the server is killed inside the first
const WORDS = 50;

/** The JSON-RPC message answering `id` in a JSON or SSE response. */
async function answerOf(res, id, what) {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return resultOf(JSON.parse(text), what);
  }
  const stream = new EventStream(webSource(res.body));
  const e = await stream.until((m) => m.id === id && (m.result !== undefined || m.error !== undefined), 15_000);
  await stream.cancel();
  return resultOf(e?.message, what);
}

/** One 2026-07-28 request that declares the tasks extension; its result. */
async function modern(url, method, params) {
  // The builder mirrors params.taskId of the task methods in Mcp-Name, as the extension asks.
  const { id, message, headers } = buildModernRequest(method, params, { capabilities: CAPABILITIES });
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(20_000) });
  return answerOf(res, id, method);
}

/** A 2025-11-25 session kept by id (it outlives the server, like the task). */
async function openSession(url) {
  const send = async ({ method, headers, body }) => {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    return { status: res.status, header: (n) => res.headers.get(n), text };
  };
  const { id } = await openLegacySession(send, { capabilities: { elicitation: { form: {} } } });
  return id;
}

function legacyPost(url, sessionId, message) {
  return fetch(url, {
    method: "POST",
    headers: legacyHeaders(sessionId),
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(30_000),
  });
}

async function legacy(url, sessionId, method, params) {
  const msg = requestMessage(method, params);
  return answerOf(await legacyPost(url, sessionId, msg), msg.id, method);
}

/** Polls until the task reaches `status` (or a terminal one); returns the last answer. */
async function until(get, status, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await get();
    if (last.status === status || ["completed", "failed", "cancelled"].includes(last.status)) break;
    await sleep(200);
  }
  assert(last?.status === status, `expected status ${status}, got ${JSON.stringify(last).slice(0, 400)}`);
  return last;
}

const textOf = (result) => (result?.content ?? []).map((c) => c.text ?? "").join("");

/**
 * The report, written by the second server: its step counts are that process's (they live in
 * memory), so "write 1×" is the second step run once after the restart, and the outline ran
 * there again unless the kill came after it was journaled.
 */
function checkReport(result, topic) {
  const text = textOf(result);
  const ok = new RegExp(`^Report: an outline of ${topic}, then ${WORDS} words on ${topic} \\(outline ran [01]×, write 1×\\)$`).test(text);
  assert(ok, `result: ${JSON.stringify(result).slice(0, 400)}`);
  console.log(`      ${text}`);
}

/** @returns {Promise<{passed: number, failed: number}>} */
export function runTasksRestart() {
  const state = {};
  return acrossRestarts("tasks restart", { config: CONFIG, vars: { TASK_LEASE_SECONDS: "2" } }, async ({ check, url, restart }) => {
    const first = url();
    try {
      await drill(check, first, url, restart, state);
    } finally {
      await state.waitStream?.cancel().catch(() => {});
    }
  });
}

/** The checks, in order: `first` is the first server's /mcp, `second()` the current one's after `restart`. */
async function drill(check, first, second, restart, state) {
  await check("2026-07-28: tools/call of prepare_report becomes a task, and tasks/get says working", async () => {
    const created = await modern(first, "tools/call", { name: "prepare_report", arguments: { topic: "tides", pauseMs: PAUSE_MS } });
    assert(
      created.resultType === "task" && typeof created.taskId === "string",
      `expected a task, got ${JSON.stringify(created).slice(0, 300)}`,
    );
    state.modernId = created.taskId;
    const got = await modern(first, "tasks/get", { taskId: state.modernId });
    assert(got.status === "working", `tasks/get: ${JSON.stringify(got).slice(0, 300)}`);
  });

  await check("2025-11-25: tools/call with params.task in a session gives {task}, and tasks/get says working", async () => {
    state.sessionId = await openSession(first);
    const created = await legacy(first, state.sessionId, "tools/call", {
      name: "prepare_report",
      arguments: { topic: "dunes", pauseMs: PAUSE_MS },
      task: { ttl: 300_000 },
    });
    assert(typeof created.task?.taskId === "string", `expected {task}, got ${JSON.stringify(created).slice(0, 300)}`);
    state.legacyId = created.task.taskId;
    const got = await legacy(first, state.sessionId, "tasks/get", { taskId: state.legacyId });
    assert(got.status === "working", `tasks/get: ${JSON.stringify(got).slice(0, 300)}`);
  });

  await check("2025-11-25: a second session task, and a tasks/result waiting on it (its first event id kept)", async () => {
    assert(state.sessionId, "no session");
    const created = await legacy(first, state.sessionId, "tools/call", {
      name: "prepare_report",
      arguments: { topic: "moss", pauseMs: PAUSE_MS },
      task: {},
    });
    state.waitingId = created.task?.taskId;
    assert(typeof state.waitingId === "string", `expected {task}, got ${JSON.stringify(created).slice(0, 300)}`);
    state.waitRequest = requestMessage("tasks/result", { taskId: state.waitingId });
    const res = await legacyPost(first, state.sessionId, state.waitRequest);
    assert(res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/event-stream"), `tasks/result: HTTP ${res.status}`);
    const stream = new EventStream(webSource(res.body));
    const primed = await stream.next(5000);
    state.lastEventId = primed?.id;
    assert(state.lastEventId, `the tasks/result stream gave no event id: ${JSON.stringify(primed)}`);
    // Left open: the server dies under it, as a client's connection would.
    state.waitStream = stream;
  });

  // The tasks are inside their first step ("outline", PAUSE_MS long): kill the whole server now.
  await check("the server is killed mid-step (process group) and a new one starts on the same state", restart, 90_000);

  await check(
    "2026-07-28: after the restart the lease runs the task again, to input_required (tasks/get)",
    async () => {
      assert(state.modernId, "no task from before the restart");
      const got = await until(() => modern(second(), "tasks/get", { taskId: state.modernId }), "input_required", 30_000);
      assert(got.inputRequests?.length?.method === "elicitation/create", `inputRequests: ${JSON.stringify(got.inputRequests)}`);
    },
    40_000,
  );

  await check(
    `2026-07-28: tasks/update answers length, the task completes with "${WORDS} words"`,
    async () => {
      assert(state.modernId, "no task from before the restart");
      const updated = await modern(second(), "tasks/update", {
        taskId: state.modernId,
        inputResponses: { length: { action: "accept", content: { words: WORDS } } },
      });
      assert(updated && typeof updated === "object", `tasks/update: ${JSON.stringify(updated)}`);
      const done = await until(() => modern(second(), "tasks/get", { taskId: state.modernId }), "completed", 30_000);
      checkReport(done.result, "tides");
    },
    40_000,
  );

  await check(
    "2025-11-25: after the restart, the same session's tasks/get reaches input_required",
    async () => {
      assert(state.legacyId, "no session task from before the restart");
      await until(() => legacy(second(), state.sessionId, "tasks/get", { taskId: state.legacyId }), "input_required", 30_000);
    },
    40_000,
  );

  await check(
    `2025-11-25: tasks/result asks on its stream, the answer finishes it with "${WORDS} words"`,
    async () => {
      assert(state.legacyId, "no session task from before the restart");
      const msg = requestMessage("tasks/result", { taskId: state.legacyId });
      const res = await legacyPost(second(), state.sessionId, msg);
      assert(
        res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/event-stream"),
        `tasks/result: HTTP ${res.status} ${res.headers.get("content-type")}`,
      );
      const stream = new EventStream(webSource(res.body));
      try {
        const ask = await stream.until((m) => m.method === "elicitation/create", 15_000);
        assert(ask, `no elicitation/create on the tasks/result stream: ${stream.raw.slice(0, 400)}`);
        const answer = await legacyPost(second(), state.sessionId, {
          jsonrpc: "2.0",
          id: ask.message.id,
          result: { action: "accept", content: { words: WORDS } },
        });
        assert(answer.status === 202, `answer: HTTP ${answer.status} ${(await answer.text()).slice(0, 200)}`);
        const final = await stream.until((m) => m.id === msg.id, 30_000);
        const result = resultOf(final?.message, "tasks/result");
        checkReport(result, "dunes");
      } finally {
        await stream.cancel();
      }
      const got = await legacy(second(), state.sessionId, "tasks/get", { taskId: state.legacyId });
      assert(got.status === "completed", `tasks/get after the result: ${JSON.stringify(got).slice(0, 300)}`);
    },
    50_000,
  );

  await check(
    `2025-11-25: the waiting tasks/result resumes on the new server (GET, Last-Event-ID), asks, and ends with "${WORDS} words"`,
    async () => {
      assert(state.lastEventId, "no waiting tasks/result from before the restart");
      const res = await fetch(second(), {
        method: "GET",
        headers: streamHeaders(state.sessionId, state.lastEventId),
        signal: AbortSignal.timeout(45_000),
      });
      assert(
        res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/event-stream"),
        `GET with Last-Event-ID: HTTP ${res.status}`,
      );
      const stream = new EventStream(webSource(res.body));
      try {
        const ask = await stream.until((m) => m.method === "elicitation/create", 30_000);
        assert(ask, `no elicitation/create on the resumed stream: ${stream.raw.slice(0, 400)}`);
        const answer = await legacyPost(second(), state.sessionId, {
          jsonrpc: "2.0",
          id: ask.message.id,
          result: { action: "accept", content: { words: WORDS } },
        });
        assert(answer.status === 202, `answer: HTTP ${answer.status}`);
        const final = await stream.until((m) => m.id === state.waitRequest.id, 30_000);
        checkReport(resultOf(final?.message, "tasks/result (resumed)"), "moss");
      } finally {
        await stream.cancel();
      }
    },
    50_000,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runTasksRestart();
  console.log(`tasks restart: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
