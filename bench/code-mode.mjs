// Why: issue 49 asks that Code Mode's `execute` cost no more CPU than `@cloudflare/codemode` 0.5.6's
// executor for the same work, with the governance that executor lacks (every inner call a governed
// tools/call: scope check, middleware, span, log line). This serves both straight from workerd
// (bench/lib/direct.mjs), each with a Worker Loader: the engine's Code Mode fixture app
// (test/engine/code-mode/: a 2026-07-28 `tools/call` of `execute` over /mcp) and a bare Worker
// running that executor (bench/code-mode/peer.ts), the same code with two inner calls on each, in
// interleaved rounds of the same run. Prints CPU (the serving workerd's, per execute) and wall time
// (p50, p99) of each, and their ratio. The engine keeps the parse of recent code (a model runs the
// same code again: a retry, the same script for another input), so a second row on its server sends
// code new each time (a numbered comment), parsed every run as the executor parses every run. A last
// row there makes the same three governed operations as direct tools/calls (the outer call and the
// two inner ones), so that the sandbox's own share (execute less those) can be set beside the executor's.
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
const engineOk = (text) => text.includes('"structuredContent"') && !text.includes('"isError":true') && text.includes("bench");
let fresh = 0;
const rows = {
  engine: {
    config: "test/engine/code-mode/wrangler.toml",
    request: () => modernRequest("tools/call", { name: "execute", arguments: { code: BODY } }),
    ok: engineOk,
  },
  fresh: {
    request: () => modernRequest("tools/call", { name: "execute", arguments: { code: `${BODY}\n// run ${fresh++}` } }),
    ok: engineOk,
  },
  codemode: {
    config: "bench/code-mode/peer.toml",
    request: () => ({
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: `async () => {\n${BODY.replaceAll("tools.", "codemode.")}\n}` }),
    }),
    ok: (text) => text.includes('"result"') && text.includes("bench") && !text.includes('"error"'),
  },
};
const KEYS = ["engine", "fresh", "governed", "codemode"];
/** Rows served by the engine's server (the first row's). */
const ON_ENGINE = new Set(["fresh", "governed"]);
const servers = {};
const clients = {};
const each = (make) => Object.fromEntries(KEYS.map((key) => [key, make()]));
const cpu = each(() => 0);
const done = each(() => 0);
const p50s = each(() => []);
const p99s = each(() => []);

/** The three direct calls of the "governed" row: what execute's outer call and its two inner ones are. */
const DIRECT = [
  { name: "users_get-by-username", arguments: { username: "ada" } },
  { name: "notes_add", arguments: { title: "t", text: "bench" } },
  { name: "notes_get", arguments: { id: 1 } },
];

const call = (key) => async () => {
  if (key === "governed") {
    for (const params of DIRECT) {
      const { headers, body } = modernRequest("tools/call", params);
      const r = await clients.governed.request("POST", headers, body);
      if (r.status !== 200 || !r.text.includes('"result"')) throw new Error(`governed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    }
    return;
  }
  const { headers, body } = rows[key].request();
  const r = await clients[key].request("POST", headers, body);
  if (r.status !== 200 || !rows[key].ok(r.text)) throw new Error(`${key}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
};

try {
  for (const key of KEYS) {
    if (ON_ENGINE.has(key)) {
      servers[key] = servers.engine;
      clients[key] = clients.engine;
    } else {
      servers[key] = await startDirect(rows[key].config, path.join(tmp.dir, key), { ratelimits: {} });
      clients[key] = new Client(key === "engine" ? servers[key].url : servers[key].origin, { connections: concurrency });
    }
    const warm = await runLoad({ name: "warm-up", total: 50, concurrency, maxMs: 120_000, op: call(key) });
    if (warm.errors > 0) throw new Error(`${key} warm-up: ${JSON.stringify(warm.errorSamples).slice(0, 400)}`);
  }
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a load change on the machine falls on both.
    for (const key of round % 2 ? [...KEYS].reverse() : KEYS) {
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
  const µs = (n) => Math.round(n).toLocaleString("en-US");
  const labels = {
    engine: "**this** `execute` over /mcp, two governed inner calls, the same code each run (its parse kept)",
    fresh: "**this**, the same with code new each run (parsed every run)",
    governed: "**this**, the same three governed operations as direct `tools/call`s",
    codemode: "`@cloudflare/codemode` 0.5.6 executor in a bare Worker, two plain function calls",
  };
  console.log(
    `execute with two inner calls, ${rounds} interleaved rounds of ${perRound} each, concurrency ${concurrency}, workerd direct:\n`,
  );
  console.log("| row | workerd CPU µs per execute | p50 ms | p99 ms |");
  console.log("|---|---:|---:|---:|");
  for (const key of KEYS)
    console.log(`| ${labels[key]} | ${µs(per(key))} | ${median(p50s[key]).toFixed(1)} | ${median(p99s[key]).toFixed(1)} |`);
  const sandbox = per("engine") - per("governed");
  const ratio = (key) => (per(key) / per("codemode")).toFixed(2);
  console.log(
    `\nCPU this / codemode: ${ratio("engine")}× (code new each run: ${ratio("fresh")}×); the sandbox's own share (execute less the three governed calls, ${µs(sandbox)} µs) / codemode: ${(sandbox / per("codemode")).toFixed(2)}×; p50 this / codemode: ${(median(p50s.engine) / median(p50s.codemode)).toFixed(2)}×`,
  );
} finally {
  for (const s of new Set(Object.values(servers))) await s.stop();
  tmp.remove?.();
}
