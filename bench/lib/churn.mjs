// Why: hosted clients open 2025 sessions far faster than they end them (one connector
// re-initializes before nearly every call; another opens about three a minute per user and
// leaves most of them idle). What that costs is the objects and storage left behind, and the
// Worker CPU per turn. Against `wrangler dev` of the engine test app, with its storage in a
// directory of our own, counted on disk once the server has stopped:
//   (a) a connector-like churn: initialize, tools/list, one tools/call, abandoned (no DELETE);
//   (b) a chat-client-like rate: the sessions users open within one idle window (SESSION_IDLE_
//       SECONDS, 1 h) at 3 a minute each, simulated by count, each also opening a GET stream
//       (the worst case: every session then holds state), also abandoned;
//   (c) a plain tools/call on 2025-11-25 (in a session) beside the same call on 2026-07-28,
//       interleaved, at the same concurrency: the Worker CPU each costs.
// Every answer is checked; CPU is the Worker's workerd (which also runs the objects), from /proc.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { openLegacySession, streamHeaders } from "../../test/engine/wire/index.ts";
import { Client, eventsOf, expectOk } from "./http.mjs";
import { LegacySession, checkConvert, clientAddress, convertArgs, modernCall } from "./mcp.mjs";
import { cpuDelta, cpuMs, wranglerProcesses } from "./procstat.mjs";
import { mergeRuns, runLoad } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";

/** New sessions a minute per user of the chat-client pattern, and the idle window they live in. */
export const CHAT_SESSIONS_PER_MINUTE = 3;
export const IDLE_MINUTES = 60;

/**
 * Durable Object storage on disk after the server stopped, per class. Local workerd gives every
 * object it ran a database file, even one that never wrote (with Miniflare's own table of its name);
 * what production bills is what an object stores, so an object counts as holding data when its
 * database has a row of its key-value storage or a table of its own, and its bytes are the pages in use.
 */
function storageOnDisk(dir) {
  const out = {};
  const doRoot = path.join(dir, "v3", "do");
  if (!existsSync(doRoot)) return out;
  for (const ns of readdirSync(doRoot)) {
    const into = { files: 0, holding: 0, bytes: 0 };
    for (const name of readdirSync(path.join(doRoot, ns)).filter((f) => f.endsWith(".sqlite"))) {
      into.files++;
      // Its rows are read as plain objects of numbers and strings.
      const db = /** @type {any} */ (new DatabaseSync(path.join(doRoot, ns, name), { readOnly: true }));
      try {
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all()
          .map((t) => t.name);
        const kvRows = tables.includes("_cf_KV") ? db.prepare("SELECT count(*) AS n FROM _cf_KV").get().n : 0;
        if (kvRows === 0 && !tables.some((t) => !/^(_cf_|sqlite_|__miniflare)/.test(t))) continue;
        const pages = db.prepare("PRAGMA page_count").get().page_count - db.prepare("PRAGMA freelist_count").get().freelist_count;
        into.holding++;
        into.bytes += pages * db.prepare("PRAGMA page_size").get().page_size;
      } finally {
        db.close();
      }
    }
    out[ns.replace(/^.*-/, "")] = into;
  }
  return out;
}

/**
 * storageOnDisk once the stopped server's workerd has let go of its files: the process can outlive
 * wrangler's stop by a moment, and SQLite then reports the database as locked (SQLITE_BUSY, 5).
 */
async function storageWhenReleased(dir) {
  for (let tries = 1; ; tries++) {
    try {
      return storageOnDisk(dir);
    } catch (err) {
      if (err?.errcode !== 5 || tries >= 40) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** One user's session from its address: the wire client's exchange, with CF-Connecting-IP set. */
const from = (client, address) => async (x) => client.send({ ...x, headers: { ...x.headers, "CF-Connecting-IP": address } });

async function turn(client, i, { address, get }) {
  const { id } = await openLegacySession(from(client, address), { clientInfo: { name: "mcp-bench-churn", version: "0.0.0" } });
  const s = new LegacySession(client);
  s.id = id;
  if (get) {
    const res = await expectOk(await client.open("GET", streamHeaders(id)), "GET");
    const primed = await eventsOf(res).next(client.timeoutMs);
    if (primed?.id === undefined) throw new Error(`GET ${i}: no priming event`);
    res.destroy();
  }
  const tools = await s.call("tools/list");
  if (!Array.isArray(tools.tools) || tools.tools.length === 0) throw new Error(`tools/list ${i}: ${JSON.stringify(tools).slice(0, 200)}`);
  checkConvert(i, await s.call("tools/call", convertArgs(i)));
}

/** A fresh `wrangler dev` of the engine test app whose storage is ours: { server, persist }. */
export async function startFreshServer() {
  const persist = mkdtempSync(path.join(os.tmpdir(), "mcp-bench-churn-"));
  try {
    return { server: await startWrangler({ config: SERVERS.engine.config, logLevel: "warn", persistTo: persist }), persist };
  } catch (err) {
    rmSync(persist, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Runs `fn(client, measure)` against a fresh `wrangler dev` whose storage is ours (`fresh`, from
 * startFreshServer, or one started here); stops it, then counts its storage on disk.
 */
async function onFreshServer({ concurrency, rowMaxMs }, errors, fn, fresh) {
  const { server, persist } = fresh ?? (await startFreshServer());
  try {
    const client = new Client(server.url, { connections: concurrency, timeoutMs: 60_000 });
    const procs = wranglerProcesses(new URL(server.origin).port);
    const measure = async (name, total, op) => {
      const before = cpuMs(procs);
      const r = await runLoad({ name, total, concurrency, maxMs: rowMaxMs, op });
      const cpu = cpuDelta(before, cpuMs(procs));
      if (r.errors) errors.push(`${name}: ${r.errors} errors (${r.errorSamples.join(" | ")})`);
      return { ...r, workerCpuMs: cpu?.worker ?? NaN };
    };
    let out;
    try {
      out = await fn(client, measure);
    } finally {
      client.close();
      await server.stop();
    }
    return { ...out, disk: await storageWhenReleased(persist) };
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
}

/** A row as the report shows it: latencies dropped, Worker CPU per operation. */
const row = ({ latencies, workerCpuMs, ...r }) => ({ ...r, workerCpuMsPerOp: workerCpuMs / Math.max(r.done, 1) });

/**
 * @param {{ turns: number, chatUsers: number, calls: number, concurrency: number, rowMaxMs: number, servers?: any[], idleMinutes?: number }} settings
 *   turns: (a)'s sessions; chatUsers: (b)'s users, each opening CHAT_SESSIONS_PER_MINUTE × idleMinutes
 *   (IDLE_MINUTES unless told: --quick simulates a shorter window)
 *   sessions; calls: (c)'s calls per lane; servers (optional): two startFreshServer() results, for (a) and (b).
 * @param {(line: string) => void} [onProgress]
 */
export async function churnPhase(settings, onProgress = () => {}) {
  const { turns, chatUsers, calls, servers = [], idleMinutes = IDLE_MINUTES } = settings;
  const perUser = CHAT_SESSIONS_PER_MINUTE * idleMinutes;
  const chatSessions = chatUsers * perUser;
  onProgress(
    `churn: ${turns} connector-like turns, ${chatSessions} chat-like sessions (${chatUsers} users × ${CHAT_SESSIONS_PER_MINUTE}/min × ${idleMinutes} min), ${calls} calls a lane`,
  );
  const errors = [];
  // (a) all from one address, as a hosted connector's traffic comes from its own ranges.
  const a = await onFreshServer(
    settings,
    errors,
    async (client, measure) => {
      await measure("warm-up", 20, (i) => turn(client, i, { address: "198.19.0.1", get: false }));
      return { connector: row(await measure("connector-like turn", turns, (i) => turn(client, i, { address: "198.19.0.1", get: false }))) };
    },
    servers[0],
  );
  onProgress(
    `  (a) p50 ${a.connector.p50.toFixed(1)} ms, p99 ${a.connector.p99.toFixed(1)} ms, Worker CPU ${a.connector.workerCpuMsPerOp.toFixed(2)} ms a turn; on disk ${JSON.stringify(a.disk)}`,
  );
  // (b) user u opens its sessions from its own address (SESSION_MAX_LIVE counts per user); then (c).
  const b = await onFreshServer(
    settings,
    errors,
    async (client, measure) => {
      const chat = row(
        await measure("chat-like session", chatSessions, (i) =>
          turn(client, i, { address: clientAddress(1 + Math.floor(i / perUser)), get: true }),
        ),
      );
      const session = await new LegacySession(client).open();
      const ops = {
        legacy: async (i) => checkConvert(i, await session.call("tools/call", convertArgs(i))),
        modern: async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i))),
      };
      for (const op of Object.values(ops)) await measure("warm-up", 50, op);
      const runs = { legacy: [], modern: [] };
      for (let round = 0; round < 4; round++) {
        for (const key of round % 2 ? ["modern", "legacy"] : ["legacy", "modern"])
          runs[key].push(await measure(key, Math.ceil(calls / 4), ops[key]));
      }
      const merged = (name, rs) => row({ ...mergeRuns(name, rs), workerCpuMs: rs.reduce((x, r) => x + r.workerCpuMs, 0) });
      return {
        chat,
        legacyCall: merged("2025-11-25 tools/call (in a session)", runs.legacy),
        modernCall: merged("2026-07-28 tools/call", runs.modern),
      };
    },
    servers[1],
  );
  onProgress(
    `  (b) p50 ${b.chat.p50.toFixed(1)} ms, p99 ${b.chat.p99.toFixed(1)} ms, Worker CPU ${b.chat.workerCpuMsPerOp.toFixed(2)} ms a session; on disk ${JSON.stringify(b.disk)}`,
  );
  onProgress(
    `  (c) Worker CPU a call: 2025 ${b.legacyCall.workerCpuMsPerOp.toFixed(2)} ms, 2026 ${b.modernCall.workerCpuMsPerOp.toFixed(2)} ms`,
  );
  return {
    turns,
    chatUsers,
    chatSessions,
    idleMinutes,
    calls,
    concurrency: settings.concurrency,
    connector: a.connector,
    connectorDisk: a.disk,
    chat: b.chat,
    chatDisk: b.disk,
    legacyCall: b.legacyCall,
    modernCall: b.modernCall,
    errors,
  };
}
