// Why: issue 49 asks that Code Mode's `execute` cost no more CPU than `@cloudflare/codemode` 0.5.6's
// executor for the same work, with the governance that executor lacks (every inner call a governed
// tools/call: scope check, middleware, span, log line). This serves both straight from workerd
// (bench/lib/direct.mjs), each with a Worker Loader: the engine's Code Mode fixture app
// (test/engine/code-mode/: a 2026-07-28 `tools/call` of `execute` over /mcp) and a bare Worker
// running that executor (bench/code-mode/peer.ts), the same code with two inner calls on each, in
// interleaved rounds of the same run. Prints CPU (the serving workerd's, per execute) and wall time
// (p50, p99) of each, and their ratio.
// Run: npx node bench/code-mode.mjs [executes per round, default 200] [rounds, default 5]
import path from "node:path";
import { Client } from "./lib/http.mjs";
import { modernRequest } from "./lib/mcp.mjs";
import { pidsCpuMs } from "./lib/procstat.mjs";
import { startDirect } from "./lib/direct.mjs";
import { tempDir } from "./lib/startup.mjs";
import { median, runLoad } from "./lib/runner.mjs";

const perRound = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 5);
const concurrency = 4;
const tmp = tempDir("mcp-bench-code-mode-");

// The same program on each: add a note, read it back, return both.
const BODY = `const added = await tools.notes_add({ title: "t", text: "bench" });
const read = await tools.notes_get({ id: added.id });
return { added, read };`;
const rows = {
  engine: {
    config: "test/engine/code-mode/wrangler.toml",
    request: () => {
      const { headers, body } = modernRequest("tools/call", { name: "execute", arguments: { code: BODY } });
      return { path: "/mcp", headers, body };
    },
    ok: (text) => text.includes('"structuredContent"') && !text.includes('"isError":true') && text.includes("bench"),
  },
  codemode: {
    config: "bench/code-mode/peer.toml",
    request: () => ({
      path: "/",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: `async () => {\n${BODY.replaceAll("tools.", "codemode.")}\n}` }),
    }),
    ok: (text) => text.includes('"result"') && text.includes("bench") && !text.includes('"error"'),
  },
};
const servers = {};
const clients = {};
const cpu = { engine: 0, codemode: 0 };
const done = { engine: 0, codemode: 0 };
const p50s = { engine: [], codemode: [] };
const p99s = { engine: [], codemode: [] };

const call = (key) => async () => {
  const { path: at, headers, body } = rows[key].request();
  const r = await clients[key].request("POST", headers, body, at);
  if (r.status !== 200 || !rows[key].ok(r.text)) throw new Error(`${key}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
};

try {
  for (const [key, row] of Object.entries(rows)) {
    servers[key] = await startDirect(row.config, path.join(tmp.dir, key), { ratelimits: {} });
    clients[key] = new Client(key === "engine" ? servers[key].url : servers[key].origin, { connections: concurrency });
    const warm = await runLoad({ name: "warm-up", total: 50, concurrency, maxMs: 120_000, op: call(key) });
    if (warm.errors > 0) throw new Error(`${key} warm-up: ${JSON.stringify(warm.errorSamples).slice(0, 400)}`);
  }
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a load change on the machine falls on both.
    for (const key of round % 2 ? ["codemode", "engine"] : ["engine", "codemode"]) {
      const before = pidsCpuMs(servers[key].pids);
      const r = await runLoad({ name: key, total: perRound, concurrency, maxMs: 300_000, op: call(key) });
      if (r.errors > 0) throw new Error(`${key}: ${r.errors} of ${perRound} failed: ${JSON.stringify(r.errorSamples ?? []).slice(0, 400)}`);
      cpu[key] += pidsCpuMs(servers[key].pids) - before;
      done[key] += perRound;
      p50s[key].push(r.p50);
      p99s[key].push(r.p99);
    }
  }
  const per = (key) => (cpu[key] / done[key]) * 1000;
  console.log(
    `execute with two inner calls, ${rounds} interleaved rounds of ${perRound} each, concurrency ${concurrency}, workerd direct:`,
  );
  console.log("| row | workerd CPU µs/execute | p50 ms | p99 ms |");
  console.log("|---|---:|---:|---:|");
  for (const key of ["engine", "codemode"]) {
    const label =
      key === "engine" ? "**this** `execute` over /mcp (governed inner calls)" : "`@cloudflare/codemode` 0.5.6 executor, bare Worker";
    console.log(
      `| ${label} | ${Math.round(per(key)).toLocaleString("en-US")} | ${median(p50s[key]).toFixed(1)} | ${median(p99s[key]).toFixed(1)} |`,
    );
  }
  console.log(
    `CPU ratio this / codemode: ${(per("engine") / per("codemode")).toFixed(2)}×; p50 ratio ${(median(p50s.engine) / median(p50s.codemode)).toFixed(2)}×`,
  );
} finally {
  for (const s of Object.values(servers)) await s.stop();
  tmp.remove?.();
}
