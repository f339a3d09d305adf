// Why: a bounded load run against a real `wrangler dev` of the engine test app, for both
// lanes: stateless 2026-07-28 `tools/call`s at a fixed concurrency, then concurrent
// 2025-11-25 sessions that each initialize, list tools, call `greet` with a full
// elicitation round trip and DELETE. Prints requests/s, p50/p99 and error counts; exits
// non-zero on any error. Only 127.0.0.1, bounded in count and time.
//
//   npm run load                       # defaults below
//   npm run load -- --modern 20000 --concurrency 64 --sessions 200
import { parseArgs } from "node:util";
import { Client } from "../bench/lib/http.mjs";
import { modernPhase, sessionsPhase } from "../bench/lib/load.mjs";
import { loadReport } from "../bench/lib/report.mjs";
import { SERVERS } from "../bench/lib/servers.mjs";
import { startWrangler } from "../test/engine/e2e/server.mjs";

const { values: opt } = parseArgs({
  options: {
    modern: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "64" },
    sessions: { type: "string", default: "200" },
    "max-seconds": { type: "string", default: "180" }, // per phase
  },
});
const concurrency = Number(opt.concurrency);
const sessions = Number(opt.sessions);
const maxMs = Number(opt["max-seconds"]) * 1000;

const server = await startWrangler({ config: SERVERS.engine.config, logLevel: "warn" });
console.log(`wrangler dev (${SERVERS.engine.name}) on ${server.url}`);
const client = new Client(server.url, { connections: Math.max(concurrency, sessions), timeoutMs: 60_000 });
let failed = true;
try {
  const modern = await modernPhase(client, { total: Number(opt.modern), concurrency, maxMs });
  const legacy = await sessionsPhase(client, { sessions, maxMs });
  failed = [modern, legacy.run].some((r) => r.errors || r.truncated);
  console.log(loadReport({ modern, sessions: legacy, failed }));
} catch (err) {
  console.error(`load: ${err?.stack ?? err}\nwrangler output (tail):\n${server.log().slice(-3000)}`);
} finally {
  client.close();
  await server.stop();
}
process.exit(failed ? 1 : 0);
