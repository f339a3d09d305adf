// Why: each `wrangler dev` start is seconds of wrangler's own start-up, and a full bench needs
// fifteen of them (the four throughput rows' servers, the replay fixture, three at each of the two
// hub shard counts (listen streams, 2025 sessions, the fan-out floor), the tasks server and the task
// floor, two fresh servers for the churn drills). They are started side by side before the
// first of them is measured, and wait idle until their phase: an idle one spends about 10 ms of CPU
// a second (nearly all in wrangler's Node process), and each phase reads the CPU of its own server
// only. Each phase stops its servers when done.
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { startFreshServer } from "./churn.mjs";
import { fanoutFloorServer, fanoutServer } from "./fanout.mjs";
import { REPLAY_SERVER, THROUGHPUT_SERVERS } from "./phases.mjs";
import { TASK_FLOOR_SERVER } from "./task-floor.mjs";
import { TASKS_SERVER } from "./tasks.mjs";

/**
 * Starts every phase's server at once: { throughput: { [key]: server }, replay, fanout: { [shards]: server }, fanoutSessions: { [shards]: server }, fanoutFloor: { [shards]: server }, tasks, taskFloor, churn: [fresh, fresh] }.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function startDevServers({ shardCounts }, onProgress = () => {}) {
  onProgress(
    `starting wrangler dev for the throughput, replay, fan-out (HUB_SHARDS=${shardCounts.join(", ")}), tasks (and its floor) and churn phases, side by side`,
  );
  // A start that fails is tried once more: with fifteen starting at once, wrangler's bundler has been
  // seen to deadlock in one of them, and a whole run should not be lost to that.
  const retried = (start) =>
    start().catch((err) => {
      onProgress(`  a wrangler dev did not start (${String(err?.message ?? err).split("\n")[0]}); starting it again`);
      return start();
    });
  const dev = (options) => retried(() => startWrangler(options));
  const starts = {
    ...Object.fromEntries(Object.entries(THROUGHPUT_SERVERS).map(([key, options]) => [`throughput-${key}`, dev(options)])),
    replay: dev(REPLAY_SERVER),
    tasks: dev(TASKS_SERVER),
    taskFloor: dev(TASK_FLOOR_SERVER),
    ...Object.fromEntries(shardCounts.map((n) => [`fanout-${n}`, dev(fanoutServer(n))])),
    ...Object.fromEntries(shardCounts.map((n) => [`fanout-sessions-${n}`, dev(fanoutServer(n))])),
    ...Object.fromEntries(shardCounts.map((n) => [`fanout-floor-${n}`, dev(fanoutFloorServer(n))])),
    "churn-a": retried(startFreshServer),
    "churn-b": retried(startFreshServer),
  };
  const keys = Object.keys(starts);
  /** @type {any[]} */
  const settled = await Promise.allSettled(Object.values(starts));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    // Stop the ones that did start, so none is left running for the rest of the bench.
    await Promise.all(settled.filter((s) => s.status === "fulfilled").map((s) => (s.value.server ?? s.value).stop()));
    throw failed.reason;
  }
  const got = Object.fromEntries(keys.map((k, i) => [k, settled[i].value]));
  return {
    throughput: Object.fromEntries(Object.keys(THROUGHPUT_SERVERS).map((key) => [key, got[`throughput-${key}`]])),
    replay: got.replay,
    tasks: got.tasks,
    taskFloor: got.taskFloor,
    fanout: Object.fromEntries(shardCounts.map((n) => [n, got[`fanout-${n}`]])),
    fanoutSessions: Object.fromEntries(shardCounts.map((n) => [n, got[`fanout-sessions-${n}`]])),
    fanoutFloor: Object.fromEntries(shardCounts.map((n) => [n, got[`fanout-floor-${n}`]])),
    churn: [got["churn-a"], got["churn-b"]],
  };
}
