// Why: the bench's "spans ≤ 1.03× TRACING=off" row read 1.08× in one full run and 1.01× in
// another. This measures only that comparison, with as many interleaved rounds as asked, and beside
// it two servers that differ in nothing (both TRACING=off): their ratio is the noise of the run.
// Beside them, the same-log floor traced with and without the one span the engine makes
// (bench/floor-span): what recording that span costs the runtime and the collector alone.
// Each round runs every server's batch of 2026-07-28 `tools/call` in a rotating order and reads the
// workerd CPU of each (bench/lib/procstat.mjs), so a ratio per round and its spread are printed, not
// only a median. Servers are the engine test app served straight from workerd (bench/lib/direct.mjs),
// without rate limits or assets, as in the cost phase; "traced" records every span with the local
// trace collector in the same process, "untraced" has no collector (a request sampled out). The
// 2026 call against its same-log floor (bench/floor-log, the bench's "floorCpu" row) is read too,
// and against that floor reading the JSON body it answers (bench/floor-read), which costs workerd
// less than leaving the body unread.
//
//   node bench/spans.mjs [--rounds 12] [--per-round 300]
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "./lib/http.mjs";
import { AT_DEFAULTS, startDirect } from "./lib/direct.mjs";
import { FLOOR_LOG, FLOOR_READ, FLOOR_SPAN } from "./lib/direct-phase.mjs";
import { modernRequest } from "./lib/mcp.mjs";
import { convertOn } from "./lib/phases.mjs";
import { pidsCpuMs } from "./lib/procstat.mjs";
import { runLoad } from "./lib/runner.mjs";
import { SERVERS } from "./lib/servers.mjs";
import { build, tempDir } from "./lib/startup.mjs";
import { ROOT } from "../scripts/lib/procs.mjs";

const { values: opt } = parseArgs({
  options: { rounds: { type: "string", default: "12" }, "per-round": { type: "string", default: "300" } },
});
const rounds = Number(opt.rounds);
const perRound = Number(opt["per-round"]);
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const at = loadavg();

const base = AT_DEFAULTS;
const off = { ...base, vars: { TRACING: "off" } };
const rows = {
  untracedOn: base,
  untracedOff: off,
  tracedOn: { ...base, unsafeObservability: true },
  tracedOff: { ...off, unsafeObservability: true },
  tracedOff2: { ...off, unsafeObservability: true },
};
const tmp = tempDir("mcp-spans-");
const built = await build(path.join(ROOT, SERVERS.engine.config), path.join(tmp.dir, "min"));
const servers = {};
const clients = {};
// The bare Worker writing one log line like the 2026 call's (bench/floor-log): the "same-log floor".
const floorReq = modernRequest("tools/call", { name: "convert_temperature", arguments: { value: 1, from: "celsius" } });
const opOf = (key) =>
  key.startsWith("floor")
    ? async () => {
        const r = await clients[key].request("POST", floorReq.headers, floorReq.body);
        if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
      }
    : convertOn(clients[key]);
try {
  for (const [key, overrides] of Object.entries(rows)) {
    servers[key] = await startDirect(SERVERS.engine.config, tmp.dir, overrides, built);
    clients[key] = new Client(servers[key].url, { connections: 16, timeoutMs: 60_000 });
  }
  // The floors: the same-log floor untraced, traced without and with the engine's one span, and
  // untraced reading the body.
  /** @type {Record<string, [string, Record<string, unknown>]>} */
  const floors = {
    floorLog: [FLOOR_LOG, {}],
    floorLogTraced: [FLOOR_LOG, { unsafeObservability: true }],
    floorSpanTraced: [FLOOR_SPAN, { unsafeObservability: true }],
    floorRead: [FLOOR_READ, {}],
  };
  for (const [key, [config, overrides]] of Object.entries(floors)) {
    servers[key] = await startDirect(config, path.join(tmp.dir, key), overrides);
    clients[key] = new Client(servers[key].url, { connections: 16, timeoutMs: 60_000 });
    rows[key] = overrides;
  }
  for (const key of Object.keys(rows)) await runLoad({ name: "warm-up", total: 200, concurrency: 8, maxMs: 30_000, op: opOf(key) });
  console.error(
    `▶ spans: ${rounds} interleaved rounds of ${perRound} calls on each of ${Object.keys(rows).join(", ")}; load average ${at}`,
  );
  const keys = Object.keys(rows);
  const per = Object.fromEntries(keys.map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(i + round) % keys.length];
      const before = pidsCpuMs(servers[key].pids);
      const r = await runLoad({ name: key, total: perRound, concurrency: 16, maxMs: 120_000, op: opOf(key) });
      per[key].push(((pidsCpuMs(servers[key].pids) - before) * 1000) / r.done);
    }
    console.error(`  round ${round + 1}: ${keys.map((k) => `${k} ${Math.round(per[k].at(-1))} µs`).join(", ")}`);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const ratios = (a, b) => per[a].map((x, i) => x / per[b][i]);
  const line = (label, a, b) => {
    const rs = ratios(a, b);
    return `| ${label} | ${Math.round(med(per[a]))} µs / ${Math.round(med(per[b]))} µs | ${(med(per[a]) / med(per[b])).toFixed(3)}× | ${med(rs).toFixed(3)}× | ${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)}× |`;
  };
  console.log(
    `| comparison (${rounds} interleaved rounds of ${perRound} calls) | workerd CPU per call, medians | ratio of medians | median of per-round ratios | per-round range |`,
  );
  console.log("|---|---:|---:|---:|---|");
  console.log(line("traced: spans on / TRACING=off", "tracedOn", "tracedOff"));
  console.log(line("traced: TRACING=off / TRACING=off (two alike: the noise)", "tracedOff2", "tracedOff"));
  console.log(
    line("traced floor: the engine's one span / no span (the runtime's and collector's part)", "floorSpanTraced", "floorLogTraced"),
  );
  console.log(line("untraced: spans on / TRACING=off", "untracedOn", "untracedOff"));
  console.log(line("untraced 2026 call / the bare Worker with the same log line", "untracedOn", "floorLog"));
  console.log(line("untraced 2026 call / that floor reading the JSON body", "untracedOn", "floorRead"));
  console.log(line("that floor reading the JSON body / the same-log floor", "floorRead", "floorLog"));
  console.log(
    `\nMeasured by \`node bench/spans.mjs --rounds ${rounds} --per-round ${perRound}\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; load average at the start ${at}, at the end ${loadavg()}.`,
  );
} finally {
  for (const c of Object.values(clients)) c.close();
  for (const s of Object.values(servers)) await s.stop();
  tmp.remove();
}
