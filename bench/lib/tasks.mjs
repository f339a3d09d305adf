// Why: a task costs more than a call (an object per task, its alarm, its index), and a client
// polls it; the bench shows by how much, beside the plain call, in one run on one server, and
// beside the same drill on the task floor (bench/floor-task: the least that work costs).
// Against `wrangler dev` of the engine test app, on 2026-07-28 with the tasks extension:
// quick_task (finishes as soon as it runs) from tools/call to completed, seen by polling
// tasks/get every POLL_MS, and the plain tools/call (convert_temperature) at the same
// concurrency; the floor's task in each of its modes and its plain call, all in interleaved
// rounds, with the workerd CPU of each row; then tasks/get of a finished task and the plain
// tools/call, in interleaved rounds at the bench's concurrency.
import { performance } from "node:perf_hooks";
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { Client } from "./http.mjs";
import { checkConvert, convertArgs, modernCall } from "./mcp.mjs";
import { describeRun } from "./report.mjs";
import { mergeRuns, percentile, runLoad } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";
import { cpuMs, wranglerProcesses } from "./procstat.mjs";
import { FLOOR_MODES, TASK_FLOOR_SERVER, floorCall, oneFloorTask } from "./task-floor.mjs";

/** How often a client in this bench asks tasks/get whether its task is done (ms). */
export const POLL_MS = 25;

/**
 * The `wrangler dev` the tasks phase measures. The bench's one anonymous caller runs 16 tasks at
 * once; the in-flight cap (MAX_TASKS_IN_FLIGHT, 16 by default) is raised so a slow index update is
 * not a refusal here, and so is the count of tasks one owner keeps until their ttl (MAX_TASKS_RETAINED).
 */
export const TASKS_SERVER = {
  config: SERVERS.engine.config,
  logLevel: "warn",
  vars: { MAX_TASKS_IN_FLIGHT: "1000", MAX_TASKS_RETAINED: "100000" },
};

const TASKS = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One quick_task from tools/call to completed: { createMs, doneMs, polls }. */
async function oneTask(client, i, maxMs) {
  const t0 = performance.now();
  const created = await modernCall(client, "tools/call", { name: "quick_task", arguments: { n: i } }, TASKS);
  const createMs = performance.now() - t0;
  if (created.resultType !== "task" || typeof created.taskId !== "string")
    throw new Error(`quick_task ${i}: not a task: ${JSON.stringify(created).slice(0, 200)}`);
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
 * @param {{quick: boolean, requests: number, concurrency: number, warmup: number, rowMaxMs: number, server?: any, floorServer?: any}} settings
 *   requests: per row of (b) and (c), in two interleaved rounds. server, floorServer: the
 *   `wrangler dev` of TASKS_SERVER and of TASK_FLOOR_SERVER already started (dev-servers.mjs);
 *   both are stopped here either way.
 * @returns {Promise<{lifecycle, floor, get, call, pollMs: number, errors: string[]}>}
 * @param {(line: string) => void} [onProgress]
 */
export async function tasksPhase(
  { quick, requests, concurrency, warmup, rowMaxMs, server: started, floorServer: floorStarted },
  onProgress = () => {},
) {
  const tasks = quick ? 32 : 200;
  const taskConcurrency = 16;
  const rounds = 2;
  onProgress(
    `tasks: ${tasks} quick_task tasks at c=${taskConcurrency} (tasks/get every ${POLL_MS} ms), then tasks/get vs tools/call at c=${concurrency}`,
  );
  const [server, floorServer] = await Promise.all([
    started ?? startWrangler(TASKS_SERVER),
    floorStarted ?? startWrangler(TASK_FLOOR_SERVER),
  ]);
  const client = new Client(server.url, { connections: Math.max(concurrency, taskConcurrency), timeoutMs: 60_000 });
  const floorClient = new Client(floorServer.url, { connections: taskConcurrency, timeoutMs: 60_000 });
  const errors = [];
  try {
    // (a) create → completed, and the plain call at the tasks' concurrency right after them (what a
    // create costs above a call); then the same on the task floor (bench/floor-task), in each of its
    // modes, the rows interleaved in rounds so that load on the machine falls on all of them alike.
    const workerCpu = (server) => {
      const procs = wranglerProcesses(new URL(server.origin).port);
      return () => cpuMs(procs)?.worker ?? NaN;
    };
    /** @type {{ key: string, task?: (i: number) => Promise<object>, call?: (i: number) => Promise<void>, cpu: () => any }[]} */
    const rows = [
      {
        key: "engine",
        task: (i) => oneTask(client, i, 30_000),
        call: (i) => modernCall(client, "tools/call", convertArgs(i)).then((r) => checkConvert(i, r)),
        cpu: workerCpu(server),
      },
    ];
    const floorCpu = workerCpu(floorServer);
    for (const mode of FLOOR_MODES)
      rows.push({ key: mode, task: (i) => oneFloorTask(floorClient, i, { mode, pollMs: POLL_MS, maxMs: 30_000 }), cpu: floorCpu });
    rows.push({ key: "floorCall", call: () => floorCall(floorClient), cpu: floorCpu });
    // The floor's modes share one server and one index object: one of them warms it.
    for (const row of rows.filter((r) => r.key !== "bare" && r.key !== "parallel")) {
      const op = row.task ? (i) => row.task(-1 - i) : row.call;
      await runLoad({
        name: `${row.key} warm-up`,
        total: quick ? 16 : Math.min(warmup, 32),
        concurrency: taskConcurrency,
        maxMs: rowMaxMs,
        op,
      });
    }
    const per = Math.ceil(tasks / rounds);
    const got = {};
    for (let round = 0; round < rounds; round++) {
      for (const row of round % 2 ? [...rows].reverse() : rows) {
        for (const kind of row.task && row.call ? (round % 2 ? ["call", "task"] : ["task", "call"]) : [row.task ? "task" : "call"]) {
          const into = (got[`${row.key} ${kind}`] ??= { samples: [], runs: [], cpuMs: 0 });
          const before = row.cpu();
          const run = await runLoad({
            name: `${row.key} ${kind}`,
            total: per,
            concurrency: taskConcurrency,
            maxMs: kind === "task" ? rowMaxMs * 2 : rowMaxMs,
            op: kind === "task" ? async (i) => into.samples.push(await row.task(round * per + i)) : (i) => row.call(round * per + i),
          });
          into.cpuMs += row.cpu() - before;
          into.runs.push(run);
          if (run.errors) errors.push(`tasks ${row.key} ${kind}: ${run.errors} errors (${run.errorSamples.join(" | ")})`);
        }
      }
    }
    const taskRow = (key) => {
      const { samples, runs, cpuMs: spent } = got[`${key} task`];
      const elapsedMs = runs.reduce((a, r) => a + r.elapsedMs, 0);
      return {
        tasks: samples.length,
        elapsedMs,
        tasksPerS: (samples.length / elapsedMs) * 1000,
        create: pcts(samples.map((s) => s.createMs)),
        done: pcts(samples.map((s) => s.doneMs)),
        pollsPerTask: samples.reduce((a, s) => a + s.polls, 0) / (samples.length || 1),
        cpuMsPerTask: spent / (samples.length || 1),
        truncated: runs.some((r) => r.truncated),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      };
    };
    const callRow = (key, name) => {
      const { runs, cpuMs: spent } = got[`${key} call`];
      const { latencies, ...merged } = mergeRuns(name, runs);
      return { n: merged.done, p50: merged.p50, p99: merged.p99, max: merged.max, cpuMsPerCall: spent / (merged.done || 1) };
    };
    const engine = taskRow("engine");
    const samples = got["engine task"].samples;
    const lifecycle = { ...engine, concurrency: taskConcurrency, plainCall: callRow("engine", "tools/call at the tasks' concurrency") };
    const floor = {
      modes: Object.fromEntries(FLOOR_MODES.map((mode) => [mode, taskRow(mode)])),
      plainCall: callRow("floorCall", "floor call"),
    };
    const line = (name, r, call) =>
      `  ${name}: create p50 ${r.create.p50.toFixed(1)} ms (${(r.create.p50 / call.p50).toFixed(2)}× its call's ${call.p50.toFixed(1)} ms); completed p50 ${r.done.p50.toFixed(1)} ms (${(r.done.p50 / call.p50).toFixed(2)}×); workerd CPU ${r.cpuMsPerTask.toFixed(1)} ms/task against ${call.cpuMsPerCall.toFixed(1)} ms/call; ${r.pollsPerTask.toFixed(2)} polls/task; errors ${r.errors}`;
    onProgress(line("engine", lifecycle, lifecycle.plainCall));
    for (const mode of FLOOR_MODES) onProgress(line(`floor (${mode})`, floor.modes[mode], floor.plainCall));

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
    return { lifecycle, floor, get, call, pollMs: POLL_MS, errors };
  } finally {
    client.close();
    floorClient.close();
    await Promise.all([server.stop(), floorServer.stop()]);
  }
}
