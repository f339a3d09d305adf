// Why: issue 4 — a bounded load run against a real `wrangler dev` of the example server, for
// both lanes: ≥ 10,000 stateless 2026-07-28 `tools/call`s at concurrency 64, then 200
// concurrent 2025-11-25 sessions that each initialize, list tools, call `greet` with a full
// elicitation round trip (elicitation/create on the call's SSE stream → the client POSTs
// its answer → the result arrives on the stream) and DELETE. Prints requests/s, p50/p99 and
// error counts; exits non-zero on any error. Only 127.0.0.1, bounded in count and time.
//
//   npm run load                       # defaults below
//   npm run load -- --modern 20000 --concurrency 64 --sessions 200
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Client, LegacySession, describe, fmt, modernCall, percentile, runLoad } from "../bench/lib/load.mjs";
import { startWrangler } from "../test/e2e/server.mjs";

const { values: opt } = parseArgs({
  options: {
    modern: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "64" },
    sessions: { type: "string", default: "200" },
    "max-seconds": { type: "string", default: "180" }, // per phase
  },
});
const MODERN_TOTAL = Number(opt.modern);
const CONCURRENCY = Number(opt.concurrency);
const SESSIONS = Number(opt.sessions);
const PHASE_MS = Number(opt["max-seconds"]) * 1000;
const WARMUP = Math.min(500, MODERN_TOTAL);

const convertArgs = (i) => ({ name: "convert_temperature", arguments: { value: i % 200, from: i % 2 ? "celsius" : "fahrenheit" } });
const checkConvert = (i, result) => {
  const c = result.structuredContent?.celsius;
  const want = i % 2 ? i % 200 : Math.round((((i % 200) - 32) * 5) / 9 * 100) / 100;
  if (c !== want) throw new Error(`convert_temperature(${i}): celsius ${c}, expected ${want}`);
};

let failed = false;
const server = await startWrangler({ config: "wrangler.toml", logLevel: "warn" });
console.log(`wrangler dev (example server) on ${server.url}`);
const client = new Client(server.url, { connections: Math.max(CONCURRENCY, SESSIONS), timeoutMs: 60_000 });
try {
  // ── 2026-07-28: stateless tools/call ──────────────────────────────────────
  await runLoad({ name: "warm-up", total: WARMUP, concurrency: CONCURRENCY, maxMs: 60_000, op: (i) => modernCall(client, "tools/call", convertArgs(i)) });
  const modern = await runLoad({
    name: `2026-07-28 tools/call convert_temperature ×${MODERN_TOTAL}`,
    total: MODERN_TOTAL,
    concurrency: CONCURRENCY,
    maxMs: PHASE_MS,
    op: async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i))),
  });
  console.log(describe(modern));
  if (modern.errors || modern.truncated) failed = true;

  // ── 2025-11-25: concurrent sessions with an elicitation round trip ────────
  const steps = { initialize: [], "tools/list": [], "tools/call greet (with elicitation)": [], DELETE: [] };
  let httpRequests = 0;
  let roundTrips = 0;
  const timed = async (step, fn) => {
    const s = performance.now();
    const r = await fn();
    steps[step].push(performance.now() - s);
    return r;
  };
  const legacy = await runLoad({
    name: `2025-11-25 sessions ×${SESSIONS} (initialize, tools/list, greet + elicitation, DELETE)`,
    total: SESSIONS,
    concurrency: SESSIONS,
    maxMs: PHASE_MS,
    op: async (i) => {
      const session = new LegacySession(client, { capabilities: { elicitation: {} } });
      await timed("initialize", () => session.open()); // initialize + notifications/initialized
      httpRequests += 2;
      const list = await timed("tools/list", () => session.call("tools/list"));
      httpRequests++;
      if (!list.tools?.some((t) => t.name === "greet")) throw new Error("tools/list has no greet");
      const name = `user-${i}`;
      const { result, serverRequests } = await timed("tools/call greet (with elicitation)", () =>
        session.callWithInput("tools/call", { name: "greet", arguments: {} }, (req) => {
          if (req.method !== "elicitation/create") throw new Error(`unexpected server request ${req.method}`);
          return { action: "accept", content: { name } };
        }),
      );
      httpRequests += 1 + serverRequests;
      roundTrips += serverRequests;
      if (serverRequests !== 1) throw new Error(`greet sent ${serverRequests} server requests, expected 1`);
      const text = result.content?.[0]?.text;
      if (text !== `Hello, ${name}!`) throw new Error(`greet answered ${JSON.stringify(text)}`);
      await timed("DELETE", () => session.close());
      httpRequests++;
    },
  });
  console.log(describe(legacy));
  console.log(`  ${httpRequests} HTTP requests in ${(legacy.elapsedMs / 1000).toFixed(2)} s → ${fmt.rps((httpRequests / legacy.elapsedMs) * 1000)} requests/s; ${roundTrips} elicitation round trips`);
  for (const [step, lat] of Object.entries(steps)) {
    const sorted = Float64Array.from(lat).sort();
    console.log(`  ${step.padEnd(38)} n=${String(sorted.length).padStart(4)}  p50 ${fmt.ms(percentile(sorted, 50)).padStart(7)} ms  p99 ${fmt.ms(percentile(sorted, 99)).padStart(7)} ms`);
  }
  if (legacy.errors || legacy.truncated) failed = true;

  console.log(`\nload: ${failed ? "FAILED" : "ok"} — errors: 2026-07-28 ${modern.errors}, 2025-11-25 ${legacy.errors}`);
} catch (err) {
  failed = true;
  console.error(`load: ${err?.stack ?? err}\nwrangler output (tail):\n${server.log().slice(-3000)}`);
} finally {
  client.close();
  await server.stop();
}
process.exit(failed ? 1 : 0);
