// Why: a task costs more than a plain call on any server built on Durable Objects (a new object with
// its own SQLite database, an alarm, the poll that reads it); the tasks phase shows the engine's
// task rows beside the same drill against bench/floor-task, the least that work costs, so that what
// the engine adds reads apart from what the platform does. This file is that drill's client side.
import { performance } from "node:perf_hooks";

/** The task floor's `wrangler dev` (started beside the other phases' servers, dev-servers.mjs). */
export const TASK_FLOOR_SERVER = { config: "bench/floor-task/wrangler.toml", logLevel: "warn" };

/**
 * The floor's ways of making a task: "bare" (the task's object alone), "series" (the owner's index
 * counts it first, from the task's object, as the engine does), "parallel" (the Worker asks the index
 * beside the create; the task waits, pending, until admitted).
 */
export const FLOOR_MODES = ["bare", "series", "parallel"];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function post(client, body, what) {
  const r = await client.request("POST", { "Content-Type": "application/json" }, JSON.stringify(body));
  if (r.status !== 200) throw new Error(`floor ${what}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return JSON.parse(r.text);
}

/** One floor task from create to completed, polling every `pollMs`: { createMs, doneMs, polls }. */
export async function oneFloorTask(client, i, { mode, pollMs, maxMs }) {
  const t0 = performance.now();
  const { task } = await post(client, { op: "create", n: i, mode }, "create");
  const createMs = performance.now() - t0;
  if (task?.status !== "working" || typeof task.taskId !== "string")
    throw new Error(`floor task ${i}: not a task: ${JSON.stringify(task).slice(0, 200)}`);
  let polls = 0;
  for (;;) {
    if (performance.now() - t0 > maxMs) throw new Error(`floor task ${i}: not completed after ${maxMs} ms`);
    await sleep(pollMs);
    polls++;
    const { task: got } = await post(client, { op: "get", taskId: task.taskId }, "get");
    if (got?.status === "working") continue;
    if (got?.status !== "completed" || got.result?.content?.[0]?.text !== `done ${i}`)
      throw new Error(`floor task ${i}: ${JSON.stringify(got).slice(0, 200)}`);
    return { createMs, doneMs: performance.now() - t0, polls };
  }
}

/** The floor's plain call (a fixed JSON-RPC-shaped answer from the Worker), checked. */
export async function floorCall(client) {
  const answer = await post(client, { op: "call" }, "call");
  if (answer?.result?.content?.[0]?.text !== "ok") throw new Error(`floor call: ${JSON.stringify(answer).slice(0, 200)}`);
}
