// Why: issue 5 — one command that measures, in one run on this machine, what the template
// promises against a bare Worker (the floor) and against the servers a user would pick
// instead (the official SDK v2 `createMcpHandler` and Cloudflare `agents`' `createMcpHandler`,
// built from their published packages under bench/peers/<name>/):
//   - bundle size (unminified, minified, gzip) from `wrangler deploy --dry-run`;
//   - start-up CPU from `wrangler check startup` (median of several runs), plus a finer
//     profile (50 µs sampling) that splits it into the worker's JavaScript and native time
//     and names the top costs of the example server's start-up;
//   - requests/s, p50 and p99 against `wrangler dev` on 127.0.0.1: floor, 2026-07-28
//     tools/call and tools/list, 2025-11-25 tools/call in sessions, Last-Event-ID replays;
//   - ratios to the floor and to each peer, and the targets of issue 5, met or not.
// Prints a Markdown report and writes it to bench/results/latest.md (git-ignored) and to
// bench/RESULTS.md (the committed copy). Every load loop is bounded in count and time.
//
//   npm run bench                   # the full run (about 6–9 minutes on 2 cores)
//   npm run bench -- --quick        # smaller counts, for checking the script
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Client, LegacySession, describe, fmt, mergeRuns, modernCall, modernRequest, readSse, runLoad } from "../bench/lib/load.mjs";
import { build, buildUploadBundle, checkStartup, median, moduleMapper, profileStartup, summarize, tempDir } from "../bench/lib/startup.mjs";
import { cpuDelta, cpuMs, wranglerProcesses } from "../bench/lib/procstat.mjs";
import { ROOT, run } from "../test/e2e/procs.mjs";
import { startWrangler } from "../test/e2e/server.mjs";

const { values: opt } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    requests: { type: "string" }, // per throughput row
    concurrency: { type: "string", default: "64" },
    "startup-runs": { type: "string" },
  },
});
const QUICK = opt.quick;
const N = Number(opt.requests ?? (QUICK ? 600 : 4000));
const ROUNDS = QUICK ? 2 : 4;
const C = Number(opt.concurrency);
const WARMUP = QUICK ? 100 : 400;
const ROW_MAX_MS = QUICK ? 20_000 : 60_000;
const STARTUP_RUNS = Number(opt["startup-runs"] ?? (QUICK ? 3 : 5));
const PROFILE_RUNS = QUICK ? 3 : 9;
const LEGACY_SESSIONS = 64;
const REPLAY_LOG = 10_000;

const TARGETS = {
  example: { name: "this template (example server)", config: "wrangler.toml" },
  floor: { name: "floor (bare Worker, fixed JSON)", config: "bench/floor/wrangler.toml" },
  official: { name: "official SDK v2 `createMcpHandler`", config: "bench/peers/official/wrangler.toml", dir: "bench/peers/official", pkg: "@modelcontextprotocol/server" },
  agents: { name: "agents `createMcpHandler`", config: "bench/peers/agents/wrangler.toml", dir: "bench/peers/agents", pkg: "agents" },
};
const FIXTURE = "bench/fixture/wrangler.toml";

const log = (s) => console.error(s); // progress on stderr; the report goes to stdout
const started = performance.now();
const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
const loadAtStart = loadavg();

// ── 1. peers: their own installs, from their own package.json ───────────────
for (const t of [TARGETS.official, TARGETS.agents]) {
  const dir = path.join(ROOT, t.dir);
  const marker = path.join(dir, "node_modules", ".package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(path.join(dir, "package.json")).mtimeMs) continue;
  log(`▶ npm install in ${t.dir}`);
  const r = await run("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel", "error"], { timeoutMs: 300_000, capture: true });
  if (r.code !== 0) throw new Error(`npm install in ${t.dir} failed:\n${r.out.slice(-2000)}`);
}
const versionOf = (t) => JSON.parse(readFileSync(path.join(ROOT, t.dir, "node_modules", t.pkg, "package.json"), "utf8")).version;
TARGETS.official.version = versionOf(TARGETS.official);
TARGETS.agents.version = versionOf(TARGETS.agents);

// ── 2. bundles and start-up ──────────────────────────────────────────────────
const tmp = tempDir("mcp-bench-");
const stat = {};
let exampleProfile;
for (const [key, t] of Object.entries(TARGETS)) {
  log(`▶ build + start-up: ${t.name}`);
  const config = path.join(ROOT, t.config);
  const toml = readFileSync(config, "utf8");
  const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1];
  const compatibilityFlags = JSON.parse(/compatibility_flags\s*=\s*(\[[^\]]*\])/.exec(toml)?.[1] ?? "[]");
  const min = await build(config, path.join(tmp.dir, key, "min"));
  const raw = await build(config, path.join(tmp.dir, key, "raw"), { minify: false });
  const upload = await buildUploadBundle(config, path.join(tmp.dir, key, "worker.bundle"));
  const check = [];
  for (let i = 0; i < STARTUP_RUNS; i++) check.push(await checkStartup(upload, tmp.dir));
  // The finer profile runs on the unminified build, so functions keep their names and lines map to modules.
  const map = moduleMapper(readFileSync(path.join(raw.dir, raw.main), "utf8"));
  const sums = (await profileStartup(raw.dir, raw.main, { compatibilityDate, compatibilityFlags, reps: PROFILE_RUNS })).map((p) => summarize(p, map, raw.main));
  stat[key] = {
    raw: raw.raw,
    min: min.raw,
    gzip: min.gzip,
    checkActive: median(check.map((c) => c.active)),
    checkAll: check.map((c) => c.active),
    profActive: median(sums.map((s) => s.active)),
    profJs: median(sums.map((s) => s.js)),
    profProgram: median(sums.map((s) => s.program)),
  };
  if (key === "example") exampleProfile = sums;
  log(`  unminified ${raw.raw} B, minified ${min.raw} B, gzip ${min.gzip} B; check startup Active ${check.map((c) => c.active).join(", ")} ms; 50 µs profile: JS ${stat[key].profJs.toFixed(2)} ms (median)`);
}

// ── 3. throughput against wrangler dev ───────────────────────────────────────
// The four servers run side by side (idle ones cost nothing) and the rows are measured in
// interleaved rounds, in a rotating order, so drift in the machine's other load is spread
// over every row instead of landing on whichever ran last.
const rows = {};
const errorsSeen = [];
async function withServer(config, fn) {
  const server = await startWrangler({ config, logLevel: "warn" });
  const client = new Client(server.url, { connections: Math.max(C, LEGACY_SESSIONS), timeoutMs: 60_000 });
  try {
    return await fn(client, server);
  } finally {
    client.close();
    await server.stop();
  }
}
const convert = (i) => ({ name: "convert_temperature", arguments: { value: i % 200, from: i % 2 ? "celsius" : "fahrenheit" } });
const checkedConvert = (client) => async (i) => {
  const result = await modernCall(client, "tools/call", convert(i));
  if (typeof result.structuredContent?.celsius !== "number") throw new Error(`bad result ${JSON.stringify(result).slice(0, 200)}`);
};

log("▶ throughput: starting wrangler dev for the floor, the example server and the peers");
const servers = {};
const clients = {};
try {
  for (const key of ["floor", "example", "official", "agents"]) {
    servers[key] = await startWrangler({ config: TARGETS[key].config, logLevel: "warn" });
    clients[key] = new Client(servers[key].url, { connections: Math.max(C, LEGACY_SESSIONS), timeoutMs: 60_000 });
  }
  const floorReq = modernRequest("tools/call", convert(0)); // the floor ignores it and answers a fixed body
  const sessions = await Promise.all(Array.from({ length: LEGACY_SESSIONS }, () => new LegacySession(clients.example).open()));
  const ops = {
    floor: async () => {
      const r = await clients.floor.request("POST", floorReq.headers, floorReq.body);
      if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    },
    modernCall: checkedConvert(clients.example),
    modernList: async () => {
      const result = await modernCall(clients.example, "tools/list", {});
      if (!Array.isArray(result.tools) || result.tools.length === 0) throw new Error("empty tools/list");
    },
    legacyCall: async (i) => {
      const result = await sessions[i % LEGACY_SESSIONS].call("tools/call", convert(i));
      if (typeof result.structuredContent?.celsius !== "number") throw new Error("bad result");
    },
    official: checkedConvert(clients.official),
    agents: checkedConvert(clients.agents),
  };
  const keys = Object.keys(ops);
  for (const key of keys) await runLoad({ name: "warm-up", total: WARMUP, concurrency: C, maxMs: ROW_MAX_MS, op: ops[key] });
  const perRound = Math.ceil(N / ROUNDS);
  const runs = Object.fromEntries(keys.map((k) => [k, []]));
  const serverOf = { floor: "floor", modernCall: "example", modernList: "example", legacyCall: "example", official: "official", agents: "agents" };
  const procs = Object.fromEntries(Object.entries(servers).map(([k, sv]) => [k, wranglerProcesses(new URL(sv.origin).port)]));
  const cpu = Object.fromEntries(keys.map((k) => [k, { worker: 0, proxy: 0, wrangler: 0, client: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]);
    for (const key of order) {
      const before = cpuMs(procs[serverOf[key]]);
      const clientBefore = process.cpuUsage();
      runs[key].push(await runLoad({ name: key, total: perRound, concurrency: C, maxMs: ROW_MAX_MS, op: ops[key] }));
      const d = cpuDelta(before, cpuMs(procs[serverOf[key]]));
      const c = process.cpuUsage(clientBefore);
      for (const role of ["worker", "proxy", "wrangler"]) cpu[key][role] += d?.[role] ?? NaN;
      cpu[key].client += (c.user + c.system) / 1000;
    }
    log(`  round ${round + 1}/${ROUNDS}: ${order.map((k) => `${k} ${fmt.rps(runs[k].at(-1).rps)}/s`).join(", ")}`);
  }
  for (const key of keys) {
    rows[key] = mergeRuns(key, runs[key]);
    rows[key].cpuUs = Object.fromEntries(Object.entries(cpu[key]).map(([role, ms]) => [role, (ms * 1000) / rows[key].done]));
    log(`  ${describe(rows[key])}`);
    if (rows[key].errors) errorsSeen.push(`${key}: ${rows[key].errors} errors (${rows[key].errorSamples.join(" | ")})`);
  }
  await Promise.all(sessions.map((s) => s.close()));
} finally {
  for (const c of Object.values(clients)) c.close();
  for (const sv of Object.values(servers)) await sv.stop();
}

// ── 4. Last-Event-ID replay (bench fixture: a tool that writes N log events) ──
log("▶ Last-Event-ID replay");
const replay = [];
await withServer(FIXTURE, async (client) => {
  // A stream with `events` events (n logs + the result), read live once; returns its id.
  const makeLog = async (session, events) => {
    const t0 = performance.now();
    const res = await session.openRequest("tools/call", { name: "emit_logs", arguments: { n: events - 1 } });
    let last;
    const count = await readSse(res, (ev) => (last = ev.id), 120_000);
    const ms = performance.now() - t0;
    const [stream, seq] = last.split("-");
    if (Number(seq) !== events) throw new Error(`log of ${events}: last event id ${last}`);
    return { stream, liveMs: ms, count };
  };
  const session = await new LegacySession(client).open();
  const small = await makeLog(session, 100);
  const big = await makeLog(session, REPLAY_LOG);
  log(`  live delivery of a ${REPLAY_LOG}-event stream (write + relay): ${big.liveMs.toFixed(0)} ms`);
  const cases = [
    { label: "100 missed (log of 100)", stream: small.stream, after: 0, missed: 100, reps: QUICK ? 5 : 25 },
    { label: `100 missed (log of ${REPLAY_LOG.toLocaleString("en-US")})`, stream: big.stream, after: REPLAY_LOG - 100, missed: 100, reps: QUICK ? 5 : 25 },
    { label: `1,000 missed (log of ${REPLAY_LOG.toLocaleString("en-US")})`, stream: big.stream, after: REPLAY_LOG - 1000, missed: 1000, reps: QUICK ? 3 : 15 },
    { label: `10,000 missed (log of ${REPLAY_LOG.toLocaleString("en-US")})`, stream: big.stream, after: 0, missed: REPLAY_LOG, reps: QUICK ? 2 : 7 },
  ];
  // One untimed replay first, so no case pays for warming the path.
  await readSse(await session.openGet(`${small.stream}-0`), () => {}, 60_000);
  const deadline = performance.now() + (QUICK ? 30_000 : 90_000);
  for (const c of cases) {
    const times = [];
    for (let i = 0; i < c.reps && performance.now() < deadline; i++) {
      const t0 = performance.now();
      let got = 0;
      await readSse(await session.openGet(`${c.stream}-${c.after}`), (ev) => ev.message && got++, 60_000);
      times.push(performance.now() - t0);
      if (got !== c.missed) errorsSeen.push(`replay ${c.label}: got ${got} events, expected ${c.missed}`);
    }
    const sorted = times.sort((a, b) => a - b);
    replay.push({ ...c, runs: sorted.length, p50: median(sorted), min: sorted[0], max: sorted.at(-1) });
    log(`  replay ${c.label}: median ${median(sorted).toFixed(1)} ms over ${sorted.length} runs`);
  }
  await session.close();
});

// ── 5. the report ─────────────────────────────────────────────────────────────
const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
const us = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");
const x = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–");
const s = stat;
const e = s.example;
const rowsThroughput = [
  ["floor (bare Worker)", rows.floor],
  ["**this** 2026-07-28 `tools/call`", rows.modernCall],
  ["**this** 2026-07-28 `tools/list`", rows.modernList],
  [`**this** 2025-11-25 \`tools/call\` (${LEGACY_SESSIONS} sessions)`, rows.legacyCall],
  [`official SDK ${TARGETS.official.version} \`tools/call\` (2026-07-28)`, rows.official],
  [`agents ${TARGETS.agents.version} \`tools/call\` (2026-07-28)`, rows.agents],
];
const target = (ok, text) => `| ${ok ? "✅" : "❌"} | ${text} |`;
const totalMin = ((performance.now() - started) / 60_000).toFixed(1);

// Top start-up costs of the example server, averaged over the profile runs.
const avgMap = (sums, field) => {
  const m = new Map();
  for (const one of sums) for (const [k, v] of one[field]) m.set(k, (m.get(k) ?? 0) + v / sums.length);
  return [...m].sort((a, b) => b[1] - a[1]);
};
const topModules = avgMap(exampleProfile, "byModule").slice(0, 10);
const topFunctions = avgMap(exampleProfile, "byFunction").slice(0, 10);

const md = `# Benchmarks

Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC — ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.versions.node}, wrangler dev (workerd) on 127.0.0.1.
Load average at start ${loadAtStart}, at the end ${loadavg()} (other work on the machine shows up in every number below). Whole run: ${totalMin} min.
Throughput rows: ${N.toLocaleString("en-US")} requests each (${ROUNDS} interleaved rounds of ${Math.ceil(N / ROUNDS).toLocaleString("en-US")}, rotating order, all servers up side by side) after ${WARMUP} warm-up requests, concurrency ${C}, keep-alive (node:http), every answer checked.

## Size and start-up

| | unminified | minified | gzip (minified) | start-up, \`wrangler check startup\` Active (median of ${STARTUP_RUNS}) | start-up JS, 50 µs profile (median of ${PROFILE_RUNS}) |
|---|---:|---:|---:|---:|---:|
${Object.entries(TARGETS)
  .map(([k, t]) => `| ${k === "example" ? "**this template**" : t.name}${t.version ? ` ${t.version}` : ""} | ${kib(s[k].raw)} | ${kib(s[k].min)} | ${kib(s[k].gzip)} | ${s[k].checkActive.toFixed(1)} ms | ${s[k].profJs.toFixed(2)} ms |`)
  .join("\n")}
| this / official | ${x(e.raw, s.official.raw)} | ${x(e.min, s.official.min)} | ${x(e.gzip, s.official.gzip)} | ${x(e.checkActive, s.official.checkActive)} | ${x(e.profJs, s.official.profJs)} |
| this / agents | ${x(e.raw, s.agents.raw)} | ${x(e.min, s.agents.min)} | ${x(e.gzip, s.agents.gzip)} | ${x(e.checkActive, s.agents.checkActive)} | ${x(e.profJs, s.agents.profJs)} |

Every \`check startup\` run: ${Object.entries(s).map(([k, v]) => `${k} ${v.checkAll.join(", ")}`).join("; ")} (ms).
\`wrangler check startup\` Active = all sampled time between Profiler.start and the end of the first request (import of the main module) except "(idle)": it includes native "(program)" time (module compile/instantiate, the request dispatch) and is sampled at V8's default ~1 ms, so a 0.2 KiB Worker reads anywhere from 0 to 30+ ms. The 50 µs column counts only samples inside the Worker's own JavaScript.

## Throughput (wrangler dev, 127.0.0.1)

| row | requests/s | per round | p50 ms | p99 ms | errors | vs floor | vs official | vs agents |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rowsThroughput
  .map(([label, r]) => `| ${label} | ${fmt.rps(r.rps)} | ${r.roundRps.map(fmt.rps).join(" / ")} | ${fmt.ms(r.p50)} | ${fmt.ms(r.p99)} | ${r.errors}${r.truncated ? ` (${r.done} done, time limit)` : ""} | ${x(r.rps, rows.floor.rps)} | ${x(r.rps, rows.official.rps)} | ${x(r.rps, rows.agents.rps)} |`)
  .join("\n")}

CPU per request, from /proc (µs; "Worker" = the workerd process that runs the Worker and its Durable Objects; "proxy" = wrangler's proxy workerd; "wrangler" = its Node process; "client" = this load generator):

| row | Worker µs/req | above floor µs | vs floor | vs official | vs agents | proxy | wrangler | client |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rowsThroughput
  .map(([label, r]) => `| ${label} | ${us(r.cpuUs.worker)} | ${us(r.cpuUs.worker - rows.floor.cpuUs.worker)} | ${x(r.cpuUs.worker, rows.floor.cpuUs.worker)} | ${x(r.cpuUs.worker, rows.official.cpuUs.worker)} | ${x(r.cpuUs.worker, rows.agents.cpuUs.worker)} | ${us(r.cpuUs.proxy)} | ${us(r.cpuUs.wrangler)} | ${us(r.cpuUs.client)} |`)
  .join("\n")}

## 2025-11-25 Last-Event-ID replay (bench/fixture: a stream of N log events)

| replay | median ms | min–max ms | runs | events/s |
|---|---:|---:|---:|---:|
${replay.map((r) => `| ${r.label} | ${fmt.ms(r.p50)} | ${fmt.ms(r.min)}–${fmt.ms(r.max)} | ${r.runs} | ${fmt.rps((r.missed / r.p50) * 1000)} |`).join("\n")}

Replay cost follows the events missed (an index range scan), not the log size: compare the two "100 missed" rows.

## Targets (issue 5)

| | target |
|---|---|
${target(rows.modernCall.rps >= 0.7 * rows.floor.rps, `2026-07-28 tools/call ≥ 0.7× floor requests/s: ${x(rows.modernCall.rps, rows.floor.rps)}`)}
${target(rows.modernCall.rps >= 1.5 * rows.official.rps, `2026-07-28 tools/call ≥ 1.5× official SDK: ${x(rows.modernCall.rps, rows.official.rps)}`)}
${target(rows.modernCall.rps >= 1.5 * rows.agents.rps, `2026-07-28 tools/call ≥ 1.5× agents: ${x(rows.modernCall.rps, rows.agents.rps)}`)}
${target(rows.modernCall.cpuUs.worker * 1.5 <= rows.official.cpuUs.worker && rows.modernCall.cpuUs.worker * 1.5 <= rows.agents.cpuUs.worker, `(same goal in Worker CPU per request, which the dev pipeline does not cap) ≤ ⅔ of each peer's: ${x(rows.modernCall.cpuUs.worker, rows.official.cpuUs.worker)} official, ${x(rows.modernCall.cpuUs.worker, rows.agents.cpuUs.worker)} agents`)}
${target(e.gzip <= s.official.gzip / 4 && e.min <= s.official.min / 4, `bundle ≤ ¼ of the official SDK handler's: minified ${x(e.min, s.official.min)}, gzip ${x(e.gzip, s.official.gzip)}`)}
${target(e.checkActive <= s.official.checkActive / 5, `start-up ≤ ⅕ of the official SDK's (check startup Active): ${x(e.checkActive, s.official.checkActive)} (50 µs JS profile: ${x(e.profJs, s.official.profJs)})`)}
${target(e.checkActive <= 12, `start-up ≤ 12 ms (check startup Active): ${e.checkActive.toFixed(1)} ms (50 µs JS profile: ${e.profJs.toFixed(2)} ms)`)}

## Where the example server's start-up goes (50 µs profile, unminified build, mean of ${PROFILE_RUNS} runs)

Active ${(exampleProfile.reduce((a, p) => a + p.active, 0) / exampleProfile.length).toFixed(2)} ms = the Worker's JavaScript ${(exampleProfile.reduce((a, p) => a + p.js, 0) / exampleProfile.length).toFixed(2)} ms + native "(program)" ${(exampleProfile.reduce((a, p) => a + p.program, 0) / exampleProfile.length).toFixed(2)} ms + GC ${(exampleProfile.reduce((a, p) => a + p.gc, 0) / exampleProfile.length).toFixed(2)} ms (floor: JS ${s.floor.profJs.toFixed(2)} ms, program ${s.floor.profProgram.toFixed(2)} ms, medians).

| source module | self ms |
|---|---:|
${topModules.map(([k, v]) => `| ${k} | ${v.toFixed(2)} |`).join("\n")}

| function @ module:line | self ms |
|---|---:|
${topFunctions.map(([k, v]) => `| \`${k}\` | ${v.toFixed(2)} |`).join("\n")}
${errorsSeen.length ? `\n## Errors\n\n${errorsSeen.map((m) => `- ${m}`).join("\n")}\n` : ""}`;

tmp.remove();
console.log(md);
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench", "results", "latest.md"), md);
writeFileSync(path.join(ROOT, "bench", "results", "latest.json"), JSON.stringify({ stat, rows, replay, loadAtStart, loadAtEnd: loadavg() }, null, 2));
writeFileSync(path.join(ROOT, "bench", "RESULTS.md"), md);
log(`wrote bench/results/latest.md and bench/RESULTS.md (${totalMin} min)`);
process.exit(errorsSeen.length ? 1 : 0);
