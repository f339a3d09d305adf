// Why: one publish must reach every open `subscriptions/listen` stream and every 2025 session
// quickly, and the publisher must not pay for each of them. This phase opens real listen streams
// and real sessions against `wrangler dev` of the engine test app, has its `announce` tool publish a
// tools list change, and times each delivery from the moment the call was sent, and the publish
// inside the Worker (the tool's own measurement). Once per hub shard count, so one run compares a
// single hub with the sharded one. Every wait is bounded in count and time.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { openLegacySession, streamHeaders } from "../../test/engine/wire/index.ts";
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
  const { headers, body } = modernRequest(
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    { id: `fanout-${i}`, headers: { "CF-Connecting-IP": clientAddress(i) } },
  );
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
  const { id } = await openLegacySession(async (x) => client.send({ ...x, headers: { ...x.headers, ...address } }), {
    clientInfo: { name: "mcp-bench-fanout", version: "0.0.0" },
  });
  return new Arrivals(await expectOk(await client.open("GET", streamHeaders(id, undefined, address)), "GET stream"));
}

/** A publish through the engine's announce tool: resolves with the tool's own measurement of it (ms). */
const announce = (client) => async () =>
  (await modernCall(client, "tools/call", { name: "announce", arguments: {} })).structuredContent.publishMs;

/** The floor's notification: the engine's tools list change as a listen stream gets it. */
const FLOOR_FRAME = JSON.stringify({
  jsonrpc: "2.0",
  method: NOTIFICATION,
  params: { _meta: { "io.modelcontextprotocol/subscriptionId": "fanout-0" } },
});

/** Stream i of the fan-out floor (bench/floor-fanout), from its own client address like the engine's. */
async function openFloorListener(client, i) {
  const a = new Arrivals(
    await expectOk(
      await client.open("POST", { "Content-Type": "application/json", "CF-Connecting-IP": clientAddress(i) }, "{}"),
      "floor stream",
    ),
  );
  if (!(await a.until(() => a.acked, 30_000))) throw new Error(`floor stream ${i}: no acknowledgement in 30 s`);
  return a;
}

/** A publish through the floor: checks that its shards sent to `count` streams, and resolves with the Worker's own measurement (ms). */
const floorPublish = (client, count) => async () => {
  const r = await client.request("POST", { "Content-Type": "application/json" }, FLOOR_FRAME);
  const answer = r.status === 200 ? JSON.parse(r.text) : {};
  if (answer.sent !== count()) throw new Error(`floor publish: HTTP ${r.status}, sent to ${answer.sent} of ${count()} streams`);
  return answer.publishMs;
};

/**
 * Publishes to `streams` one at a time (`publish()`, which resolves with the publisher's own
 * measurement in ms): each round waits until every stream has it (or `roundMs` passed). Latency of
 * a delivery: from sending the publishing request to the event's arrival. The Worker's CPU counts
 * only during its own rounds, so rounds of two servers can alternate.
 */
class Publishes {
  constructor(streams, { roundMs, roles, publish }) {
    this.streams = streams;
    this.roundMs = roundMs;
    this.roles = roles;
    this.publish = publish;
    this.rssMiB = roles && workerRssMiB(roles);
    this.base = streams.map((s) => s.times.length);
    this.rounds = 0;
    this.cpuMs = 0;
    this.deliveries = [];
    this.publishMs = [];
    this.callMs = [];
    this.missed = 0;
  }

  async round() {
    const r = ++this.rounds;
    const { streams, base } = this;
    const cpuBefore = cpuMs(this.roles);
    const t0 = performance.now();
    const ms = await this.publish();
    this.callMs.push(performance.now() - t0);
    this.publishMs.push(ms);
    await Promise.all(
      streams.map((s, i) => s.until(() => s.times.length >= base[i] + r, Math.max(1, t0 + this.roundMs - performance.now()))),
    );
    const cpu = cpuDelta(cpuBefore, cpuMs(this.roles));
    this.cpuMs = cpu && this.cpuMs !== undefined ? this.cpuMs + cpu.worker : undefined;
    for (const [i, s] of streams.entries()) {
      const at = s.times[base[i] + r - 1];
      if (at === undefined) this.missed++;
      else this.deliveries.push(at - t0);
    }
  }

  result() {
    const sorted = (xs) => [...xs].sort((a, b) => a - b);
    const d = sorted(this.deliveries);
    const p = sorted(this.publishMs);
    const c = sorted(this.callMs);
    return {
      streams: this.streams.length,
      rounds: this.rounds,
      deliveries: d.length,
      missed: this.missed,
      p50: percentile(d, 50),
      p99: percentile(d, 99),
      publishP50: percentile(p, 50),
      publishMax: p.at(-1),
      callP50: percentile(c, 50),
      /** The Worker's workerd (Worker, shards, sessions) CPU per publish, and its memory with the streams open. */
      workerCpuMsPerPublish: this.cpuMs === undefined ? undefined : this.cpuMs / this.rounds,
      rssMiB: this.rssMiB,
    };
  }
}

/** `rounds` rounds of each of `publishes`, alternating (the first, the second, the first…). */
async function alternate(publishes, rounds) {
  for (let r = 0; r < rounds; r++) for (const p of publishes) await p.round();
  return publishes.map((p) => p.result());
}

/** The `wrangler dev` the fan-out phase measures at one hub shard count. */
export const fanoutServer = (shards) => ({
  config: SERVERS.engine.config,
  logLevel: "warn",
  vars: { HUB_SHARDS: String(shards), LOG_REQUESTS: "errors" },
});

/** The fan-out floor's `wrangler dev` (bench/floor-fanout) at one hub shard count. */
export const fanoutFloorServer = (shards) => ({
  config: "bench/floor-fanout/wrangler.toml",
  logLevel: "warn",
  vars: { HUB_SHARDS: String(shards) },
});

/** A server's client with room for `most` streams, and its processes; `done()` closes the client and stops the server. */
function clientOf(server, most) {
  const client = new Client(server.url, { connections: most + 64, timeoutMs: 60_000 });
  const roles = wranglerProcesses(new URL(server.url).port);
  return {
    client,
    roles,
    done: async () => {
      client.close();
      await server.stop();
    },
  };
}

/**
 * For each shard count: `listeners` listen streams (measured at every count in the list, opened
 * cumulatively) beside the same counts on the fan-out floor (bench/floor-fanout: bare hub objects
 * and SSE writes, no MCP), their publishes alternating; then `sessions` 2025 sessions with a GET
 * stream each, on a server of their own.
 * The sessions get their own server because locally the listen streams the bench has just closed
 * stay open in the Worker until `wrangler dev`'s proxy reports them (a failed write, up to a
 * keep-alive later), so a sessions row on the same server would also pay for delivering to them;
 * on Cloudflare a closed stream is reported at once.
 * `servers`, `sessionServers`, `floorServers` ([shards] each): `wrangler dev`s of fanoutServer(shards)
 * (fanoutFloorServer for the floor) already started (dev-servers.mjs); one is started here when absent.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function fanout(
  { shardCounts, listeners, sessions, rounds, roundMs, servers = {}, sessionServers = {}, floorServers = {} },
  onProgress = () => {},
) {
  const rows = [];
  const errors = [];
  const counts = [...listeners].sort((a, b) => a - b);
  const record = (kind, shards, count, openMs, m) => {
    rows.push({ kind, shards, openMs, ...m });
    const what = { listen: `${count} listen streams`, session: `${count} 2025 sessions`, floor: `floor, ${count} streams` }[kind];
    onProgress(
      `  ${what}: delivery p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms; publish in the Worker p50 ${m.publishP50} ms; Worker CPU ${m.workerCpuMsPerPublish} ms/publish, RSS ${m.rssMiB?.toFixed(0)} MiB; ${m.missed} missed`,
    );
    if (m.missed) errors.push(`fan-out HUB_SHARDS=${shards}, ${what}: ${m.missed} deliveries missed`);
  };
  /** Runs `fn` on the given servers (started here when absent), stopping them after; a failure is this phase's error. */
  const phase = async (shards, what, wanted, fn) => {
    const held = [];
    try {
      for (const [server, start, most] of wanted) held.push(clientOf(server ?? (await startWrangler(start(shards))), most));
      await fn(...held);
    } catch (err) {
      errors.push(`fan-out HUB_SHARDS=${shards}, ${what}: ${err.message}`);
    } finally {
      for (const h of held) await h.done();
    }
  };
  const measured = { roundMs };
  for (const shards of shardCounts) {
    onProgress(`fan-out: HUB_SHARDS=${shards}`);
    if (counts.length > 0)
      await phase(
        shards,
        "listen streams and their floor",
        [
          [servers[shards], fanoutServer, counts.at(-1)],
          [floorServers[shards], fanoutFloorServer, counts.at(-1)],
        ],
        async (engine, floor) => {
          const publisher = new Client(new URL("/mcp/publish", floor.client.url).href, { connections: 4, timeoutMs: 60_000 });
          try {
            // One warm-up publish each, so no row pays for starting the hub shards.
            await announce(engine.client)();
            await floorPublish(publisher, () => 0)();
            const open = { listen: [], floor: [] };
            const openers = { listen: (i) => openListener(engine.client, i), floor: (i) => openFloorListener(floor.client, i) };
            for (const count of counts) {
              const openMs = {};
              for (const kind of ["listen", "floor"]) {
                const t0 = performance.now();
                open[kind].push(...(await pool(count - open[kind].length, 32, (i) => openers[kind](open[kind].length + i))));
                openMs[kind] = performance.now() - t0;
              }
              const [l, f] = await alternate(
                [
                  new Publishes(open.listen, { ...measured, roles: engine.roles, publish: announce(engine.client) }),
                  new Publishes(open.floor, { ...measured, roles: floor.roles, publish: floorPublish(publisher, () => open.floor.length) }),
                ],
                rounds,
              );
              record("listen", shards, count, openMs.listen, l);
              record("floor", shards, count, openMs.floor, f);
            }
            for (const a of [...open.listen, ...open.floor]) a.close();
          } finally {
            publisher.close();
          }
        },
      );
    if (sessions > 0)
      await phase(shards, "sessions", [[sessionServers[shards], fanoutServer, sessions]], async ({ client, roles }) => {
        await announce(client)();
        const t0 = performance.now();
        const streams = await pool(sessions, 16, (i) => openSession(client, i));
        const openMs = performance.now() - t0;
        const [m] = await alternate([new Publishes(streams, { ...measured, roles, publish: announce(client) })], rounds);
        record("session", shards, sessions, openMs, m);
        for (const a of streams) a.close();
      });
  }
  return { rows, errors };
}
