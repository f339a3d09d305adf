// Why: the same throughput rows as the `wrangler dev` phase (phases.mjs), served straight from
// workerd with Miniflare (direct.mjs), so the dev proxy neither caps requests/s nor adds CPU;
// plus the session-lane floor (bench/floor-do: Worker → Durable Object → Worker, fixed answer),
// the yardstick for the 2025-11-25 row's Worker CPU, and both floors again writing the one request
// log line the engine writes by default (bench/floor-log, bench/floor-do-log), so each lane's CPU
// also reads against a Worker that logs as much; and the engine with TRACING=off, beside which the
// call's spans are priced (docs/tracing.md). Same interleaved, rotating rounds.
import path from "node:path";
import { Client } from "./http.mjs";
import { LegacySession, checkConvert, convertArgs, modernCall, modernRequest } from "./mcp.mjs";
import { convertOn, interleavedRows, throughputOps } from "./phases.mjs";
import { runLoad } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";
import { pidsCpuMs } from "./procstat.mjs";
import { AT_DEFAULTS, startDirect } from "./direct.mjs";

export const FLOOR_DO = "bench/floor-do/wrangler.toml";
export const FLOOR_LOG = "bench/floor-log/wrangler.toml";
export const FLOOR_DO_LOG = "bench/floor-do-log/wrangler.toml";
/** The same-log floor with the one span the engine makes for a traced 2026 call (the lanes phase's spans yardstick). */
export const FLOOR_SPAN = "bench/floor-span/wrangler.toml";
/** The same-log floor that reads the JSON body it answers (bench/spans.mjs measures it). */
export const FLOOR_READ = "bench/floor-read/wrangler.toml";

/**
 * `built[key]` (optional): the size phase's builds of SERVERS[key] (phases.mjs), served as they are
 * instead of being built again; the three engine rows serve one build with different bindings.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function directThroughput(
  { tmpDir, built = {}, requests, rounds, concurrency, warmup, rowMaxMs, legacySessions },
  onProgress = () => {},
) {
  onProgress("throughput without the dev proxy: the same Workers served by workerd through Miniflare");
  const servers = {};
  const clients = {};
  try {
    // The engine as the other rows run it: its rate limits unbound, since Miniflare simulates the
    // binding inside the same workerd process (on Cloudflare it is a separate service) and the floor
    // and the peers limit nothing. Its Static Assets (the extensions' files, which the calls measured
    // here never read) are unbound too: with run_worker_first, Miniflare puts its asset router, a
    // Worker of its own in the same process, in front of every request (400-500 µs of CPU each here,
    // more than the engine's own code), where on Cloudflare the platform routes. Two more engines
    // show what is left out: both simulations (the engine as its wrangler.toml declares it), and the
    // per-request log line (LOG_REQUESTS=off).
    // Its Analytics Engine dataset is unbound as well: the template's wrangler.toml leaves MCP_METRICS
    // out, and the floors write no point (direct.mjs AT_DEFAULTS).
    const unlimited = AT_DEFAULTS;
    const configs = {
      floor: [SERVERS.floor.config, {}, built.floor?.min],
      floorDo: [FLOOR_DO],
      floorLog: [FLOOR_LOG],
      floorDoLog: [FLOOR_DO_LOG],
      engine: [SERVERS.engine.config, unlimited, built.engine?.min],
      engineLimited: [SERVERS.engine.config, {}, built.engine?.min],
      engineQuiet: [SERVERS.engine.config, { ...unlimited, vars: { LOG_REQUESTS: "off" } }, built.engine?.min],
      engineNoSpans: [SERVERS.engine.config, { ...unlimited, vars: { TRACING: "off" } }, built.engine?.min],
      official: [SERVERS.official.config, {}, built.official?.min],
      agents: [SERVERS.agents.config, {}, built.agents?.min],
    };
    for (const [key, [config, overrides, prebuilt]] of Object.entries(configs)) {
      servers[key] = await startDirect(config, path.join(tmpDir, `direct-${key}`), overrides, prebuilt);
      clients[key] = new Client(servers[key].url, { connections: Math.max(concurrency, legacySessions), timeoutMs: 60_000 });
    }
    const sessions = await Promise.all(Array.from({ length: legacySessions }, () => new LegacySession(clients.engine).open()));
    const floorReq = modernRequest("tools/call", { name: "convert_temperature", arguments: { value: 1, from: "celsius" } });
    const toObjects = (server) => ({
      server,
      op: async (i) => {
        const r = await clients[server].request("POST", { ...floorReq.headers, "Mcp-Session-Id": `s${i % legacySessions}` }, floorReq.body);
        if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
      },
    });
    const ops = {
      ...throughputOps(clients, sessions),
      modernCallLimited: { server: "engineLimited", op: convertOn(clients.engineLimited) },
      modernCallQuiet: { server: "engineQuiet", op: convertOn(clients.engineQuiet) },
      modernCallNoSpans: { server: "engineNoSpans", op: convertOn(clients.engineNoSpans) },
      // The same call as Claude sends it (a 2025-11-25 version header on a 2026-07-28 body, served as a
      // quirk: src/engine/http/quirks.ts), beside the well-formed one: what the tolerance costs.
      modernCallQuirk: {
        server: "engine",
        op: async (i) =>
          checkConvert(
            i,
            await modernCall(clients.engine, "tools/call", convertArgs(i), { headers: { "MCP-Protocol-Version": "2025-11-25" } }),
          ),
      },
      floorLog: {
        server: "floorLog",
        op: async () => {
          const r = await clients.floorLog.request("POST", floorReq.headers, floorReq.body);
          if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        },
      },
      // As many Durable Objects as the session row has sessions, one request at a time to each in turn.
      floorDo: toObjects("floorDo"),
      floorDoLog: toObjects("floorDoLog"),
    };
    for (const key of Object.keys(ops)) await runLoad({ name: "warm-up", total: warmup, concurrency, maxMs: rowMaxMs, op: ops[key].op });
    const rows = await interleavedRows(
      {
        ops,
        rounds,
        perRound: Math.ceil(requests / rounds),
        concurrency,
        rowMaxMs,
        // workerd closes keep-alive sockets left idle while the other rows ran; the client closes
        // them first (http.mjs), so no request goes out on a socket closed meanwhile.
        cpuOf: (server) => ({ worker: pidsCpuMs(servers[server].pids) }),
      },
      onProgress,
    );
    await Promise.all(sessions.map((s) => s.close()));
    return rows;
  } finally {
    for (const c of Object.values(clients)) c.close();
    for (const sv of Object.values(servers)) await sv.stop();
  }
}
