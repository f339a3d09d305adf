// Why: issue 35 asks that the per-operation scope checks add at most 3% Worker CPU to a 2026
// tools/call. This serves the same call twice straight from workerd (bench/lib/direct.mjs), behind
// the same bearer token: without declared scopes (bench/scoped/plain.toml) and with them, a
// default and an implication (bench/scoped/scoped.toml), and measures each workerd's CPU over
// interleaved rounds in the same run. Prints the CPU per call of each and their ratio.
// Run: npx node bench/scoped-cpu.mjs [calls per round, default 2000] [rounds, default 5]
import path from "node:path";
import { Client } from "./lib/http.mjs";
import { modernRequest, convertArgs } from "./lib/mcp.mjs";
import { pidsCpuMs } from "./lib/procstat.mjs";
import { startDirect } from "./lib/direct.mjs";
import { tempDir } from "./lib/startup.mjs";
import { runLoad } from "./lib/runner.mjs";

const calls = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
const concurrency = 8;
const tmp = tempDir("mcp-bench-scoped-");
const rows = { plain: "bench/scoped/plain.toml", scoped: "bench/scoped/scoped.toml" };
const servers = {};
const clients = {};
const cpu = { plain: 0, scoped: 0 };
const done = { plain: 0, scoped: 0 };

const call = (key) => async (i) => {
  const { headers, body } = modernRequest("tools/call", convertArgs(i));
  const r = await clients[key].request("POST", { ...headers, Authorization: "Bearer bench-token" }, body);
  if (r.status !== 200 || !r.text.includes('"result"')) throw new Error(`${key}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
};

try {
  for (const [key, config] of Object.entries(rows)) {
    servers[key] = await startDirect(config, path.join(tmp.dir, key), { ratelimits: {} });
    clients[key] = new Client(servers[key].url, { connections: concurrency });
    await runLoad({ name: "warm-up", total: 500, concurrency, maxMs: 60_000, op: call(key) });
  }
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a load change on the machine falls on both.
    for (const key of round % 2 ? ["scoped", "plain"] : ["plain", "scoped"]) {
      const before = pidsCpuMs(servers[key].pids);
      const r = await runLoad({ name: key, total: calls, concurrency, maxMs: 300_000, op: call(key) });
      if (r.errors > 0)
        throw new Error(`${key}: ${r.errors} of ${calls} calls failed: ${JSON.stringify(r.errorSamples ?? []).slice(0, 300)}`);
      cpu[key] += pidsCpuMs(servers[key].pids) - before;
      done[key] += calls;
    }
  }
  const per = (key) => (cpu[key] / done[key]) * 1000;
  console.log(`2026-07-28 tools/call behind a bearer token, ${rounds} interleaved rounds of ${calls} calls each, workerd CPU per call:`);
  console.log(`  without declared scopes: ${per("plain").toFixed(1)} µs`);
  console.log(`  with declared scopes:    ${per("scoped").toFixed(1)} µs`);
  console.log(`  ratio: ${(per("scoped") / per("plain")).toFixed(3)}× (${((per("scoped") / per("plain") - 1) * 100).toFixed(1)}%)`);
} finally {
  for (const c of Object.values(clients)) c.close();
  for (const s of Object.values(servers)) await s.stop();
  tmp.remove();
}
