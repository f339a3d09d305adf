// Why: one publish must reach every open `subscriptions/listen` stream and every 2025 session
// quickly, and the publisher must not pay for each of them. This phase opens real listen streams
// and real sessions against `wrangler dev` of the engine test app, has its `announce` tool publish a
// tools list change, and times each delivery from the moment the call was sent, and the publish
// inside the Worker (the tool's own measurement). Once per hub shard count, so one run compares a
// single hub with the sharded one. Every wait is bounded in count and time.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { startWrangler } from "../../test/e2e/server.mjs";
import { openLegacySession, streamHeaders } from "../../test/wire/index.ts";
import { Client, expectOk } from "./http.mjs";
import { clientAddress, modernCall, modernRequest } from "./mcp.mjs";
import { cpuDelta, cpuMs, wranglerProcesses } from "./procstat.mjs";
import { percentile } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";

const NOTIFICATION = "notifications/tools/list_changed";
const ACK = "notifications/subscriptions/acknowledged";

/**
 * A live SSE response that only counts: when each tools list change arrived (performance.now()),
 * and whether the listen acknowledgement came. No parsing beyond that, so 1,000 of them cost the
 * bench little CPU on a machine it shares with the server.
 */
class Arrivals {
  constructor(res) {
    this.res = res;
    this.times = [];
    this.acked = false;
    this.tail = "";
    this.waiters = [];
    res.setEncoding("utf8");
    res.on("data", (chunk) => {
      const now = performance.now();
      const text = this.tail + chunk;
      if (!this.acked && text.includes(ACK)) this.acked = true;
      for (let at = text.indexOf(NOTIFICATION); at !== -1; at = text.indexOf(NOTIFICATION, at + 1)) this.times.push(now);
      this.tail = text.slice(-NOTIFICATION.length); // a name cut in two between chunks
      this.wake();
    });
    res.on("error", () => {});
    res.on("close", () => this.wake());
  }

  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `check()` holds or after `timeoutMs`; returns check(). */
  async until(check, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    while (!check() && !this.res.destroyed && performance.now() < deadline) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return check();
  }

  close() {
    this.res.destroy();
  }
}

/** Resident memory of the Worker's workerd process(es), MiB (Linux; undefined elsewhere). */
function workerRssMiB(roles) {
  try {
    const kib = roles.worker.reduce((a, pid) => a + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]), 0);
    return kib / 1024;
  } catch {
    return undefined;
  }
}

/** Runs `fn(i)` for i < count, `concurrency` at a time. */
async function pool(count, concurrency, fn) {
  const out = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

async function openListener(client, i) {
  const { headers, body } = modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: `fanout-${i}`, headers: { "CF-Connecting-IP": clientAddress(i) } });
  const a = new Arrivals(await expectOk(await client.open("POST", headers, body), "subscriptions/listen"));
  if (!(await a.until(() => a.acked, 30_000))) throw new Error(`listen ${i}: no acknowledgement in 30 s`);
  return a;
}

/**
 * Session i with its GET stream, opened from a client address of its own: the engine holds one
 * user to SESSION_MAX_LIVE live sessions, and these stand for as many users as sessions.
 */
async function openSession(client, i) {
  const address = { "CF-Connecting-IP": clientAddress(i) };
  const { id } = await openLegacySession(async (x) => client.send({ ...x, headers: { ...x.headers, ...address } }), { clientInfo: { name: "mcp-bench-fanout", version: "0.0.0" } });
  return new Arrivals(await expectOk(await client.open("GET", streamHeaders(id, undefined, address)), "GET stream"));
}

/**
 * `rounds` publishes through the announce tool, one at a time: each waits until every stream
 * has it (or `roundMs` passed). Latency of a delivery: from sending the tools/call to the event's
 * arrival. Returns the delivery and publisher statistics.
 */
async function measure(client, streams, { rounds, roundMs, roles }) {
  const rssMiB = roles && workerRssMiB(roles);
  const cpuBefore = cpuMs(roles);
  const base = streams.map((s) => s.times.length);
  const deliveries = [];
  const publishMs = [];
  const callMs = [];
  let missed = 0;
  for (let r = 1; r <= rounds; r++) {
    const t0 = performance.now();
    const result = await modernCall(client, "tools/call", { name: "announce", arguments: {} });
    callMs.push(performance.now() - t0);
    publishMs.push(result.structuredContent.publishMs);
    await Promise.all(streams.map((s, i) => s.until(() => s.times.length >= base[i] + r, Math.max(1, t0 + roundMs - performance.now()))));
    for (const [i, s] of streams.entries()) {
      const at = s.times[base[i] + r - 1];
      if (at === undefined) missed++;
      else deliveries.push(at - t0);
    }
  }
  const cpu = cpuDelta(cpuBefore, cpuMs(roles));
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const d = sorted(deliveries);
  const p = sorted(publishMs);
  const c = sorted(callMs);
  return {
    streams: streams.length,
    rounds,
    deliveries: d.length,
    missed,
    p50: percentile(d, 50),
    p99: percentile(d, 99),
    publishP50: percentile(p, 50),
    publishMax: p.at(-1),
    callP50: percentile(c, 50),
    /** The Worker's workerd (Worker, shards, sessions) CPU per publish, and its memory with the streams open. */
    workerCpuMsPerPublish: cpu ? cpu.worker / rounds : undefined,
    rssMiB,
  };
}

/** The `wrangler dev` the fan-out phase measures at one hub shard count. */
export const fanoutServer = (shards) => ({ config: SERVERS.engine.config, logLevel: "warn", vars: { HUB_SHARDS: String(shards), LOG_REQUESTS: "errors" } });

/** Opens a client on `server` with room for `most` streams, runs `fn(client, roles)`, then closes the client and stops the server. */
async function onServer(server, most, fn) {
  const client = new Client(server.url, { connections: most + 64, timeoutMs: 60_000 });
  const roles = wranglerProcesses(new URL(server.url).port);
  try {
    // One warm-up publish, so no row pays for starting the hub shards.
    await modernCall(client, "tools/call", { name: "announce", arguments: {} });
    await fn(client, roles);
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * For each shard count: `listeners` listen streams (measured at every count in the list, opened
 * cumulatively), then `sessions` 2025 sessions with a GET stream each, on a server of their own.
 * The sessions get their own server because locally the listen streams the bench has just closed
 * stay open in the Worker until `wrangler dev`'s proxy reports them (a failed write, up to a
 * keep-alive later), so a sessions row on the same server would also pay for delivering to them;
 * on Cloudflare a closed stream is reported at once.
 * `servers[shards]`, `sessionServers[shards]`: `wrangler dev`s of fanoutServer(shards) already
 * started (dev-servers.mjs); one is started here when absent.
 */
export async function fanout({ shardCounts, listeners, sessions, rounds, roundMs, servers = {}, sessionServers = {} }, onProgress = () => {}) {
  const rows = [];
  const errors = [];
  /** Measures on `server` (started here when absent) and records a failure as this phase's error. */
  const phase = async (label, server, most, fn) => {
    try {
      await onServer(server ?? (await startWrangler(fanoutServer(label.shards))), most, fn);
    } catch (err) {
      errors.push(`fan-out HUB_SHARDS=${label.shards}, ${label.what}: ${err.message}`);
    }
  };
  const record = (kind, shards, count, openMs, m) => {
    rows.push({ kind, shards, openMs, ...m });
    const what = kind === "listen" ? `${count} listen streams` : `${count} 2025 sessions`;
    onProgress(`  ${what}: delivery p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms; publish in the Worker p50 ${m.publishP50} ms; Worker CPU ${m.workerCpuMsPerPublish} ms/publish, RSS ${m.rssMiB?.toFixed(0)} MiB; ${m.missed} missed`);
    if (m.missed) errors.push(`fan-out HUB_SHARDS=${shards}, ${what}: ${m.missed} deliveries missed`);
  };
  for (const shards of shardCounts) {
    onProgress(`fan-out: HUB_SHARDS=${shards}`);
    if (listeners.length > 0)
      await phase({ shards, what: "listen streams" }, servers[shards], Math.max(...listeners), async (client, roles) => {
        const open = [];
        for (const count of [...listeners].sort((a, b) => a - b)) {
          const t0 = performance.now();
          open.push(...(await pool(count - open.length, 32, (i) => openListener(client, open.length + i))));
          const opened = performance.now() - t0;
          record("listen", shards, count, opened, await measure(client, open, { rounds, roundMs, roles }));
        }
        for (const a of open) a.close();
      });
    if (sessions > 0)
      await phase({ shards, what: "sessions" }, sessionServers[shards], sessions, async (client, roles) => {
        const t0 = performance.now();
        const streams = await pool(sessions, 16, (i) => openSession(client, i));
        const opened = performance.now() - t0;
        record("session", shards, sessions, opened, await measure(client, streams, { rounds, roundMs, roles }));
        for (const a of streams) a.close();
      });
  }
  return { rows, errors };
}
