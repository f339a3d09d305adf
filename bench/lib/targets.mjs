// Why: what the template promises against the floor and the peers, in one place. The report
// prints each goal as met or not; change a budget here and the report follows.
import { fmt } from "./format.mjs";

export const BUDGETS = {
  /** 2026-07-28 tools/call requests/s, at least this share of the floor's. */
  floorRps: 0.7,
  /** 2026-07-28 tools/call requests/s, at least this multiple of each peer's. */
  peerRps: 1.5,
  /** The same goal in Worker CPU per request, which the dev pipeline does not cap: at most this share of each peer's. */
  peerCpu: 2 / 3,
  /** Minified and gzip bundle, at most this share of the official SDK handler's. */
  bundleShare: 1 / 4,
  /** Start-up (`wrangler check startup` Active), at most this share of the official SDK's. */
  startupShare: 1 / 5,
  /** Start-up (`wrangler check startup` Active), at most this many ms. */
  startupMs: 12,
  /** Start-up, the Worker's own JavaScript in the 50 µs profile, at most this many ms. */
  startupJsMs: 3,
  /** 2026-07-28 tools/call Worker CPU (served by workerd directly), at most this multiple of the bare Worker's. */
  floorCpu: 1.1,
  /** 2025-11-25 tools/call Worker CPU (served by workerd directly), at most this multiple of the Worker → Durable Object floor's. */
  sessionFloorCpu: 1.25,
};

const share = (n) => ({ 0.25: "¼", 0.2: "⅕" })[n] ?? (Math.abs(n - 2 / 3) < 1e-9 ? "⅔" : `${n}×`);

/** Every goal against one bench result: [{ met, text }]. */
export function checkTargets({ stat, rows, direct }) {
  const e = stat.engine;
  const official = stat.official;
  const call = rows.modernCall;
  const x = fmt.ratio;
  return [
    {
      met: call.rps >= BUDGETS.floorRps * rows.floor.rps,
      text: `2026-07-28 tools/call ≥ ${BUDGETS.floorRps}× floor requests/s: ${x(call.rps, rows.floor.rps)}`,
    },
    ...["official", "agents"].map((peer) => ({
      met: call.rps >= BUDGETS.peerRps * rows[peer].rps,
      text: `2026-07-28 tools/call ≥ ${BUDGETS.peerRps}× ${peer === "official" ? "official SDK" : peer}: ${x(call.rps, rows[peer].rps)}`,
    })),
    {
      met: ["official", "agents"].every((peer) => call.cpuUs.worker <= BUDGETS.peerCpu * rows[peer].cpuUs.worker),
      text: `(same goal in Worker CPU per request, under \`wrangler dev\`, where each log line also goes through the inspector) ≤ ${share(BUDGETS.peerCpu)} of each peer's: ${x(call.cpuUs.worker, rows.official.cpuUs.worker)} official, ${x(call.cpuUs.worker, rows.agents.cpuUs.worker)} agents`,
    },
    // The same three goals with no dev proxy in front (workerd direct), where requests/s is not
    // capped by the proxy and no inspector is attached.
    ...(direct
      ? [
          {
            met: direct.modernCall.rps >= BUDGETS.floorRps * direct.floor.rps,
            text: `2026-07-28 tools/call ≥ ${BUDGETS.floorRps}× floor requests/s (workerd direct): ${x(direct.modernCall.rps, direct.floor.rps)}`,
          },
          ...["official", "agents"].map((peer) => ({
            met: direct.modernCall.rps >= BUDGETS.peerRps * direct[peer].rps,
            text: `2026-07-28 tools/call ≥ ${BUDGETS.peerRps}× ${peer === "official" ? "official SDK" : peer} (workerd direct): ${x(direct.modernCall.rps, direct[peer].rps)}`,
          })),
          {
            met: ["official", "agents"].every((peer) => direct.modernCall.cpuUs.worker <= BUDGETS.peerCpu * direct[peer].cpuUs.worker),
            text: `Worker CPU per request ≤ ${share(BUDGETS.peerCpu)} of each peer's (workerd direct): ${x(direct.modernCall.cpuUs.worker, direct.official.cpuUs.worker)} official, ${x(direct.modernCall.cpuUs.worker, direct.agents.cpuUs.worker)} agents`,
          },
        ]
      : []),
    {
      met: e.gzip <= BUDGETS.bundleShare * official.gzip && e.min <= BUDGETS.bundleShare * official.min,
      text: `bundle ≤ ${share(BUDGETS.bundleShare)} of the official SDK handler's: minified ${x(e.min, official.min)}, gzip ${x(e.gzip, official.gzip)}`,
    },
    {
      met: e.checkActive <= BUDGETS.startupShare * official.checkActive,
      text: `start-up ≤ ${share(BUDGETS.startupShare)} of the official SDK's (check startup Active): ${x(e.checkActive, official.checkActive)} (50 µs JS profile: ${x(e.profJs, official.profJs)})`,
    },
    {
      met: e.checkActive <= BUDGETS.startupMs,
      text: `start-up ≤ ${BUDGETS.startupMs} ms (check startup Active): ${e.checkActive.toFixed(1)} ms (50 µs JS profile: ${e.profJs.toFixed(2)} ms)`,
    },
    {
      met: e.profJs <= BUDGETS.startupJsMs,
      text: `start-up JS ≤ ${BUDGETS.startupJsMs} ms (50 µs profile, median): ${e.profJs.toFixed(2)} ms`,
    },
    ...(direct
      ? [
          {
            met: direct.modernCall.cpuUs.worker <= BUDGETS.floorCpu * direct.floor.cpuUs.worker,
            text: `2026-07-28 tools/call Worker CPU ≤ ${BUDGETS.floorCpu}× the bare Worker's (workerd direct): ${x(direct.modernCall.cpuUs.worker, direct.floor.cpuUs.worker)} (${Math.round(direct.modernCall.cpuUs.worker)} µs against ${Math.round(direct.floor.cpuUs.worker)} µs; ${x(direct.modernCallQuiet.cpuUs.worker, direct.floor.cpuUs.worker)} with LOG_REQUESTS=off)`,
          },
          {
            met: direct.legacyCall.cpuUs.worker <= BUDGETS.sessionFloorCpu * direct.floorDo.cpuUs.worker,
            text: `2025-11-25 tools/call Worker CPU ≤ ${BUDGETS.sessionFloorCpu}× the Worker → Durable Object floor's (workerd direct): ${x(direct.legacyCall.cpuUs.worker, direct.floorDo.cpuUs.worker)} (${Math.round(direct.legacyCall.cpuUs.worker)} µs against ${Math.round(direct.floorDo.cpuUs.worker)} µs)`,
          },
        ]
      : []),
  ];
}

/** The fan-out phase (bench/lib/fanout.mjs): one publish to this many listen streams, through the sharded hub. */
export const FANOUT_BUDGETS = {
  listeners: 1000,
  /** The publish as the tool sees it (one call per hub shard), at most this many ms (median). */
  publishMs: 20,
  /** From sending the tools/call to the notification's arrival on every stream: p99 at most this many ms. */
  deliveryP99Ms: 250,
};

/** The fan-out goals, on the row of the most shards measured; none when the phase did not run. */
export function checkFanoutTargets({ fanout }) {
  const rows = fanout?.rows ?? [];
  const shards = Math.max(...rows.map((r) => r.shards));
  const row = rows.find((r) => r.kind === "listen" && r.streams === FANOUT_BUDGETS.listeners && r.shards === shards);
  if (!row) return [];
  const n = FANOUT_BUDGETS.listeners.toLocaleString("en-US");
  return [
    {
      met: row.publishP50 <= FANOUT_BUDGETS.publishMs,
      text: `publishing to ${n} listen streams (HUB_SHARDS=${shards}) returns in ≤ ${FANOUT_BUDGETS.publishMs} ms at the publisher: median ${fmt.ms(row.publishP50)} ms`,
    },
    {
      met: row.p99 <= FANOUT_BUDGETS.deliveryP99Ms && row.missed === 0,
      text: `delivery to ${n} listen streams (HUB_SHARDS=${shards}) p99 ≤ ${FANOUT_BUDGETS.deliveryP99Ms} ms: ${fmt.ms(row.p99)} ms, ${row.missed} missed`,
    },
  ];
}
