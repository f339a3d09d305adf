// Why: the load and bench scripts print what their phases measured; the wording and the
// tables live here, apart from the measuring, so a phase can change without touching how
// it reads and the other way round.
import { fmt } from "./format.mjs";
import { percentile } from "./runner.mjs";
import { LATER_CALLS } from "./startup-cpu.mjs";
import { PEERS, SERVERS } from "./servers.mjs";
import { checkTargets } from "./targets.mjs";

/** One line for a runLoad result. */
export function describeRun(r) {
  const stopped = r.truncated ? " (stopped at the time limit)" : "";
  const first = r.errorSamples.length ? `\n    first errors: ${r.errorSamples.join(" | ")}` : "";
  return `${r.name}: ${r.done} ops in ${(r.elapsedMs / 1000).toFixed(2)} s at c=${r.concurrency} → ${fmt.rps(r.rps)}/s, p50 ${fmt.ms(r.p50)} ms, p99 ${fmt.ms(r.p99)} ms, max ${fmt.ms(r.max)} ms, errors ${r.errors}${stopped}${first}`;
}

/** The console lines of `npm run load`. */
export function loadReport({ modern, sessions, failed }) {
  const { run, httpRequests, roundTrips, steps } = sessions;
  return [
    describeRun(modern),
    describeRun(run),
    `  ${httpRequests} HTTP requests in ${(run.elapsedMs / 1000).toFixed(2)} s → ${fmt.rps((httpRequests / run.elapsedMs) * 1000)} requests/s; ${roundTrips} elicitation round trips`,
    ...Object.entries(steps).map(([step, lat]) => {
      const sorted = Float64Array.from(lat).sort();
      return `  ${step.padEnd(38)} n=${String(sorted.length).padStart(4)}  p50 ${fmt.ms(percentile(sorted, 50)).padStart(7)} ms  p99 ${fmt.ms(percentile(sorted, 99)).padStart(7)} ms`;
    }),
    "",
    `load: ${failed ? "FAILED" : "ok"} — errors: 2026-07-28 ${modern.errors}, 2025-11-25 ${run.errors}`,
  ].join("\n");
}

const table = (head, align, lines) =>
  [
    `| ${head.join(" | ")} |`,
    `|${align.map((a) => (a === "r" ? "---:" : "---")).join("|")}|`,
    ...lines.map((l) => `| ${l.join(" | ")} |`),
  ].join("\n");

function sizeSection({ stat, sameTool, versions, meta }) {
  const x = fmt.ratio;
  const e = stat.engine;
  const same = sameTool
    ? `\n\nThe peers serve one tool each, convert_temperature; the same tool served by the engine (bench/same-tool, built the same way) is ${fmt.kib(sameTool.min)} minified, ${fmt.kib(sameTool.gzip)} gzip: ${PEERS.map((p) => `${x(sameTool.gzip, stat[p].gzip)} ${p}'s gzip (minified ${x(sameTool.min, stat[p].min)})`).join(", ")}.`
    : "";
  // CPU time per fresh isolate (bench/lib/startup-cpu.mjs): the import alone, then the import and a
  // first 2026-07-28 tools/call served by the bundle, where V8 compiles the request path's functions.
  const cpuLine = (name, s) =>
    `${name} ${s.startCpu.toFixed(2)} ms (${s.startCpuAll.join(", ")}), with the call ${s.callCpu.toFixed(2)} ms (${s.callCpuAll.join(", ")})${s.nextCpu === undefined ? "" : `, then ${s.nextCpu.toFixed(2)} ms (${s.nextCpuAll.join(", ")}) for each of its next ${LATER_CALLS} calls`}`;
  const cpu =
    sameTool?.callCpu !== undefined && e.callCpu !== undefined && stat.floor?.callCpu !== undefined
      ? `\n\nCPU of a fresh isolate (median of interleaved rounds, every round in brackets; 40 isolates a reading): its import, its import with a first 2026-07-28 tools/call served (the bare Worker answers its fixed body), and its next calls (before V8 has optimized the code they run): ${[
          cpuLine("the one-tool app", sameTool),
          cpuLine("this template", e),
          cpuLine("the bare Worker", stat.floor),
        ].join("; ")}.`
      : "";
  const label = (k) => (k === "engine" ? "**this template**" : `${SERVERS[k].name}${versions[k] ? ` ${versions[k]}` : ""}`);
  const versus = (peer) => [
    `this / ${peer}`,
    x(e.raw, stat[peer].raw),
    x(e.min, stat[peer].min),
    x(e.gzip, stat[peer].gzip),
    x(e.checkActive, stat[peer].checkActive),
    x(e.profJs, stat[peer].profJs),
  ];
  return `## Size and start-up

"This template" is the engine serving its own test app (test/engine/app: eight tools, two of them tasks, a resource, a template, a prompt).

${table(
  [
    "",
    "unminified",
    "minified",
    "gzip (minified)",
    `start-up, \`wrangler check startup\` Active (median of ${meta.startupRuns})`,
    `start-up JS, 50 µs profile (median of ${meta.profileRuns})`,
  ],
  ["l", "r", "r", "r", "r", "r"],
  [
    ...Object.keys(SERVERS).map((k) => [
      label(k),
      fmt.kib(stat[k].raw),
      fmt.kib(stat[k].min),
      fmt.kib(stat[k].gzip),
      `${stat[k].checkActive.toFixed(1)} ms`,
      `${stat[k].profJs.toFixed(2)} ms`,
    ]),
    versus("official"),
    versus("agents"),
  ],
)}

Every \`check startup\` run, in interleaved rounds: ${Object.entries(stat)
    .map(([k, v]) => `${k} ${v.checkAll.join(", ")}`)
    .join("; ")} (ms).
\`wrangler check startup\` Active = all sampled time between Profiler.start and the end of the first request (import of the main module) except "(idle)": it includes native "(program)" time (module compile/instantiate, the request dispatch) and is sampled at V8's default ~1 ms, so a 0.2 KiB Worker reads anywhere from 0 to 30+ ms. The 50 µs column counts only samples inside the Worker's own JavaScript.${same}${cpu}`;
}

function throughputSection({ rows, versions, meta }) {
  const x = fmt.ratio;
  const labelled = [
    ["floor (bare Worker)", rows.floor],
    ...(rows.floorPlatform ? [["floor with the platform's parts (assets first, a rate limit, a log line)", rows.floorPlatform]] : []),
    ["**this** 2026-07-28 `tools/call`", rows.modernCall],
    ["**this** 2026-07-28 `tools/list`", rows.modernList],
    [`**this** 2025-11-25 \`tools/call\` (${meta.legacySessions} sessions)`, rows.legacyCall],
    [`official SDK ${versions.official} \`tools/call\` (2026-07-28)`, rows.official],
    [`agents ${versions.agents} \`tools/call\` (2026-07-28)`, rows.agents],
  ];
  const vs = (a, pick) => [x(pick(a), pick(rows.floor)), x(pick(a), pick(rows.official)), x(pick(a), pick(rows.agents))];
  const rps = (r) => r.rps;
  const cpu = (r) => r.cpuUs.worker;
  return `## Throughput (wrangler dev, 127.0.0.1)

${table(
  ["row", "requests/s", "per round", "p50 ms", "p99 ms", "errors", "vs floor", "vs official", "vs agents"],
  ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
  labelled.map(([label, r]) => [
    label,
    fmt.rps(r.rps),
    r.roundRps.map(fmt.rps).join(" / "),
    fmt.ms(r.p50),
    fmt.ms(r.p99),
    `${r.errors}${r.truncated ? ` (${r.done} done, time limit)` : ""}`,
    ...vs(r, rps),
  ]),
)}

CPU per request, from /proc (µs; "Worker" = the workerd process that runs the Worker and its Durable Objects; "proxy" = wrangler's proxy workerd; "wrangler" = its Node process; "client" = this load generator):

${table(
  ["row", "Worker µs/req", "above floor µs", "vs floor", "vs official", "vs agents", "proxy", "wrangler", "client"],
  ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
  labelled.map(([label, r]) => [
    label,
    fmt.us(r.cpuUs.worker),
    fmt.us(r.cpuUs.worker - rows.floor.cpuUs.worker),
    ...vs(r, cpu),
    fmt.us(r.cpuUs.proxy),
    fmt.us(r.cpuUs.wrangler),
    fmt.us(r.cpuUs.client),
  ]),
)}`;
}

function tasksSection({ tasks: t }) {
  const { lifecycle: l, floor: f, get, call } = t;
  const x = fmt.ratio;
  const cpu = (ms) => (Number.isFinite(ms) ? ms.toFixed(1) : "–");
  const row = (label, r, plain) => [label, fmt.ms(r.p50), fmt.ms(r.p99), fmt.ms(r.max), x(r.p50, plain.p50)];
  const floorRows = f
    ? [
        ...Object.keys(f.modes).flatMap((mode) => [
          row(`floor task create (${mode})`, f.modes[mode].create, f.plainCall),
          row(`floor task create → completed seen (${mode})`, f.modes[mode].done, f.plainCall),
        ]),
        row(`floor plain call (fixed JSON from the Worker, ${f.plainCall.n} calls)`, f.plainCall, f.plainCall),
      ]
    : [];
  const cpuLine = f
    ? `\n\nworkerd CPU (the process that runs the Worker and its Durable Objects, from /proc) per task, from its create through its polls and its run: this template ${cpu(l.cpuMsPerTask)} ms against ${cpu(l.plainCall.cpuMsPerCall)} ms per plain \`tools/call\`; the floor ${Object.entries(
        f.modes,
      )
        .map(([mode, r]) => `${cpu(r.cpuMsPerTask)} ms (${mode})`)
        .join(", ")} against ${cpu(f.plainCall.cpuMsPerCall)} ms per plain call.`
    : "";
  return `## Tasks (2026-07-28 tasks extension, engine test app, wrangler dev)

${l.tasks} \`quick_task\` tasks (the handler returns at once), ${l.concurrency} at a time: \`tools/call\` creates each, then \`tasks/get\` every ${t.pollMs} ms until it says completed (so "completed" is seen up to ${t.pollMs} ms late, plus one round trip); ${l.pollsPerTask.toFixed(2)} polls per task, ${fmt.rps(l.tasksPerS)} tasks/s, errors ${l.errors}.${f ? ` The task floor (bench/floor-task) is the same drill on the least that work costs on Workers (a new SQLite-backed Durable Object per task holding one row and an alarm, the result written just after the create is answered, a get that reads the row; behind the same Static Assets and rate limit as this template, writing the same log lines), interleaved with this template's rows; its "series" mode also counts the task in the owner's index first, as the engine does (every store a client can grow is bounded, so any task server here pays that count), and its ratios to its own plain call are what the "(its floor)" targets divide by. "bare" leaves the count out; "parallel" asks the index from the Worker beside the create, the task running once admitted.` : ""}

${table(
  ["at concurrency " + l.concurrency, "p50 ms", "p99 ms", "max ms", "p50 vs its plain call"],
  ["l", "r", "r", "r", "r"],
  [
    row("task create (`tools/call` → CreateTaskResult)", l.create, l.plainCall),
    row("task create → completed seen by `tasks/get`", l.done, l.plainCall),
    row(`plain \`tools/call\` (convert_temperature, ${l.plainCall.n} calls)`, l.plainCall, l.plainCall),
    ...floorRows,
  ],
)}${cpuLine}

Polling a finished task beside the plain call, same server, ${get.roundRps.length} interleaved rounds at concurrency ${get.concurrency}:

${table(
  ["row", "requests/s", "per round", "p50 ms", "p99 ms", "errors", "vs `tools/call`"],
  ["l", "r", "r", "r", "r", "r", "r"],
  [
    ["`tasks/get` (finished task)", get],
    ["`tools/call` (convert_temperature)", call],
  ].map(([label, r]) => [
    label,
    fmt.rps(r.rps),
    r.roundRps.map(fmt.rps).join(" / "),
    fmt.ms(r.p50),
    fmt.ms(r.p99),
    String(r.errors),
    x(r.rps, call.rps),
  ]),
)}`;
}

function directSection({ direct, rows, versions, meta }) {
  if (!direct) return "";
  const x = fmt.ratio;
  const labelled = [
    ["floor (bare Worker)", "floor", "floor"],
    ["floor with the request log line (bare Worker, one line like the 2026-07-28 call's)", "floorLog", null],
    [`floor with a Durable Object (Worker → DO → Worker, ${meta.legacySessions} objects)`, "floorDo", null],
    ["floor with a Durable Object and the request log line (written by the object, like the 2025-11-25 call's)", "floorDoLog", null],
    ["**this** 2026-07-28 `tools/call`", "modernCall", "modernCall"],
    ["**this** 2026-07-28 `tools/call`, rate limits and asset router simulated in-process", "modernCallLimited", null],
    ["**this** 2026-07-28 `tools/call`, `LOG_REQUESTS=off`", "modernCallQuiet", null],
    ["**this** 2026-07-28 `tools/call`, `TRACING=off` (no spans)", "modernCallNoSpans", null],
    ["**this** 2026-07-28 `tools/call` with Claude's 2025-11-25 version header (a quirk, served)", "modernCallQuirk", null],
    ["**this** 2026-07-28 `tools/list`", "modernList", "modernList"],
    [`**this** 2025-11-25 \`tools/call\` (${meta.legacySessions} sessions)`, "legacyCall", "legacyCall"],
    [`official SDK ${versions.official} \`tools/call\` (2026-07-28)`, "official", "official"],
    [`agents ${versions.agents} \`tools/call\` (2026-07-28)`, "agents", "agents"],
  ];
  const f = direct.floor;
  return `## Throughput without the dev proxy (each built Worker served by workerd through Miniflare, 127.0.0.1)

The same bundles \`wrangler deploy --dry-run\` emits, with the bindings their wrangler.toml declares, run by Miniflare's API with no \`wrangler dev\` proxy in front. The engine's rate-limit bindings and Static Assets are left out of every row but one: Miniflare simulates the limits, and the asset router that \`run_worker_first\` puts in front of every request, in JavaScript inside the same workerd process, while on Cloudflare both are the platform's; the floor and the peers have neither, and the calls measured read no asset. The "rate limits and asset router simulated" row shows what the simulations cost. The "\`LOG_REQUESTS=off\`" row shows what the one log line per request costs (it is on by default); the two floors "with the request log line" write one line of the same fields and length (the 2026-07-28 call's from the Worker, the 2025-11-25 call's from the object), which is what any Worker that logs each request pays. "Worker CPU" is the whole workerd process (the Worker, its Durable Objects, and Miniflare's entry Worker).

${table(
  [
    "row",
    "requests/s",
    "per round",
    "p50 ms",
    "p99 ms",
    "errors",
    "vs floor",
    "Worker CPU µs/req",
    "CPU vs floor",
    "wrangler dev requests/s",
  ],
  ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
  labelled
    .filter(([, key]) => direct[key])
    .map(([label, key, dev]) => {
      const r = direct[key];
      return [
        label,
        fmt.rps(r.rps),
        r.roundRps.map(fmt.rps).join(" / "),
        fmt.ms(r.p50),
        fmt.ms(r.p99),
        `${r.errors}${r.truncated ? ` (${r.done} done, time limit)` : ""}`,
        x(r.rps, f.rps),
        fmt.us(r.cpuUs.worker),
        x(r.cpuUs.worker, f.cpuUs.worker),
        dev ? fmt.rps(rows[dev].rps) : "–",
      ];
    }),
)}

Stateless lane against its floor: 2026-07-28 \`tools/call\` ${fmt.us(direct.modernCall.cpuUs.worker)} µs of Worker CPU per call, the bare Worker ${fmt.us(f.cpuUs.worker)} µs (${x(direct.modernCall.cpuUs.worker, f.cpuUs.worker)}); without the log line ${fmt.us(direct.modernCallQuiet.cpuUs.worker)} µs (${x(direct.modernCallQuiet.cpuUs.worker, f.cpuUs.worker)})${direct.floorLog ? `; against the bare Worker with the same log line, ${fmt.us(direct.floorLog.cpuUs.worker)} µs, ${x(direct.modernCall.cpuUs.worker, direct.floorLog.cpuUs.worker)}` : ""}.
Session lane against its floor: 2025-11-25 \`tools/call\` ${fmt.us(direct.legacyCall.cpuUs.worker)} µs of Worker CPU per call, the Worker → Durable Object floor ${fmt.us(direct.floorDo.cpuUs.worker)} µs (${x(direct.legacyCall.cpuUs.worker, direct.floorDo.cpuUs.worker)})${direct.floorDoLog ? `; against that floor with the same log line, ${fmt.us(direct.floorDoLog.cpuUs.worker)} µs, ${x(direct.legacyCall.cpuUs.worker, direct.floorDoLog.cpuUs.worker)}` : ""}.`;
}

function memorySection({ memory }) {
  if (!memory) return "";
  return `## Memory per connection (engine test app, workerd through Miniflare)

| | per one | over |
|---|---:|---:|
| idle 2025-11-25 session (initialized, no stream open; a Durable Object) | ${memory.sessionKiB.toFixed(1)} KiB | ${memory.count} |
| open 2026-07-28 \`subscriptions/listen\` stream (acknowledged, idle) | ${memory.streamKiB.toFixed(1)} KiB | ${memory.count} |

Resident memory (VmRSS) of the workerd process: ${memory.baseMiB.toFixed(1)} MiB after warm-up, read again ${memory.count} sessions later and ${memory.count} streams later. Locally workerd keeps an idle Durable Object in memory (it is not evicted while the bench runs, so the session figure is an upper bound of what an idle session costs before Cloudflare hibernates or evicts it).`;
}

function replaySection({ replay }) {
  return `## 2025-11-25 Last-Event-ID replay (bench/fixture: a stream of N log events)

${table(
  ["replay", "median ms", "min–max ms", "runs", "events/s"],
  ["l", "r", "r", "r", "r"],
  replay.cases.map((r) => [r.label, fmt.ms(r.p50), `${fmt.ms(r.min)}–${fmt.ms(r.max)}`, r.runs, fmt.rps((r.missed / r.p50) * 1000)]),
)}

Live delivery of the ${replay.logSize.toLocaleString("en-US")}-event stream (write + relay): ${replay.liveMs.toFixed(0)} ms, with ${replay.liveReconnects} Last-Event-ID reconnects (the server closes a stream whose reader lags more than its 256 KiB send buffer, and a long replay comes one buffer per reconnect).
Replay cost follows the events missed (an index range scan), not the log size: compare the two "100 missed" rows.`;
}

function fanoutSection({ fanout }) {
  const kind = (r) =>
    ({
      listen: "2026 `subscriptions/listen` streams",
      session: "2025 sessions (GET stream each)",
      floor: "floor: bare hub objects → SSE streams",
    })[r.kind];
  return `## Notification fan-out (engine test app, its \`announce\` tool publishes a tools list change)

${table(
  [
    "receivers",
    "HUB_SHARDS",
    "count",
    "delivery p50 ms",
    "delivery p99 ms",
    "publish in the Worker, median (max) ms",
    "tools/call round trip, median ms",
    "Worker CPU per publish ms",
    "Worker RSS MiB",
    "deliveries",
    "missed",
  ],
  ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
  fanout.rows.map((r) => [
    kind(r),
    r.shards,
    r.streams.toLocaleString("en-US"),
    fmt.ms(r.p50),
    fmt.ms(r.p99),
    `${fmt.ms(r.publishP50)} (${fmt.ms(r.publishMax)})`,
    fmt.ms(r.callP50),
    fmt.ms(r.workerCpuMsPerPublish),
    fmt.ms(r.rssMiB),
    r.deliveries.toLocaleString("en-US"),
    r.missed,
  ]),
)}

Delivery: from sending the \`tools/call\` to the event's arrival on each stream, over ${fanout.rows[0]?.rounds ?? 0} publishes, one at a time. "Publish in the Worker" is the tool's own measurement of \`ctx.notify.toolsListChanged()\` (one call per shard; the shards send after answering). Under \`wrangler dev\` every shard, session and Worker shares one workerd thread, so more shards spread the work without making it parallel; in production each shard runs on its own. The sessions rows run on a \`wrangler dev\` of their own at each shard count: locally, the listen streams the bench has just closed stay open in the Worker until \`wrangler dev\`'s proxy reports them (at a failed write, up to a keep-alive later), and each publish would still be written to them. The floor rows (bench/floor-fanout) do only what any such fan-out must: hub objects holding hibernatable WebSockets to Workers that hold the SSE responses, sending each frame in slices of 16 sockets as the engine's shards do, behind the same Static Assets (whose router \`wrangler dev\` simulates in front of every request, carrying each stream's bytes too) and rate limit as the engine test app, with no MCP, filter, principal, keep-alive or log; the publish is a plain POST the floor's Worker hands to every shard.`;
}

function historySection({ history, meta }) {
  if (!history?.length) return "";
  const last = history.at(-1);
  return `## Start-up beside earlier commits (the engine test app at each, measured interleaved in this run)

${table(
  [
    "build",
    "minified",
    "gzip",
    `JS, 50 µs profile (median of ${history[0].jsAll.length})`,
    "every run",
    `\`check startup\` Active (median of ${history[0].checkAll.length})`,
    "every run",
    `import CPU per isolate (median of ${history[0].cpuAll.length})`,
    "every run",
    "JS vs this checkout",
  ],
  ["l", "r", "r", "r", "l", "r", "l", "r", "l", "r"],
  history.map((r) => [
    r.label,
    fmt.kib(r.min),
    fmt.kib(r.gzip),
    `${r.js.toFixed(2)} ms`,
    r.jsAll.map((x) => x.toFixed(1)).join(", "),
    `${r.check.toFixed(1)} ms`,
    r.checkAll.join(", "),
    `${r.cpu.toFixed(2)} ms`,
    r.cpuAll.map((x) => x.toFixed(1)).join(", "),
    fmt.ratio(r.js, last.js),
  ]),
)}

"Import CPU per isolate" is CPU time, not sampled wall time: the workerd process's CPU across ${history[0].isolates} isolates each importing the minified bundle on its first request, less as many isolates importing nothing, divided by their number (bench/lib/startup-cpu.mjs). The machine's load moves the sampled columns far more than these builds differ; read the rows against each other, never against another run.`;
}

/** The extension cost phase (ext-cost.mjs) as a Markdown section; also printed alone by `npm run bench:startup -- --extensions`. */
export function extensionSection({ extensions: e }) {
  if (!e) return "";
  const [none] = e.rows;
  const signed = (n) => `${n > -0.005 ? "+" : "−"}${Math.abs(n).toFixed(2)} ms`;
  const diff = (d) => (d ? `${signed(d.median)} (${signed(d.lo)} to ${signed(d.hi)})` : "–");
  const verdict = (r, key, what) =>
    `${what} ${r[key].withinNoise ? "within noise (the rounds' differences straddle zero)" : `${r[key].median > 0 ? "more" : "less"} in every round`}`;
  return `## What the extensions cost an app (test/engine/ext-cost: one tool alone, with a view, beside Skills; interleaved in one run)

${table(
  [
    "app",
    "minified",
    "gzip",
    "gzip vs neither",
    `start-up JS, 50 µs profile (median of ${e.rounds})`,
    "every run (ms)",
    "vs neither, paired by round: median (min to max)",
    `import CPU per isolate (median of ${e.cpuRounds})`,
    "every run (ms)",
    "vs neither, paired by round",
  ],
  ["l", "r", "r", "r", "r", "l", "r", "r", "l", "r"],
  e.rows.map((r) => [
    r.label,
    fmt.kib(r.raw),
    `${r.gzip.toLocaleString("en-US")} B`,
    r === none ? "1.000×" : `${(r.gzip / none.gzip).toFixed(3)}× (+${(r.gzip - none.gzip).toLocaleString("en-US")} B)`,
    `${r.js.toFixed(2)} ms`,
    r.jsAll.map((x) => x.toFixed(2)).join(", "),
    diff(r.jsVsNone),
    `${r.cpu.toFixed(2)} ms`,
    r.cpuAll.map((x) => x.toFixed(2)).join(", "),
    diff(r.cpuVsNone),
  ]),
)}

The app without extensions carries ${e.ok ? "none of their code (no module of src/engine/mcp/ext/, none of their strings: test/engine/e2e/ext-cost.mjs)" : "some of their code: see Errors"}. Bundled with esbuild as wrangler bundles (minified ESM), gzip level 9; start-up on the minified bundle, CPU across ${e.isolates} isolates per reading (bench/lib/startup-cpu.mjs). Start-up against the app without: ${e.rows
    .slice(1)
    .map((r) => `${r.label}: ${verdict(r, "jsVsNone", "JS")}, ${verdict(r, "cpuVsNone", "CPU")}`)
    .join("; ")}.`;
}

function startupSection({ stat, engineProfile: p }) {
  return `## Where this template's start-up goes (50 µs profile, unminified build, mean of ${p.runs} runs)

Active ${p.active.toFixed(2)} ms = the Worker's JavaScript ${p.js.toFixed(2)} ms + native "(program)" ${p.program.toFixed(2)} ms + GC ${p.gc.toFixed(2)} ms (floor: JS ${stat.floor.profJs.toFixed(2)} ms, program ${stat.floor.profProgram.toFixed(2)} ms, medians).

${table(
  ["source module", "self ms"],
  ["l", "r"],
  p.topModules.map(([k, v]) => [k, v.toFixed(2)]),
)}

${table(
  ["function @ module:line", "self ms"],
  ["l", "r"],
  p.topFunctions.map(([k, v]) => [`\`${k}\``, v.toFixed(2)]),
)}`;
}

/** Where the run's wall time went, phase by phase (bench/lib/clock.mjs). */
function timingSection({ meta }) {
  if (!meta.phases?.length) return "";
  const total = meta.phases.reduce((a, p) => a + p.seconds, 0);
  return `## Run time by phase

${table(
  ["phase", "seconds", "share"],
  ["l", "r", "r"],
  [
    ...meta.phases.map((p) => [p.name, p.seconds.toFixed(1), `${Math.round((100 * p.seconds) / total)} %`]),
    ["**whole run** (with the report)", meta.seconds.toFixed(1), ""],
  ],
)}`;
}

/** The session-churn drill (bench/lib/churn.mjs): what abandoned 2025 sessions leave and cost. */
export function churnSection({ churn: c, meta }) {
  const disk = (d) => {
    const s = d.McpSession ?? { files: 0, holding: 0, bytes: 0 };
    const hub = d.McpHub ?? { holding: 0, bytes: 0 };
    return [
      `${s.holding.toLocaleString("en-US")} of ${s.files.toLocaleString("en-US")}`,
      fmt.kib(s.bytes),
      `${hub.holding} (${fmt.kib(hub.bytes)})`,
    ];
  };
  const perOp = (r, n) => [r.done.toLocaleString("en-US"), fmt.ms(r.p50), fmt.ms(r.p99), fmt.ms(r.workerCpuMsPerOp), n];
  return `## 2025-11-25 session churn (engine test app, wrangler dev)

${meta.churnOnly ? `Measured alone by \`npm run bench -- --churn\` on ${meta.date} UTC, load average ${meta.loadAtStart} at its start, ${meta.loadAtEnd} at its end. ` : ""}Sessions opened and abandoned (never DELETEd), at concurrency ${c.concurrency}, every answer checked; each drill on a fresh \`wrangler dev\` whose storage is counted on disk after it stopped. Local workerd gives every object it ran a database file; an object counts as holding data when its database has a key-value row or a table of its own, and its bytes are its pages in use. Worker CPU is the workerd process that runs the Worker and its objects, from /proc, so it includes each object's work and \`wrangler dev\`'s own per-request work (the inspector's log copy among it): read it against the 2026 call in the same table, not as production CPU.

| drill | sessions | p50 ms | p99 ms | Worker CPU ms each | requests each |
|---|---:|---:|---:|---:|---:|
| connector-like: \`initialize\`, \`notifications/initialized\`, \`tools/list\`, one \`tools/call\` | ${perOp(c.connector, 4).join(" | ")} |
| chat-client-like: the same and a GET stream (read to its priming event, then dropped); ${c.chatUsers} users × ${c.chatSessions / c.chatUsers} sessions (3 a minute for ${(c.idleMinutes ?? 60) === 60 ? "the 60-minute idle window" : `${c.idleMinutes} minutes of the 60-minute idle window (--quick)`}, simulated by count) | ${perOp(c.chat, 5).join(" | ")} |

| left after the drill | session objects holding data, of those run | their bytes | hub shards holding data |
|---|---:|---:|---:|
| connector-like | ${disk(c.connectorDisk).join(" | ")} |
| chat-client-like (until their idle alarm; the count includes each user's live-session index) | ${disk(c.chatDisk).join(" | ")} |

The same plain call on both lanes, same server, 4 interleaved rounds (${c.calls} calls a lane):

| \`tools/call\` (convert_temperature) | calls | p50 ms | p99 ms | Worker CPU ms a call | vs 2026 |
|---|---:|---:|---:|---:|---:|
| 2025-11-25, in a session (Worker → session object) | ${c.legacyCall.done} | ${fmt.ms(c.legacyCall.p50)} | ${fmt.ms(c.legacyCall.p99)} | ${fmt.ms(c.legacyCall.workerCpuMsPerOp)} | ${fmt.ratio(c.legacyCall.workerCpuMsPerOp, c.modernCall.workerCpuMsPerOp)} |
| 2026-07-28 (the Worker alone) | ${c.modernCall.done} | ${fmt.ms(c.modernCall.p50)} | ${fmt.ms(c.modernCall.p99)} | ${fmt.ms(c.modernCall.workerCpuMsPerOp)} | 1.00× |`;
}

/** The Markdown report of `npm run bench`. */
export function benchReport(data) {
  const { meta, errors } = data;
  const targets = checkTargets(data);
  return `# Benchmarks

Measured by \`npm run bench${meta.quick ? " -- --quick" : ""}\` on ${meta.date} UTC — ${meta.cores} cores (${meta.cpuModel}), Node ${meta.node}, wrangler dev (workerd) on 127.0.0.1.
Load average at start ${meta.loadAtStart}, at the end ${meta.loadAtEnd} (other work on the machine shows up in every number below). Whole run: ${meta.minutes} min.
Throughput rows: ${meta.requests.toLocaleString("en-US")} requests each (${meta.rounds} interleaved rounds of ${Math.ceil(meta.requests / meta.rounds).toLocaleString("en-US")}, rotating order, all servers up side by side) after ${meta.warmup} warm-up requests, concurrency ${meta.concurrency}, keep-alive (node:http), every answer checked.

${sizeSection(data)}

${throughputSection(data)}

${directSection(data)}

${memorySection(data)}
${data.tasks ? `\n${tasksSection(data)}\n` : ""}
${replaySection(data)}
${data.fanout ? `\n${fanoutSection(data)}\n` : ""}${data.churn ? `\n${churnSection(data)}\n` : ""}
## Targets

${table(
  ["", "target"],
  ["l", "l"],
  targets.map((t) => [t.met === undefined ? "➖" : t.met ? "✅" : "❌", t.text]),
)}

${startupSection(data)}

${historySection(data)}
${data.extensions ? `\n${extensionSection(data)}\n` : ""}
${timingSection(data)}
${errors.length ? `\n## Errors\n\n${errors.map((m) => `- ${m}`).join("\n")}\n` : ""}`;
}
