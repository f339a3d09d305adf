// Why: a 2025-11-25 session is a Durable Object and a 2026-07-28 listen stream holds a socket on
// the hub; what each costs in memory decides how many one host can keep. This opens a bounded
// number of each against the engine test app served straight from workerd (direct.mjs) and reads
// the workerd process's resident memory before and after: the delta per session or stream.
// Linux only (/proc/<pid>/status VmRSS).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sleep } from "../../scripts/lib/procs.mjs";
import { Client, eventsOf, expectOk } from "./http.mjs";
import { LegacySession, clientAddress, modernRequest } from "./mcp.mjs";
import { SERVERS } from "./servers.mjs";
import { startDirect } from "./direct.mjs";

const rssKiB = (pids) =>
  pids.reduce((a, pid) => a + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN), 0);

/** Opens a listen stream and waits for its acknowledgement; returns the live response. */
let listeners = 0;
async function openListen(client) {
  const { headers, body } = modernRequest(
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    { headers: { "CF-Connecting-IP": clientAddress(++listeners) } },
  );
  const res = await expectOk(await client.open("POST", headers, body), "subscriptions/listen");
  const first = await eventsOf(res).next(30_000);
  if (first?.message?.method !== "notifications/subscriptions/acknowledged")
    throw new Error(`listen: first event ${JSON.stringify(first).slice(0, 200)}`);
  return res;
}

/**
 * Resident memory per idle session and per open listen stream, over `count` of each.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function memoryPerConnection({ tmpDir, built = {}, count = 200, settleMs = 3000 }, onProgress = () => {}) {
  onProgress(`memory: ${count} idle 2025-11-25 sessions, then ${count} open subscriptions/listen streams (workerd RSS)`);
  // Rate limits off: Miniflare simulates them locally, and this counts only sessions and streams.
  const server = await startDirect(SERVERS.engine.config, path.join(tmpDir, "memory-engine"), { ratelimits: {} }, built.engine?.min);
  const client = new Client(server.url, { connections: count + 8, timeoutMs: 60_000 });
  const streams = [];
  const sessions = [];
  try {
    // Warm both paths first, so the first-use costs of code and pools are not booked to the counts.
    const warm = await Promise.all(Array.from({ length: 16 }, () => new LegacySession(client).open()));
    await Promise.all(warm.map((s) => s.close()));
    const warmStreams = await Promise.all(Array.from({ length: 16 }, () => openListen(client)));
    for (const s of warmStreams) s.destroy();
    await sleep(settleMs);
    const base = rssKiB(server.pids);
    for (let i = 0; i < count; i += 20)
      sessions.push(...(await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => new LegacySession(client).open()))));
    await sleep(settleMs);
    const withSessions = rssKiB(server.pids);
    for (let i = 0; i < count; i += 20)
      streams.push(...(await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => openListen(client)))));
    await sleep(settleMs);
    const withStreams = rssKiB(server.pids);
    const out = {
      count,
      baseMiB: base / 1024,
      sessionKiB: (withSessions - base) / count,
      streamKiB: (withStreams - withSessions) / count,
    };
    onProgress(
      `  RSS ${(base / 1024).toFixed(1)} MiB → ${(withSessions / 1024).toFixed(1)} MiB with ${count} sessions → ${(withStreams / 1024).toFixed(1)} MiB with ${count} listen streams: ${out.sessionKiB.toFixed(1)} KiB per session, ${out.streamKiB.toFixed(1)} KiB per stream`,
    );
    return out;
  } finally {
    for (const s of streams) s.destroy();
    await Promise.allSettled(sessions.map((s) => s.close()));
    client.close();
    await server.stop();
  }
}
