// Why: one command that measures, in one run on this machine, what the template promises
// against a bare Worker (the floor) and against the servers a user would pick instead (the
// official SDK v2 `createMcpHandler` and Cloudflare `agents`' `createMcpHandler`, built from
// their published packages under bench/peers/<name>/): bundle size, start-up CPU (also beside
// earlier commits, and what the opt-in extensions cost an app), requests/s and latency on both lanes under `wrangler dev` and straight from
// workerd, each lane's CPU beside its floor in short interleaved rounds, memory per session and listen stream, Last-Event-ID replays, notification fan-out,
// tasks (create → completed, beside the same drill on a bare Durable Object per task; tasks/get
// beside tools/call), 2025 session churn (what abandoned
// sessions leave and cost), and the targets
// (bench/lib/targets.mjs) met or not. "This template" is the engine serving its own test app.
//
// Prints a Markdown report and writes it to bench/results/latest.md (git-ignored); with
// --write it also updates the committed bench/RESULTS.md. Every load loop is bounded in
// count and time; each phase's duration is printed as it ends and reported (bench/lib/clock.mjs).
//
//   npm run bench                   # the full run (6–9 minutes on 2 cores busy with other work)
//   npm run bench -- --write        # the same, and update bench/RESULTS.md
//   npm run bench -- --quick        # smaller counts (about 2 minutes), every target row still printed
//   npm run bench -- --churn        # the session-churn drill alone; with --write it replaces
//                                   # only that section of bench/RESULTS.md
//   npm run bench -- --cost         # what a million calls cost (and the spans' CPU) alone; with
//                                   # --write it replaces only that section of bench/RESULTS.md
//   npm run bench -- --setup        # the set-up alone, nothing measured (half a minute): the
//                                   # harness loads, its configs exist, the earlier commits build
//   npm run bench -- --tool-search  # toolSearch() on GitHub's API alone (tokens, recall@5, call_tool
//                                   # CPU; bench/lib/tool-search.mjs); --write replaces its section
//   npm run bench -- --ab <ref>     # the engine test app at commit <ref> beside the working tree,
//                                   # served by workerd directly: the 2025 and 2026 tools/call and
//                                   # their floors in 41 short interleaved rounds, CPU per round, a
//                                   # Markdown table of µs and per-round ratios (bench/lib/ab.mjs;
//                                   # about 2 minutes)
//   npm run bench -- --lanes        # the full run's lanes phase alone: this tree's 2026 and 2025
//                                   # calls beside their floors, its spans beside TRACING=off
//   npm run bench -- --events       # MCP Events webhooks alone (bench/lib/events.mjs); the same
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { replay, sizeAndStartup, throughput } from "../bench/lib/phases.mjs";
import { fanout } from "../bench/lib/fanout.mjs";
import { benchReport, churnSection } from "../bench/lib/report.mjs";
import { churnPhase } from "../bench/lib/churn.mjs";
import { costPhase } from "../bench/lib/cost.mjs";
import { costSection } from "../bench/lib/cost-report.mjs";
import { toolSearchPhase } from "../bench/lib/tool-search.mjs";
import { eventsPhase, eventsSection } from "../bench/lib/events.mjs";
import { installPeers } from "../bench/lib/servers.mjs";
import { tempDir } from "../bench/lib/startup.mjs";
import { tasksPhase } from "../bench/lib/tasks.mjs";
import { availableBaselines, startupAcrossRefs } from "../bench/lib/startup-refs.mjs";
import { directThroughput } from "../bench/lib/direct-phase.mjs";
import { memoryPerConnection } from "../bench/lib/memory-phase.mjs";
import { extensionCostPhase } from "../bench/lib/ext-cost.mjs";
import { phaseClock } from "../bench/lib/clock.mjs";
import { startDevServers } from "../bench/lib/dev-servers.mjs";
import { ROOT } from "./lib/procs.mjs";
import { checkBenchSetup } from "../bench/lib/setup-check.mjs";
import { abPhase, abSection, lanesPhase, lanesSection } from "../bench/lib/ab.mjs";

const { values: opt } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    churn: { type: "boolean", default: false },
    setup: { type: "boolean", default: false },
    cost: { type: "boolean", default: false },
    "tool-search": { type: "boolean", default: false },
    events: { type: "boolean", default: false },
    ab: { type: "string" },
    lanes: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
    requests: { type: "string" }, // per throughput row
    concurrency: { type: "string", default: "64" },
    "startup-runs": { type: "string" },
  },
});
const quick = opt.quick;
const settings = {
  requests: Number(opt.requests ?? (quick ? 400 : 2000)),
  rounds: quick ? 2 : 4,
  concurrency: Number(opt.concurrency),
  warmup: quick ? 50 : 400,
  rowMaxMs: quick ? 20_000 : 60_000,
  startupRuns: Number(opt["startup-runs"] ?? (quick ? 2 : 7)),
  profileRuns: quick ? 2 : 9,
  legacySessions: 64,
  memoryCount: quick ? 50 : 200,
  memorySettleMs: quick ? 1000 : 3000,
  replayLog: 10_000,
  // The fan-out phase: a single hub, then the sharded default (docs/scale.md).
  // Each drill well under a minute here (2 cores, shared): 500 connector turns and 2 users' idle
  // window of chat sessions rather than 10,000 and a thousand users; the per-session figures do not
  // depend on the count, since nothing a session leaves is shared with the next.
  churn: {
    turns: quick ? 50 : 500,
    chatUsers: quick ? 1 : 2,
    idleMinutes: quick ? 20 : 60,
    calls: quick ? 100 : 800,
    concurrency: 8,
    rowMaxMs: 120_000,
  },
  // --quick: the sharded hub alone, at a tenth of the receivers (its targets then read "not run").
  fanout: {
    shardCounts: quick ? [8] : [1, 8],
    listeners: quick ? [100] : [300, 1000],
    sessions: quick ? 50 : 500,
    rounds: quick ? 2 : 5,
    roundMs: 20_000,
  },
};

// Progress on stderr (detail lines come indented); the report goes to stdout.
const progress = (s) => console.error(s.startsWith(" ") ? s : `▶ ${s}`);
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const clock = phaseClock(progress);
const loadAtStart = loadavg();

/** Replaces the section that starts with `heading` in bench/RESULTS.md (or adds it before the targets). */
function writeSection(heading, section) {
  const file = path.join(ROOT, "bench", "RESULTS.md");
  const old = readFileSync(file, "utf8");
  const at = old.indexOf(heading);
  const end = at === -1 ? old.indexOf("## Targets") : old.indexOf("\n## ", at + 1) + 1;
  writeFileSync(file, `${old.slice(0, at === -1 ? end : at)}${section}\n\n${old.slice(end)}`);
}

if (opt.setup) {
  const tmp = tempDir("mcp-bench-setup-");
  const r = await checkBenchSetup({ tmpDir: tmp.dir }, (s) => progress(`  ${s}`));
  tmp.remove();
  for (const p of r.problems) console.error(`  ✗ ${p}`);
  progress(r.ok ? "the bench's set-up runs" : `the bench's set-up fails: ${r.problems.length} problems`);
  process.exit(r.ok ? 0 : 1);
}

// The lanes against their floors in many short interleaved rounds (bench/lib/ab.mjs): --ab, and the
// full run's phase that the lanes' and the spans' targets read.
const laneSettings = { rounds: quick ? 5 : 25, perRound: quick ? 100 : 250, concurrency: 32, warmup: quick ? 50 : 200, sessions: 32 };

if (opt.ab) {
  const tmp = tempDir("mcp-bench-ab-");
  const abSettings = { ...laneSettings, rounds: quick ? 9 : 41, perRound: quick ? 150 : 300 };
  const ab = await abPhase({ tmpDir: tmp.dir, ref: opt.ab, ...abSettings }, progress).finally(tmp.remove);
  const meta = { date: new Date().toISOString().slice(0, 16).replace("T", " "), loadAtStart, loadAtEnd: loadavg(), ...abSettings };
  console.log(abSection(ab, meta));
  for (const e of ab.errors) console.error(`  ✗ ${e}`);
  process.exit(ab.errors.length ? 1 : 0);
}

if (opt.lanes) {
  const tmp = tempDir("mcp-bench-lanes-");
  const lanes = await lanesPhase({ tmpDir: tmp.dir, ...laneSettings }, progress).finally(tmp.remove);
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  console.log(
    `${lanesSection(lanes)}\n\nMeasured by \`npm run bench -- --lanes\` on ${date} UTC (load average ${loadAtStart} at the start, ${loadavg()} at the end).`,
  );
  for (const e of lanes.errors) console.error(`  ✗ ${e}`);
  process.exit(lanes.errors.length ? 1 : 0);
}

if (opt.churn) {
  const churn = await churnPhase(settings.churn, progress);
  const meta = { date: new Date().toISOString().slice(0, 16).replace("T", " "), loadAtStart, loadAtEnd: loadavg(), churnOnly: true };
  const section = churnSection({ churn, meta });
  console.log(section);
  // Only this section changes: the rest of the file stays the full run it came from.
  if (opt.write) writeSection("## 2025-11-25 session churn", section);
  progress(`churn: ${churn.errors.length} errors${opt.write ? "; wrote its section of bench/RESULTS.md" : ""}`);
  process.exit(churn.errors.length ? 1 : 0);
}

const COST_HEADING = "## What a million calls cost";
const costSettings = { rounds: quick ? 2 : 3, perRound: quick ? 100 : 300, warmup: quick ? 30 : 100, countEach: 10 };

if (opt.cost) {
  await installPeers(progress);
  const tmp = tempDir("mcp-bench-cost-");
  const cost = await costPhase({ tmpDir: tmp.dir, ...costSettings }, progress);
  tmp.remove();
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const section = `${costSection(cost)}\n\nMeasured by \`npm run bench -- --cost\` on ${date} UTC (load average ${loadAtStart} at the start, ${loadavg()} at the end).`;
  console.log(section);
  if (opt.write) writeSection(COST_HEADING, section);
  progress(`cost: ${cost.errors.length} errors${opt.write ? "; wrote its section of bench/RESULTS.md" : ""}`);
  if (cost.errors.length) console.error(cost.errors.join("\n"));
  process.exit(cost.errors.length ? 1 : 0);
}

if (opt["tool-search"]) {
  const { section, misses } = await toolSearchPhase({ calls: quick ? 300 : 1000, rounds: quick ? 3 : 5 }, progress);
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const text = `${section}\n\nMeasured by \`npm run bench -- --tool-search\` on ${date} UTC (load average ${loadAtStart} at the start, ${loadavg()} at the end). Missed: ${misses.join("; ") || "none"}.`;
  console.log(text);
  if (opt.write) writeSection("## Tool search on GitHub's REST API", text);
  process.exit(0);
}

const EVENTS_HEADING = "## MCP Events webhooks";
const eventsSettings = { counts: quick ? [100] : [100, 1000], layouts: quick ? [100] : [1, 100] };

if (opt.events) {
  const events = await eventsPhase(eventsSettings, progress);
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const section = `${eventsSection(events)}\n\nMeasured by \`npm run bench -- --events\` on ${date} UTC (load average ${loadAtStart} at the start, ${loadavg()} at the end).`;
  console.log(section);
  if (opt.write) writeSection(EVENTS_HEADING, section);
  progress(`events: ${events.errors.length} errors${opt.write ? "; wrote its section of bench/RESULTS.md" : ""}`);
  process.exit(events.errors.length ? 1 : 0);
}

const versions = await clock.time("peers installed", () => installPeers(progress));
const tmp = tempDir("mcp-bench-");
const { stat, engineProfile, built, sameTool } = await clock.time("size and start-up", () =>
  sizeAndStartup({ tmpDir: tmp.dir, ...settings }, progress),
);
const history = await clock.time("start-up beside earlier commits", async () => {
  progress("start-up beside earlier commits (interleaved)");
  // --quick: the latest earlier commit only, and one reading of each kind fewer.
  const baselines = (await availableBaselines()).slice(quick ? -1 : 0);
  // This checkout's builds are the engine's from the size phase, not built again.
  const current = { label: "this checkout", ref: null, prebuilt: built.engine };
  return baselines.length
    ? startupAcrossRefs(
        {
          tmpDir: tmp.dir,
          builds: [...baselines, current],
          rounds: quick ? 1 : 7,
          checkRounds: quick ? 1 : 3,
          cpuRounds: quick ? 1 : 2,
          isolates: quick ? 20 : 60,
        },
        progress,
      )
    : [];
});
const extensions = await clock.time("extension cost", () => {
  progress("what the extensions cost an app (interleaved)");
  return extensionCostPhase({ tmpDir: tmp.dir, rounds: quick ? 2 : 7, cpuRounds: quick ? 1 : 3, isolates: quick ? 15 : 30 }, progress);
});
// The phases served by workerd directly come before the wrangler dev servers start: idle, those
// still take CPU beside the measured workerd.
const direct = await clock.time("throughput (workerd direct)", () => directThroughput({ tmpDir: tmp.dir, built, ...settings }, progress));
const lanes = await clock.time("the lanes beside their floors", async () => {
  const t = tempDir("mcp-bench-lanes-");
  return lanesPhase({ tmpDir: t.dir, ...laneSettings }, progress).finally(t.remove);
});
const dev = await clock.time("wrangler dev servers, side by side", () => startDevServers(settings.fanout, progress));
const rows = await clock.time("throughput (wrangler dev)", () => throughput({ ...settings, servers: dev.throughput }, progress));
const memory = await clock.time("memory per connection", () =>
  memoryPerConnection({ tmpDir: tmp.dir, built, count: settings.memoryCount, settleMs: settings.memorySettleMs }, progress),
);
tmp.remove();
const replayed = await clock.time("Last-Event-ID replay", () =>
  replay({ logSize: settings.replayLog, quick, server: dev.replay }, progress),
);
const fannedOut = await clock.time("notification fan-out", () =>
  fanout({ ...settings.fanout, servers: dev.fanout, sessionServers: dev.fanoutSessions, floorServers: dev.fanoutFloor }, progress),
);
const tasks = await clock.time("tasks", () => tasksPhase({ quick, ...settings, server: dev.tasks, floorServer: dev.taskFloor }, progress));
const churn = await clock.time("session churn", () => churnPhase({ ...settings.churn, servers: dev.churn }, progress));
const costTmp = tempDir("mcp-bench-cost-");
const cost = await clock.time("what a million calls cost", () => costPhase({ tmpDir: costTmp.dir, ...costSettings }, progress));
costTmp.remove();
const events = await clock.time("MCP Events webhooks", () => eventsPhase(eventsSettings, progress));

const errors = [
  ...[...Object.values(rows), ...Object.values(direct)]
    .filter((r) => r.errors)
    .map((r) => `${r.name}: ${r.errors} errors (${r.errorSamples.join(" | ")})`),
  ...replayed.errors,
  ...fannedOut.errors,
  ...tasks.errors,
  ...extensions.errors,
  ...churn.errors,
  ...cost.errors,
  ...events.errors,
  ...lanes.errors,
];
const meta = {
  ...settings,
  date: new Date().toISOString().slice(0, 16).replace("T", " "),
  cores: os.cpus().length,
  cpuModel: os.cpus()[0]?.model.trim(),
  node: process.versions.node,
  loadAtStart,
  loadAtEnd: loadavg(),
  quick,
  minutes: clock.minutes(),
  seconds: clock.seconds(),
  phases: clock.phases,
};
const data = {
  meta,
  versions,
  stat,
  sameTool,
  engineProfile,
  history,
  extensions,
  rows,
  direct,
  lanes,
  memory,
  replay: replayed,
  fanout: fannedOut,
  tasks,
  churn,
  cost,
  events,
  errors,
};
// The cost section goes before the targets, as --cost --write places it.
const md = benchReport(data).replace(
  "\n## Targets",
  `\n${lanesSection(lanes)}\n\n${costSection(cost)}\n\n${eventsSection(events)}\n\n## Targets`,
);

console.log(md);
const results = path.join(ROOT, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(path.join(results, "latest.md"), md);
writeFileSync(path.join(results, "latest.json"), JSON.stringify(data, null, 2));
if (opt.write) writeFileSync(path.join(ROOT, "bench", "RESULTS.md"), md);
progress(`wrote bench/results/latest.md${opt.write ? " and bench/RESULTS.md" : ""} (${meta.minutes} min)`);
process.exit(errors.length ? 1 : 0);
