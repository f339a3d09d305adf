// The task floor: the least a durable task can cost on Workers, so that the engine's task rows read
// against the platform rather than against a plain call alone. A create makes a new Durable Object
// (named by a random id, as the engine names a task's), stores the task's state in one SQLite row (a
// few hundred bytes of JSON), sets an alarm as the fallback that would run it again should the
// instance die, and answers with the id; right after answering the object "runs" the task by writing
// the completed result into its row and moving the alarm to the task's ttl. A get reads that row.
// A plain call is a fixed JSON answer from the Worker (no object), the ratio's denominator.
// What it leaves out: auth, owner checks, the MCP envelope and the status notification. It has what
// every request of a default app pays that is not the engine's (as bench/floor-platform has): Static
// Assets in front, one call to the Rate Limiting binding, and the log lines a default app writes
// (LOG_REQUESTS=all), of the same fields and length: one per request, the plain call's too, and one
// for the task's run.
// The owner's index (a count of tasks in flight, which bounds what one caller can start) is the one
// part every bounded task server pays, so it is a mode rather than left out: `mode: "series"` admits
// the task to one index object from the task's object before the row is written (the engine's
// order), and `mode: "parallel"` admits it from the Worker beside the create, then lets the task
// run (a task created "pending" runs only once admitted; a refused one is dropped).
import { DurableObject } from "cloudflare:workers";

const TTL_MS = 3_600_000;
const LEASE_MS = 60_000;
/** The index's bound on one owner's unfinished tasks: high enough never to refuse in the bench. */
const IN_FLIGHT = 100_000;
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });
/** One request log line like the engine's (see the header). */
const logLine = (method, outcome, started) =>
  console.log(
    JSON.stringify({
      mcp: "request",
      revision: "2026-07-28",
      lane: "modern",
      method,
      name: "quick_task",
      outcome,
      durationMs: Date.now() - started,
    }),
  );
const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

export class FloorTask extends DurableObject {
  /** A task's first write; with `admit`, the owner's index counts it first (and may refuse it). */
  async create(state, { admit = false, pending = false } = {}) {
    if (admit && !(await indexOf(this.env).admit(state.taskId))) return false;
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS task (id INTEGER PRIMARY KEY, state TEXT NOT NULL)");
    sql.exec("INSERT INTO task (id, state) VALUES (1, ?)", JSON.stringify({ ...state, pending }));
    await this.ctx.storage.setAlarm(Date.now() + LEASE_MS);
    if (!pending) setTimeout(() => this.run().catch((err) => console.error("floor task: run failed", err)), 0);
    return true;
  }

  /** The index said yes (mode "parallel"): the pending task may run now. */
  async confirm() {
    const state = this.read();
    if (!state?.pending) return;
    state.pending = false;
    this.write(state);
    await this.run();
  }

  /** The index said no (mode "parallel"): nothing of the task stays. */
  async drop() {
    await this.ctx.storage.deleteAll();
  }

  async run() {
    const started = Date.now();
    const state = this.read();
    if (!state || state.pending || state.status !== "working") return;
    state.status = "completed";
    state.lastUpdatedAt = Date.now();
    state.result = { content: [{ type: "text", text: `done ${state.params.arguments.n}` }] };
    this.write(state);
    await this.ctx.storage.setAlarm(state.createdAt + TTL_MS);
    if (state.indexed) await indexOf(this.env).finished(state.taskId);
    logLine("tools/call", "result", started);
  }

  async get() {
    const state = this.read();
    return state ? { ...state, status: state.pending ? "working" : state.status } : null;
  }

  async alarm() {
    const state = this.read();
    if (state && state.status === "working" && Date.now() < state.createdAt + TTL_MS) return this.run();
    await this.ctx.storage.deleteAll();
  }

  read() {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'task'").toArray().length === 0) return null;
    const row = sql.exec("SELECT state FROM task WHERE id = 1").toArray()[0];
    return row ? JSON.parse(row.state) : null;
  }

  write(state) {
    this.ctx.storage.sql.exec("UPDATE task SET state = ? WHERE id = 1", JSON.stringify(state));
  }

  // The same class named by the owner is the owner's index (one owner in the bench).
  async admit(taskId) {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS owned (id TEXT PRIMARY KEY, done INTEGER NOT NULL)");
    if (sql.exec("SELECT count(*) AS n FROM owned WHERE done = 0").one().n >= IN_FLIGHT) return false;
    sql.exec("INSERT INTO owned (id, done) VALUES (?, 0)", taskId);
    return true;
  }

  async finished(taskId) {
    this.ctx.storage.sql.exec("UPDATE owned SET done = 1 WHERE id = ?", taskId);
  }
}

const indexOf = (env) => env.FLOOR_TASK.get(env.FLOOR_TASK.idFromName("owner:anonymous"));
const taskOf = (env, taskId) => env.FLOOR_TASK.get(env.FLOOR_TASK.idFromName(`task:${taskId}`));

/** A request's answer, and the method its log line names. */
async function answer(request, env, ctx) {
  if (request.method !== "POST") return ["", json({ error: "POST a JSON body" }, 405)];
  const { success } = await env.MCP_RATE_LIMIT.limit({ key: request.headers.get("CF-Connecting-IP") ?? "local" });
  if (!success) return ["", json({ error: "too many requests" }, 429)];
  const { op, n, taskId, mode = "bare" } = await request.json().catch(() => ({}));
  if (op === "call") return ["tools/call", new Response(CALL, { headers: { "Content-Type": "application/json" } })];
  if (op === "get") {
    if (typeof taskId !== "string" || !/^[0-9a-f-]{36}$/.test(taskId)) return ["tasks/get", json({ error: "unknown task" }, 404)];
    const state = await taskOf(env, taskId).get();
    return ["tasks/get", state ? json({ task: state }) : json({ error: "unknown task" }, 404)];
  }
  if (op !== "create") return ["", json({ error: "unknown op" }, 400)];
  const id = crypto.randomUUID();
  const now = Date.now();
  const state = {
    taskId: id,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: TTL_MS,
    pollIntervalMs: 1000,
    indexed: mode !== "bare",
    owner: { era: "2026-07-28", principal: "" },
    params: { name: "quick_task", arguments: { n } },
  };
  const task = taskOf(env, id);
  const refused = ["tools/call", json({ error: "too many tasks" }, 429)];
  if (mode === "parallel") {
    const [admitted] = await Promise.all([indexOf(env).admit(id), task.create(state, { pending: true })]);
    ctx.waitUntil(admitted ? task.confirm() : task.drop());
    if (!admitted) return refused;
  } else if (!(await task.create(state, { admit: mode === "series" }))) return refused;
  return ["tools/call", json({ task: { taskId: id, status: "working", createdAt: now, ttlMs: TTL_MS, pollIntervalMs: 1000 } })];
}

export default {
  async fetch(request, env, ctx) {
    const started = Date.now();
    const [method, response] = await answer(request, env, ctx);
    logLine(method, response.ok ? "result" : "error", started);
    return response;
  },
};
