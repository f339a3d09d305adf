// Why: a task costs more than a call (an object per task, its alarm, its index), and a client
// polls it; the bench shows by how much, beside the plain call, in one run on one server.
// Against `wrangler dev` of the engine test app, on 2026-07-28 with the tasks extension:
// quick_task (finishes as soon as it runs) from tools/call to completed, seen by polling
// tasks/get every POLL_MS; then tasks/get of a finished task and plain tools/call
// (convert_temperature), in interleaved rounds at the same concurrency.
import { performance } from "node:perf_hooks";
import { startWrangler } from "../../test/e2e/server.mjs";
import { Client } from "./http.mjs";
import { checkConvert, convertArgs, modernCall } from "./mcp.mjs";
import { describeRun } from "./report.mjs";
import { mergeRuns, percentile, runLoad } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";

/** How often a client in this bench asks tasks/get whether its task is done (ms). */
export const POLL_MS = 25;

/**
 * The `wrangler dev` the tasks phase measures. The bench's one anonymous caller runs 16 tasks at
 * once; the in-flight cap (MAX_TASKS_IN_FLIGHT, 16 by default) is raised so a slow index update is
 * not a refusal here, and so is the count of tasks one owner keeps until their ttl (MAX_TASKS_RETAINED).
 */
export const TASKS_SERVER = { config: SERVERS.engine.config, logLevel: "warn", vars: { MAX_TASKS_IN_FLIGHT: "1000", MAX_TASKS_RETAINED: "100000" } };

const TASKS = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One quick_task from tools/call to completed: { createMs, doneMs, polls }. */
async function oneTask(client, i, maxMs) {
  const t0 = performance.now();
  const created = await modernCall(client, "tools/call", { name: "quick_task", arguments: { n: i } }, TASKS);
  const createMs = performance.now() - t0;
  if (created.resultType !== "task" || typeof created.taskId !== "string") throw new Error(`quick_task ${i}: not a task: ${JSON.stringify(created).slice(0, 200)}`);
  let polls = 0;
  for (;;) {
    if (performance.now() - t0 > maxMs) throw new Error(`quick_task ${i}: not completed after ${maxMs} ms`);
    await sleep(POLL_MS);
    polls++;
    const task = await modernCall(client, "tasks/get", { taskId: created.taskId }, TASKS);
    if (task.status === "working") continue;
    const text = task.result?.content?.[0]?.text;
    if (task.status !== "completed" || text !== `done ${i}`) throw new Error(`quick_task ${i}: ${JSON.stringify(task).slice(0, 200)}`);
    return { createMs, doneMs: performance.now() - t0, polls, taskId: created.taskId };
  }
}

const pcts = (xs) => {
  const s = Float64Array.from(xs).sort();
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
};

/**
 * @param {{quick: boolean, requests: number, concurrency: number, warmup: number, rowMaxMs: number}} settings
 *   requests: per row of (b) and (c), in two interleaved rounds. server: a `wrangler dev` of
 *   TASKS_SERVER already started (dev-servers.mjs); it is stopped here either way.
 * @returns {Promise<{lifecycle, get, call, errors: string[]}>}
 */
export async function tasksPhase({ quick, requests, concurrency, warmup, rowMaxMs, server: started }, onProgress = () => {}) {
  const tasks = quick ? 32 : 200;
  const taskConcurrency = 16;
  const rounds = 2;
  onProgress(`tasks: ${tasks} quick_task tasks at c=${taskConcurrency} (tasks/get every ${POLL_MS} ms), then tasks/get vs tools/call at c=${concurrency}`);
  const server = started ?? (await startWrangler(TASKS_SERVER));
  const client = new Client(server.url, { connections: Math.max(concurrency, taskConcurrency), timeoutMs: 60_000 });
  const errors = [];
  try {
    // (a) create → completed.
    const samples = [];
    await runLoad({ name: "task warm-up", total: quick ? 16 : Math.min(warmup, 32), concurrency: taskConcurrency, maxMs: rowMaxMs, op: (i) => oneTask(client, -1 - i, 30_000) });
    const life = await runLoad({
      name: "task create → completed",
      total: tasks,
      concurrency: taskConcurrency,
      maxMs: rowMaxMs * 2,
      op: async (i) => samples.push(await oneTask(client, i, 30_000)),
    });
    if (life.errors) errors.push(`tasks create → completed: ${life.errors} errors (${life.errorSamples.join(" | ")})`);
    // The plain call at the tasks' concurrency, right after them: what a create costs above a call.
    const plain = await runLoad({ name: "tools/call at the tasks' concurrency", total: tasks, concurrency: taskConcurrency, maxMs: rowMaxMs, op: async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i))) });
    if (plain.errors) errors.push(`tools/call at c=${taskConcurrency}: ${plain.errors} errors (${plain.errorSamples.join(" | ")})`);
    const lifecycle = {
      tasks: life.done,
      concurrency: taskConcurrency,
      elapsedMs: life.elapsedMs,
      tasksPerS: (samples.length / life.elapsedMs) * 1000,
      create: pcts(samples.map((s) => s.createMs)),
      done: pcts(samples.map((s) => s.doneMs)),
      plainCall: { n: plain.done, p50: plain.p50, p99: plain.p99, max: plain.max },
      pollsPerTask: samples.reduce((a, s) => a + s.polls, 0) / (samples.length || 1),
      truncated: life.truncated,
      errors: life.errors,
    };
    onProgress(`  create p50 ${lifecycle.create.p50.toFixed(1)} ms p99 ${lifecycle.create.p99.toFixed(1)} ms; completed p50 ${lifecycle.done.p50.toFixed(1)} ms p99 ${lifecycle.done.p99.toFixed(1)} ms; plain tools/call p50 ${plain.p50.toFixed(1)} ms; ${lifecycle.pollsPerTask.toFixed(2)} polls/task; errors ${life.errors}`);

    // (b) tasks/get of one finished task, beside (c) the plain call, in interleaved rounds.
    const finished = samples[0]?.taskId;
    if (!finished) throw new Error("no task completed; nothing to poll");
    const ops = {
      get: async () => {
        const task = await modernCall(client, "tasks/get", { taskId: finished }, TASKS);
        if (task.status !== "completed") throw new Error(`tasks/get: ${JSON.stringify(task).slice(0, 200)}`);
      },
      call: async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i))),
    };
    for (const op of Object.values(ops)) await runLoad({ name: "warm-up", total: warmup, concurrency, maxMs: rowMaxMs, op });
    const runs = { get: [], call: [] };
    for (let round = 0; round < rounds; round++) {
      for (const key of round % 2 ? ["call", "get"] : ["get", "call"]) {
        runs[key].push(await runLoad({ name: key, total: Math.ceil(requests / rounds), concurrency, maxMs: rowMaxMs, op: ops[key] }));
      }
    }
    const strip = ({ latencies, ...row }) => row;
    const get = strip(mergeRuns("2026-07-28 tasks/get (finished task)", runs.get));
    const call = strip(mergeRuns("2026-07-28 tools/call (convert_temperature)", runs.call));
    for (const r of [get, call]) {
      onProgress(`  ${describeRun(r)}`);
      if (r.errors) errors.push(`${r.name}: ${r.errors} errors (${r.errorSamples.join(" | ")})`);
    }
    return { lifecycle, get, call, pollMs: POLL_MS, errors };
  } finally {
    client.close();
    await server.stop();
  }
}
