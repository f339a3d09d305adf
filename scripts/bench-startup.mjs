// Why: start-up of the engine at other commits beside the working tree, measured side by side in
// one run (bench/lib/startup-refs.mjs), to show what a change did to it; `npm run bench` runs the
// same comparison for the commit before observability landed.
//
//   npm run bench:startup -- --ref main --ref 1acfa58^      # each ref, then the working tree
//   npm run bench:startup -- --ref main --rounds 15
//   npm run bench:startup -- --extensions        # only what the opt-in extensions cost an app (under a minute)
//   npm run bench:startup -- --floor [--rounds 9]  # only the one-tool app and the engine test app against the
//                                                  # bare Worker: the "start-up ≤ 1.25× the bare Worker's" row (a few minutes)
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { compatibilityOf, SAME_TOOL, SERVERS } from "../bench/lib/servers.mjs";
import { build, buildUploadBundle, checkStartup, interleavedProfiles, summarize } from "../bench/lib/startup.mjs";
import { startupCpu } from "../bench/lib/startup-cpu.mjs";
import { firstCallRequest } from "../bench/lib/phases.mjs";
import { BUDGETS } from "../bench/lib/targets.mjs";
import { ROOT } from "./lib/procs.mjs";
import { extensionCostPhase } from "../bench/lib/ext-cost.mjs";
import { extensionSection } from "../bench/lib/report.mjs";
import { startupAcrossRefs, shortRef } from "../bench/lib/startup-refs.mjs";
import { tempDir } from "../bench/lib/startup.mjs";

const { values: opt } = parseArgs({
  options: {
    ref: { type: "string", multiple: true, default: [] },
    rounds: { type: "string", default: "9" },
    checks: { type: "string", default: "5" },
    cpu: { type: "string", default: "3" },
    extensions: { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
  },
});
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
if (opt.extensions) {
  const at = loadavg();
  console.error(`▶ what the extensions cost an app; load average ${at}`);
  const tmp = tempDir("mcp-ext-cost-");
  const extensions = await extensionCostPhase(
    { tmpDir: tmp.dir, rounds: Number(opt.rounds === "9" ? 7 : opt.rounds), cpuRounds: Number(opt.cpu) },
    (s) => console.error(s),
  );
  tmp.remove();
  console.log(extensionSection({ extensions }));
  console.log(
    `\nMeasured by \`npm run bench:startup -- --extensions\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; load average at the start ${at}, at the end ${loadavg()}.`,
  );
  process.exit(extensions.ok ? 0 : 1);
}
if (opt.floor) {
  // The one-tool app (the row's), the engine test app and the bare Worker, as `npm run bench` measures them, alone.
  const at = loadavg();
  const rounds = Number(opt.rounds);
  const tmp = tempDir("mcp-startup-floor-");
  const keys = ["sameTool", "engine", "floor"];
  const servers = { ...SERVERS, sameTool: { name: "the one-tool app (bench/same-tool)", config: SAME_TOOL } };
  const built = {};
  for (const key of keys) {
    const config = path.join(ROOT, servers[key].config);
    built[key] = {
      min: await build(config, path.join(tmp.dir, key, "min")),
      raw: await build(config, path.join(tmp.dir, key, "raw"), { minify: false }),
      upload: await buildUploadBundle(config, path.join(tmp.dir, key, "worker.bundle")),
    };
  }
  console.error(
    `▶ start-up of the one-tool app and the engine test app against the bare Worker, ${rounds} interleaved rounds; load average ${at}`,
  );
  const checks = { sameTool: [], engine: [], floor: [] };
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(round + k) % keys.length];
      checks[key].push((await checkStartup(built[key].upload, tmp.dir)).active);
    }
  const profiles = await interleavedProfiles(
    Object.fromEntries(
      keys.map((key) => [key, { dir: built[key].raw.dir, main: built[key].raw.main, compat: compatibilityOf(servers[key].config) }]),
    ),
    rounds,
    (s) => console.error(s),
  );
  const cpuRounds = Number(opt.cpu);
  const cpu = { sameTool: [], engine: [], floor: [] };
  for (let round = 0; round < cpuRounds; round++)
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(round + k) % keys.length];
      const compat = compatibilityOf(servers[key].config);
      const r = await startupCpu(built[key].min.dir, built[key].min.main, { ...compat, isolates: 40, request: firstCallRequest() });
      cpu[key].push(r);
      console.error(
        `  start-up CPU ${key}: ${r.full.toFixed(2)} ms per isolate (import alone ${r.ms.toFixed(2)} ms); with a first tools/call ${r.call.toFixed(2)} ms`,
      );
    }
  tmp.remove();
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const active = Object.fromEntries(keys.map((key) => [key, profiles[key].map((p) => summarize(p).active)]));
  console.log(
    `| | CPU of an isolate's import, its harness's first request (median of ${cpuRounds}) | every run (ms) | import alone, less an empty harness (ms) | with a first 2026 tools/call served (median) | every run (ms) | 50 µs profile Active (median of ${rounds}) | every run (ms) | \`check startup\` Active (median of ${rounds}) | every run (ms) |`,
  );
  console.log("|---|---:|---|---|---:|---|---:|---|---:|---|");
  for (const key of keys)
    console.log(
      `| ${servers[key].name} | ${med(cpu[key].map((r) => r.full)).toFixed(2)} ms | ${cpu[key].map((r) => r.full.toFixed(2)).join(", ")} | ${cpu[key].map((r) => r.ms.toFixed(2)).join(", ")} | ${med(cpu[key].map((r) => r.call)).toFixed(2)} ms | ${cpu[key].map((r) => r.call.toFixed(2)).join(", ")} | ${med(active[key]).toFixed(2)} ms | ${active[key].map((x) => x.toFixed(2)).join(", ")} | ${med(checks[key]).toFixed(1)} ms | ${checks[key].join(", ")} |`,
    );
  // Paired by round (each round measures all three, so a ratio within it shares its load), as the bench's row.
  const ratio = (key, of = "full") => med(cpu[key].map((r, i) => r[of] / cpu.floor[i][of]));
  const met = (r) => (r <= BUDGETS.startupFloor ? "met" : "NOT met");
  console.log(
    `\nstart-up of the one-tool app ≤ ${BUDGETS.startupFloor}× the bare Worker's (CPU of an isolate's import): ${ratio("sameTool").toFixed(2)}× ${met(ratio("sameTool"))} (the engine test app ${ratio("engine").toFixed(2)}×)`,
  );
  console.log(
    `a fresh isolate's import and first 2026 tools/call ≤ ${BUDGETS.startupFloor}× the bare Worker's import and first answer: ${ratio("sameTool", "call").toFixed(2)}× ${met(ratio("sameTool", "call"))} (the engine test app ${ratio("engine", "call").toFixed(2)}×)`,
  );
  console.log(
    `Measured by \`npm run bench:startup -- --floor --rounds ${rounds} --cpu ${cpuRounds}\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; load average at the start ${at}, at the end ${loadavg()}.`,
  );
  process.exit(0);
}
const builds = [
  ...(await Promise.all(opt.ref.map(async (ref) => ({ label: `${ref} (${await shortRef(ref)})`, ref })))),
  { label: "working tree", ref: null },
];
console.error(`▶ start-up across ${builds.map((b) => b.label).join(", ")}; load average ${loadavg()}`);
const tmp = tempDir("mcp-startup-refs-");
const rows = await startupAcrossRefs(
  { tmpDir: tmp.dir, builds, rounds: Number(opt.rounds), checkRounds: Number(opt.checks), cpuRounds: Number(opt.cpu) },
  (s) => console.error(s),
);
tmp.remove();
console.log(
  `| build | minified | gzip | JS, 50 µs profile (median of ${opt.rounds}) | every run (ms) | \`check startup\` Active (median of ${opt.checks}) | every run (ms) | import CPU per isolate (median of ${opt.cpu}) | every run (ms) |`,
);
console.log("|---|---:|---:|---:|---|---:|---|---:|---|");
for (const r of rows)
  console.log(
    `| ${r.label} | ${(r.min / 1024).toFixed(1)} KiB | ${(r.gzip / 1024).toFixed(1)} KiB | ${r.js.toFixed(2)} ms | ${r.jsAll.map((x) => x.toFixed(1)).join(", ")} | ${r.check.toFixed(1)} ms | ${r.checkAll.join(", ")} | ${r.cpu.toFixed(2)} ms | ${r.cpuAll.map((x) => x.toFixed(2)).join(", ")} |`,
  );
console.log(`\nload average at the end ${loadavg()}`);
