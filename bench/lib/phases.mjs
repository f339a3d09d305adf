// Why: `npm run bench` is three measurements; each is a function that runs bounded work and
// returns plain data, so the report (bench/lib/report.mjs) and the targets
// (bench/lib/targets.mjs) read one result and nothing prints from in here. Progress goes to
// the caller's `onProgress`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { splitId } from "../../test/engine/wire/index.ts";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { describeRun } from "./report.mjs";
import { Client, eventsOf } from "./http.mjs";
import { LegacySession, checkConvert, convertArgs, modernCall, modernRequest } from "./mcp.mjs";
import { cpuMs, wranglerProcesses } from "./procstat.mjs";
import { median, mergeRuns, runLoad } from "./runner.mjs";
import { FLOOR_PLATFORM, REPLAY_FIXTURE, SAME_TOOL, SERVERS, compatibilityOf } from "./servers.mjs";
import { build, buildUploadBundle, checkStartup, interleavedProfiles, moduleMapper, summarize } from "./startup.mjs";
import { LATER_CALLS, startupCpu } from "./startup-cpu.mjs";

/** Means of per-run Maps (module or function → ms), largest first. */
function meanOf(sums, field) {
  const m = new Map();
  for (const one of sums) for (const [k, v] of one[field]) m.set(k, (m.get(k) ?? 0) + v / sums.length);
  return [...m].sort((a, b) => b[1] - a[1]);
}
const mean = (sums, field) => sums.reduce((a, p) => a + p[field], 0) / sums.length;

/**
 * Every server's three builds (minified, unminified, and the upload bundle `check startup` takes),
 * two wrangler runs at a time: a build is mostly wrangler's own start-up, and nothing is measured
 * while they run. Returns { [key]: { min, raw, upload } }.
 */
async function buildAll(tmpDir, onProgress) {
  onProgress(`building ${Object.keys(SERVERS).join(", ")} (minified, unminified, upload bundle), two at a time`);
  const jobs = Object.entries(SERVERS).flatMap(([key, server]) => {
    const config = path.join(ROOT, server.config);
    return /** @type {[string, string, () => Promise<any>][]} */ ([
      [key, "min", () => build(config, path.join(tmpDir, key, "min"))],
      [key, "raw", () => build(config, path.join(tmpDir, key, "raw"), { minify: false })],
      [key, "upload", () => buildUploadBundle(config, path.join(tmpDir, key, "worker.bundle"))],
    ]);
  });
  /** @type {Record<string, Record<string, any>>} */
  const built = Object.fromEntries(Object.keys(SERVERS).map((key) => [key, {}]));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [key, kind, job] = jobs[next++];
      built[key][kind] = await job();
    }
  };
  await Promise.all([worker(), worker()]);
  return built;
}

/**
 * Bundle sizes (unminified, minified, gzip) from `wrangler deploy --dry-run`, start-up CPU from
 * `wrangler check startup` (median of `startupRuns`), and a 50 µs profile of the start-up
 * (median of `profileRuns`); for the engine, where its start-up time goes. Returns the builds too
 * (`built[key]`: { min, raw, upload }), so later phases serve and profile them without building again,
 * and the peers' one tool on the engine (`sameTool`: { min, gzip, startCpu, startCpuAll, callCpu, callCpuAll }): the app the start-up
 * row measures against the bare Worker.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function sizeAndStartup({ tmpDir, startupRuns, profileRuns, cpuRounds = 3, isolates = 40 }, onProgress = () => {}) {
  const stat = {};
  const built = await buildAll(tmpDir, onProgress);
  const same = await build(path.join(ROOT, SAME_TOOL), path.join(tmpDir, "same-tool", "min"));
  /** @type {{ min: number, gzip: number, startCpu?: number, startCpuAll?: number[], callCpu?: number, callCpuAll?: number[] }} */
  const sameTool = { min: same.raw, gzip: same.gzip };
  onProgress(`  the peers' one tool on the engine: minified ${same.raw} B, gzip ${same.gzip} B`);
  let engineProfile;
  // `check startup` round by round, each round over every server in a rotating order, so a change
  // in the machine's load falls on all of them and not on whichever ran in its stretch.
  const keys = Object.keys(SERVERS);
  const checks = Object.fromEntries(keys.map((key) => [key, []]));
  onProgress(`start-up: \`wrangler check startup\`, ${startupRuns} interleaved rounds of ${keys.join(", ")}`);
  for (let round = 0; round < startupRuns; round++) {
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(round + k) % keys.length];
      checks[key].push((await checkStartup(built[key].upload, tmpDir)).active);
    }
  }
  // The finer profile (50 µs) runs on the unminified builds, so functions keep their names and lines
  // map to modules; interleaved like the checks. Its Active time has a figure even for the bare
  // Worker, whose `check startup` (sampled at about 1 ms) can read 0.0 ms.
  onProgress(`start-up profile (50 µs): ${profileRuns} interleaved rounds of ${keys.join(", ")}`);
  const profiled = await interleavedProfiles(
    Object.fromEntries(
      keys.map((key) => [key, { dir: built[key].raw.dir, main: built[key].raw.main, compat: compatibilityOf(SERVERS[key].config) }]),
    ),
    profileRuns,
    onProgress,
  );
  for (const key of keys) {
    const { min, raw } = built[key];
    const check = checks[key];
    const map = moduleMapper(readFileSync(path.join(raw.dir, raw.main), "utf8"));
    const sums = profiled[key].map((p) => summarize(p, map, raw.main));
    stat[key] = {
      raw: raw.raw,
      min: min.raw,
      gzip: min.gzip,
      checkActive: median(check),
      checkAll: check,
      profJs: median(sums.map((s) => s.js)),
      profActive: median(sums.map((s) => s.active)),
      profActiveAll: sums.map((s) => Number(s.active.toFixed(2))),
      profProgram: median(sums.map((s) => s.program)),
    };
    if (key === "engine") {
      engineProfile = {
        runs: sums.length,
        active: mean(sums, "active"),
        js: mean(sums, "js"),
        program: mean(sums, "program"),
        gc: mean(sums, "gc"),
        topModules: meanOf(sums, "byModule").slice(0, 10),
        topFunctions: meanOf(sums, "byFunction").slice(0, 10),
      };
    }
    onProgress(
      `  ${SERVERS[key].name}: unminified ${raw.raw} B, minified ${min.raw} B, gzip ${min.gzip} B; check startup Active ${check.join(", ")} ms; 50 µs profile: Active ${stat[key].profActiveAll.join(", ")} ms, JS ${stat[key].profJs.toFixed(2)} ms (median)`,
    );
  }
  // The start-up the "≤ 1.25× the bare Worker's" row compares: CPU time of an isolate's first
  // request importing the minified bundle, isolate and harness included, since the sampled figures
  // read a bare Worker's start-up (far under their resolution) as 0.0 ms. The row measures the
  // one-tool app (bench/same-tool, the app the one-tool bundle budget holds); the engine test app,
  // with every feature and its fixtures, is printed beside it. Interleaved rounds in a rotating order.
  const cpuKeys = ["sameTool", "engine", "floor"];
  const cpuDirs = { sameTool: same, engine: built.engine.min, floor: built.floor.min };
  const cpuAll = { sameTool: [], engine: [], floor: [] };
  // Beside each reading, as many fresh isolates (in a workerd of their own: startup-cpu.mjs) whose
  // first request each bundle serves, the bare Worker with its fixed body: the import and a first
  // 2026-07-28 tools/call, where V8 compiles the request path.
  const callAll = { sameTool: [], engine: [], floor: [] };
  // And each of those isolates' next calls (startup-cpu.mjs LATER_CALLS): CPU per call before V8 has
  // optimized the request path.
  const nextAll = { sameTool: [], engine: [], floor: [] };
  const request = firstCallRequest();
  onProgress(
    `start-up CPU: ${cpuRounds} interleaved rounds of ${cpuKeys.join(", ")} (${isolates} isolates each), import alone and with a first tools/call`,
  );
  for (let round = 0; round < cpuRounds; round++) {
    for (let k = 0; k < cpuKeys.length; k++) {
      const key = cpuKeys[(round + k) % cpuKeys.length];
      const compat = compatibilityOf(key === "sameTool" ? SAME_TOOL : SERVERS[key].config);
      const r = await startupCpu(cpuDirs[key].dir, cpuDirs[key].main, { ...compat, isolates, request });
      cpuAll[key].push(Number(r.full.toFixed(2)));
      callAll[key].push(Number(r.call.toFixed(2)));
      nextAll[key].push(Number(r.next.toFixed(2)));
    }
  }
  const cpuOf = (key) => ({
    startCpuAll: cpuAll[key],
    startCpu: median(cpuAll[key]),
    callCpuAll: callAll[key],
    callCpu: median(callAll[key]),
    nextCpuAll: nextAll[key],
    nextCpu: median(nextAll[key]),
  });
  for (const key of ["engine", "floor"]) Object.assign(stat[key], cpuOf(key));
  Object.assign(sameTool, cpuOf("sameTool"));
  onProgress(`  start-up CPU per isolate: ${cpuKeys.map((k) => `${k} ${cpuAll[k].join(", ")} ms`).join("; ")}`);
  onProgress(`  with a first tools/call: ${cpuKeys.map((k) => `${k} ${callAll[k].join(", ")} ms`).join("; ")}`);
  onProgress(`  each of the next ${LATER_CALLS} calls: ${cpuKeys.map((k) => `${k} ${nextAll[k].join(", ")} ms`).join("; ")}`);
  return { stat, engineProfile, built, sameTool };
}

/** The first request the start-up rows serve on a fresh isolate: a 2026-07-28 convert_temperature call on /mcp. */
export function firstCallRequest() {
  const { headers, body } = modernRequest("tools/call", convertArgs(0));
  return { path: "/mcp", headers, body };
}

/** A checked 2026-07-28 convert_temperature call on `client`, number i. */
export const convertOn = (client) => async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i)));

/** The throughput rows: which server each measures, and its checked operation. */
export function throughputOps(clients, sessions) {
  const floorReq = modernRequest("tools/call", convertArgs(0)); // the floors ignore it and answer a fixed body
  const fixed = (server) => ({
    server,
    op: async () => {
      const r = await clients[server].request("POST", floorReq.headers, floorReq.body);
      if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    },
  });
  return {
    floor: fixed("floor"),
    ...(clients.floorPlatform ? { floorPlatform: fixed("floorPlatform") } : {}),
    modernCall: { server: "engine", op: convertOn(clients.engine) },
    modernList: {
      server: "engine",
      op: async () => {
        const result = await modernCall(clients.engine, "tools/list", {});
        if (!Array.isArray(result.tools) || result.tools.length === 0) throw new Error("empty tools/list");
      },
    },
    legacyCall: {
      server: "engine",
      op: async (i) => checkConvert(i, await sessions[i % sessions.length].call("tools/call", convertArgs(i))),
    },
    official: { server: "official", op: convertOn(clients.official) },
    agents: { server: "agents", op: convertOn(clients.agents) },
  };
}

/**
 * Measures every row of `ops` in interleaved rounds, in a rotating order, so drift in the machine's
 * other load is spread over every row: requests/s, latency, and CPU per request of the row's server
 * (`cpuOf(server)`: ms used so far, by role) and of this client.
 */
export async function interleavedRows({ ops, rounds, perRound, concurrency, rowMaxMs, cpuOf }, onProgress) {
  const keys = Object.keys(ops);
  const runs = Object.fromEntries(keys.map((k) => [k, []]));
  /** @type {Record<string, Record<string, number>>} */
  const cpu = Object.fromEntries(keys.map((k) => [k, {}]));
  for (let round = 0; round < rounds; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]);
    for (const key of order) {
      const before = cpuOf(ops[key].server);
      const clientBefore = process.cpuUsage();
      runs[key].push(await runLoad({ name: key, total: perRound, concurrency, maxMs: rowMaxMs, op: ops[key].op }));
      const after = cpuOf(ops[key].server);
      const c = process.cpuUsage(clientBefore);
      for (const role of Object.keys(after)) cpu[key][role] = (cpu[key][role] ?? 0) + after[role] - before[role];
      cpu[key].client = (cpu[key].client ?? 0) + (c.user + c.system) / 1000;
    }
    onProgress(`  round ${round + 1}/${rounds}: ${order.map((k) => `${k} ${Math.round(runs[k].at(-1).rps)}/s`).join(", ")}`);
  }
  return rowsOf(keys, runs, cpu, onProgress);
}

/** The servers the `wrangler dev` throughput rows measure, and how each is started. */
export const THROUGHPUT_SERVERS = {
  ...Object.fromEntries(["floor", "engine", "official", "agents"].map((key) => [key, { config: SERVERS[key].config, logLevel: "warn" }])),
  floorPlatform: { config: FLOOR_PLATFORM, logLevel: "warn" },
};

/**
 * Requests/s, latency and CPU per request (from /proc) for every row, against `wrangler dev`.
 * The servers run side by side (an idle one spends about 10 ms of CPU a second, nearly all in
 * wrangler's Node process) and the rows are measured in interleaved rounds, in a rotating order,
 * so drift in the machine's other load is spread over every row instead of landing on whichever
 * ran last. `servers`: THROUGHPUT_SERVERS already started (dev-servers.mjs); stopped here either way.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function throughput(
  { requests, rounds, concurrency, warmup, rowMaxMs, legacySessions, servers: started },
  onProgress = () => {},
) {
  onProgress("throughput: wrangler dev of the floor, the engine test app and the peers");
  const servers = { ...started };
  const clients = {};
  const keys = Object.keys(THROUGHPUT_SERVERS);
  try {
    for (const key of keys) servers[key] ??= await startWrangler(THROUGHPUT_SERVERS[key]);
    for (const key of keys)
      clients[key] = new Client(servers[key].url, { connections: Math.max(concurrency, legacySessions), timeoutMs: 60_000 });
    const sessions = await Promise.all(Array.from({ length: legacySessions }, () => new LegacySession(clients.engine).open()));
    const ops = throughputOps(clients, sessions);
    for (const key of Object.keys(ops)) await runLoad({ name: "warm-up", total: warmup, concurrency, maxMs: rowMaxMs, op: ops[key].op });
    const procs = Object.fromEntries(Object.entries(servers).map(([k, sv]) => [k, wranglerProcesses(new URL(sv.origin).port)]));
    const cpuOf = (server) => cpuMs(procs[server]) ?? { worker: NaN, proxy: NaN, wrangler: NaN };
    const rows = await interleavedRows({ ops, rounds, perRound: Math.ceil(requests / rounds), concurrency, rowMaxMs, cpuOf }, onProgress);
    await Promise.all(sessions.map((s) => s.close()));
    return rows;
  } finally {
    for (const c of Object.values(clients)) c.close();
    for (const sv of Object.values(servers)) await sv.stop();
  }
}

/** The `wrangler dev` the replay phase measures. */
export const REPLAY_SERVER = { config: REPLAY_FIXTURE, logLevel: "warn" };

/** Reads a stream to its end; returns how many events carried a message, and the last event id. */
async function drain(stream, timeoutMs) {
  const events = await stream.rest(timeoutMs);
  return { messages: events.filter((e) => e.message).length, lastId: events.at(-1)?.id };
}

/**
 * Reads a stream as a client must: the server closes a stream whose reader lags more than its
 * send buffer, and sends at most one buffer of a long replay per reconnect, so the reader
 * resumes with Last-Event-ID until the event numbered `untilSeq` arrived. Counts reconnects.
 */
async function drainResuming(session, stream, untilSeq, timeoutMs) {
  let { messages, lastId } = await drain(stream, timeoutMs);
  let reconnects = 0;
  while (lastId && splitId(lastId).seq < untilSeq) {
    if (++reconnects > 10_000) throw new Error(`stream stuck at ${lastId}`);
    const next = await drain(await session.openGet(lastId), timeoutMs);
    if (!next.lastId) throw new Error(`resume after ${lastId} sent nothing`);
    messages += next.messages;
    lastId = next.lastId;
  }
  return { messages, lastId, reconnects };
}

/**
 * 2025-11-25 Last-Event-ID replay against the replay fixture: one stream of 100 events and
 * one of `logSize`, then replays of 100, 1,000 and all `logSize` missed events, timed. `server`: a
 * `wrangler dev` of REPLAY_SERVER already started (dev-servers.mjs); it is stopped here either way.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function replay({ logSize, quick, server: started }, onProgress = () => {}) {
  onProgress("Last-Event-ID replay");
  const server = started ?? (await startWrangler(REPLAY_SERVER));
  const client = new Client(server.url, { connections: 4, timeoutMs: 120_000 });
  const errors = [];
  try {
    const session = await new LegacySession(client).open();
    // A stream with `events` events (events - 1 logs + the result), read live once.
    const makeLog = async (events) => {
      const t0 = performance.now();
      const res = await session.openRequest("tools/call", { name: "emit_logs", arguments: { n: events - 1 } });
      const { lastId, reconnects } = await drainResuming(session, eventsOf(res), events, 120_000);
      const { stream, seq } = splitId(lastId);
      if (seq !== events) throw new Error(`log of ${events}: last event id ${lastId}`);
      return { stream, liveMs: performance.now() - t0, reconnects };
    };
    const small = await makeLog(100);
    const big = await makeLog(logSize);
    onProgress(`  live delivery of a ${logSize}-event stream (write + relay): ${big.liveMs.toFixed(0)} ms, ${big.reconnects} reconnects`);
    const n = logSize.toLocaleString("en-US");
    const cases = [
      { label: "100 missed (log of 100)", stream: small.stream, after: 0, missed: 100, reps: quick ? 5 : 25 },
      { label: `100 missed (log of ${n})`, stream: big.stream, after: logSize - 100, missed: 100, reps: quick ? 5 : 25 },
      { label: `1,000 missed (log of ${n})`, stream: big.stream, after: logSize - 1000, missed: 1000, reps: quick ? 3 : 15 },
      { label: `${n} missed (log of ${n})`, stream: big.stream, after: 0, missed: logSize, reps: quick ? 2 : 7 },
    ];
    // One untimed replay first, so no case pays for warming the path.
    await drainResuming(session, await session.openGet(`${small.stream}-0`), 100, 60_000);
    const deadline = performance.now() + (quick ? 30_000 : 90_000);
    const out = [];
    for (const c of cases) {
      const times = [];
      for (let i = 0; i < c.reps && performance.now() < deadline; i++) {
        const t0 = performance.now();
        const { messages } = await drainResuming(session, await session.openGet(`${c.stream}-${c.after}`), c.after + c.missed, 60_000);
        times.push(performance.now() - t0);
        if (messages !== c.missed) errors.push(`replay ${c.label}: got ${messages} events, expected ${c.missed}`);
      }
      const sorted = times.sort((a, b) => a - b);
      out.push({ label: c.label, missed: c.missed, runs: sorted.length, p50: median(sorted), min: sorted[0], max: sorted.at(-1) });
      onProgress(`  replay ${c.label}: median ${median(sorted).toFixed(1)} ms over ${sorted.length} runs`);
    }
    await session.close();
    return { cases: out, liveMs: big.liveMs, liveReconnects: big.reconnects, logSize, errors };
  } finally {
    client.close();
    await server.stop();
  }
}

/** One row per key from its rounds: the merged load statistics, and CPU per request by process role. */
function rowsOf(keys, runs, cpu, onProgress) {
  const rows = {};
  for (const key of keys) {
    const { latencies, ...row } = mergeRuns(key, runs[key]);
    rows[key] = { ...row, cpuUs: Object.fromEntries(Object.entries(cpu[key]).map(([role, ms]) => [role, (ms * 1000) / row.done])) };
    onProgress(`  ${describeRun(rows[key])}`);
  }
  return rows;
}
