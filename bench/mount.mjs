// Why: issue 46 asks what a mounted tools/call costs against the same call made directly upstream.
// This serves the bench upstream (bench/scoped/plain.toml: convert_temperature behind a bearer token)
// and a gateway that mounts it by URL (bench/mount/gateway.toml), both straight from workerd
// (bench/lib/direct.mjs), and runs interleaved rounds in the same run: the call made directly
// upstream, and `up_convert_temperature` made through the gateway. Prints the latency of each, the
// latency a mount adds, and the Worker CPU per call: the gateway's (what the mount adds) and the
// upstream's in each row.
// Run: npx node bench/mount.mjs [calls per round, default 1000] [rounds, default 5] [concurrency, default 8]
import path from "node:path";
import { Client } from "./lib/http.mjs";
import { modernRequest, convertArgs, checkConvert } from "./lib/mcp.mjs";
import { pidsCpuMs } from "./lib/procstat.mjs";
import { startDirect } from "./lib/direct.mjs";
import { tempDir } from "./lib/startup.mjs";
import { runLoad } from "./lib/runner.mjs";

const calls = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const concurrency = Number(process.argv[4] ?? 8);
const tmp = tempDir("mcp-bench-mount-");
const clients = {};
let upstream;
let gateway;
/** Per row: CPU of the upstream's and the gateway's workerd, latencies, calls made. */
const totals = {
  direct: { upstreamMs: 0, gatewayMs: 0, latencies: [], done: 0 },
  mounted: { upstreamMs: 0, gatewayMs: 0, latencies: [], done: 0 },
};

const call = (row) => async (i) => {
  const args = convertArgs(i);
  const params = row === "mounted" ? { ...args, name: `up_${args.name}` } : args;
  const { headers, body } = modernRequest("tools/call", params);
  const r = await clients[row].request("POST", { ...headers, Authorization: "Bearer bench-token" }, body);
  if (r.status !== 200 || !r.text.includes('"result"')) throw new Error(`${row}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  const json = r.text.startsWith("{")
    ? r.text
    : r.text
        .split("\n")
        .filter((l) => l.startsWith("data: ") && l.includes('"id"'))
        .pop()
        .slice(6);
  checkConvert(i, JSON.parse(json).result);
};

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

try {
  upstream = await startDirect("bench/scoped/plain.toml", path.join(tmp.dir, "upstream"), { ratelimits: {} });
  gateway = await startDirect("bench/mount/gateway.toml", path.join(tmp.dir, "gateway"), {
    ratelimits: {},
    vars: { UPSTREAM_MCP: upstream.url, MCP_DEV: "on" },
  });
  clients.direct = new Client(upstream.url, { connections: concurrency });
  clients.mounted = new Client(gateway.url, { connections: concurrency });
  for (const row of ["direct", "mounted"]) await runLoad({ name: "warm-up", total: 300, concurrency, maxMs: 60_000, op: call(row) });
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a load change on the machine falls on both.
    for (const row of round % 2 ? ["mounted", "direct"] : ["direct", "mounted"]) {
      const [u, g] = [pidsCpuMs(upstream.pids), pidsCpuMs(gateway.pids)];
      const r = await runLoad({ name: row, total: calls, concurrency, maxMs: 300_000, op: call(row) });
      if (r.errors > 0)
        throw new Error(`${row}: ${r.errors} of ${calls} calls failed: ${JSON.stringify(r.errorSamples ?? []).slice(0, 300)}`);
      const t = totals[row];
      t.upstreamMs += pidsCpuMs(upstream.pids) - u;
      t.gatewayMs += pidsCpuMs(gateway.pids) - g;
      t.latencies.push(...r.latencies);
      t.done += r.done;
    }
  }
  const line = (row) => {
    const t = totals[row];
    const sorted = t.latencies.sort((a, b) => a - b);
    return {
      p50: pct(sorted, 50),
      p90: pct(sorted, 90),
      p99: pct(sorted, 99),
      upstreamUs: (t.upstreamMs / t.done) * 1000,
      gatewayUs: (t.gatewayMs / t.done) * 1000,
    };
  };
  const [d, m] = [line("direct"), line("mounted")];
  const ms = (x) => `${x.toFixed(2)} ms`;
  const us = (x) => `${x.toFixed(0)} µs`;
  console.log(
    `2026-07-28 tools/call of convert_temperature, ${rounds} interleaved rounds of ${calls} calls each, ${concurrency} at a time:`,
  );
  console.log(`  direct upstream:  p50 ${ms(d.p50)}  p90 ${ms(d.p90)}  p99 ${ms(d.p99)}  CPU per call: upstream ${us(d.upstreamUs)}`);
  console.log(
    `  mounted (gateway): p50 ${ms(m.p50)}  p90 ${ms(m.p90)}  p99 ${ms(m.p99)}  CPU per call: gateway ${us(m.gatewayUs)}, upstream ${us(m.upstreamUs)}`,
  );
  console.log(
    `  added by the mount: p50 +${ms(m.p50 - d.p50)}, p90 +${ms(m.p90 - d.p90)}; Worker CPU +${us(m.gatewayUs + m.upstreamUs - d.upstreamUs)} per call`,
  );
  console.log(
    `    (the gateway's ${us(m.gatewayUs)}; the upstream's own +${us(m.upstreamUs - d.upstreamUs)}: its discover and tools/list when the isolate's copy expires, and noise)`,
  );
} finally {
  for (const c of Object.values(clients)) c.close();
  await gateway?.stop();
  await upstream?.stop();
  tmp.remove();
}
