// Why: src/index.ts routes with itty-router (a /health route beside /mcp); before, the entry was
// createMcpWorker(app) alone, three fixed comparisons. This measures what the router costs, in one
// run so that load on the machine falls on both: the example app built each way as `wrangler
// deploy --dry-run` builds it (gzip), then served straight from workerd (bench/lib/direct.mjs) and
// driven with the same 2026-07-28 tools/call in interleaved rounds, Worker CPU per call read from
// workerd's /proc times (10 ms ticks: with 1,500 calls per entry and round, 3 µs a call), in short
// stretches whose ratios give a median, since the load of other processes on the machine comes and goes.
// Run of 2026-12-03 (2 cores, load ~9): +533 B gzip; CPU ratio median 0.967 (0.827-1.043): no cost
// measurable on /mcp, which the entry serves through `handle` before the router.
//
//   node bench/router-entry.mjs [--requests N per entry and round] [--stretches N]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "./lib/http.mjs";
import { startDirect } from "./lib/direct.mjs";
import { convertOn, interleavedRows } from "./lib/phases.mjs";
import { pidsCpuMs } from "./lib/procstat.mjs";
import { runLoad } from "./lib/runner.mjs";
import { build } from "./lib/startup.mjs";

const { values: opt } = parseArgs({
  options: {
    requests: { type: "string", default: "1500" },
    stretches: { type: "string", default: "11" },
    concurrency: { type: "string", default: "8" },
  },
});
const ENTRIES = { plain: "bench/router-entry/wrangler.toml", router: "wrangler.toml" };
const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-router-"));
const servers = {};
const clients = {};
try {
  const sizes = {};
  for (const [key, config] of Object.entries(ENTRIES)) {
    const built = await build(config, path.join(tmp, key));
    sizes[key] = built.gzip;
    // As the bench's engine rows: rate limits and Static Assets unbound (Miniflare simulates both in
    // the same workerd process, where on Cloudflare they are not the Worker's CPU).
    servers[key] = await startDirect(config, path.join(tmp, key), { ratelimits: {}, assets: undefined }, built);
    clients[key] = new Client(servers[key].url, { connections: Number(opt.concurrency), timeoutMs: 60_000 });
  }
  const ops = Object.fromEntries(Object.keys(ENTRIES).map((key) => [key, { server: key, op: convertOn(clients[key]) }]));
  for (const { op } of Object.values(ops))
    await runLoad({ name: "warm-up", total: 400, concurrency: Number(opt.concurrency), maxMs: 60_000, op });
  // Load from the other processes on the machine comes and goes: the ratio of each short stretch
  // (two interleaved rounds, so each entry ran first once) is taken, and their median reported.
  const ratios = [];
  const cpuUs = { plain: [], router: [] };
  for (let i = 0; i < Number(opt.stretches); i++) {
    const rows = await interleavedRows(
      {
        ops,
        rounds: 2,
        perRound: Number(opt.requests),
        concurrency: Number(opt.concurrency),
        rowMaxMs: 120_000,
        cpuOf: (key) => ({ worker: pidsCpuMs(servers[key].pids) }),
      },
      () => {},
    );
    for (const key of Object.keys(cpuUs)) {
      if (rows[key].errors) throw new Error(`${key}: ${rows[key].errors} errors (${rows[key].errorSamples?.join(" | ")})`);
      cpuUs[key].push(rows[key].cpuUs.worker);
    }
    ratios.push(rows.router.cpuUs.worker / rows.plain.cpuUs.worker);
    console.log(
      `  stretch ${i + 1}: plain ${rows.plain.cpuUs.worker.toFixed(0)} µs, router ${rows.router.cpuUs.worker.toFixed(0)} µs, ratio ${ratios.at(-1).toFixed(3)}`,
    );
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\nbundle gzip: plain ${sizes.plain} B, router ${sizes.router} B (+${sizes.router - sizes.plain} B)`);
  console.log(
    `Worker CPU per 2026-07-28 tools/call, median of ${ratios.length} stretches: plain ${median(cpuUs.plain).toFixed(0)} µs, router ${median(cpuUs.router).toFixed(0)} µs; ratio median ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})`,
  );
} finally {
  for (const c of Object.values(clients)) c.close();
  for (const s of Object.values(servers)) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
