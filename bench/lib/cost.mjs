// Why: a team choosing this template asks what it costs to run, all in, not only its CPU. This
// phase measures, for each operation, everything Cloudflare bills it for, and prices a million of
// them (bench/lib/prices.mjs):
//   - what each operation makes the platform do, counted from `wrangler dev`'s local trace store
//     (the spans the runtime records for every invocation and every SQL statement): Worker
//     requests, Durable Object requests and their wall time, WebSocket messages into objects,
//     SQLite rows written (each SQL statement's, plus one for each setAlarm() call: Cloudflare's
//     Durable Objects pricing page bills an alarm set as a row written, in a footnote to its SQLite
//     storage table; the statements' spans do not show it, the storage call's own span does),
//     console log lines (the engine's request lines among them, each also an
//     Analytics Engine data point when MCP_METRICS is bound) and invocations (each a Workers Logs
//     event of its own);
//   - the CPU of the workerd process per operation, served straight from workerd (direct.mjs) in
//     interleaved rounds, where no dev proxy and no trace collector share the process; it includes
//     the objects' CPU, which Cloudflare bills as duration instead, so the Worker CPU line is an upper bound.
// The 2026-07-28 call is measured with spans on (the default) and with TRACING=off beside it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startWrangler } from "../../test/engine/e2e/server.mjs";
import { Client, expectOk } from "./http.mjs";
import { LegacySession, checkConvert, clientAddress, convertArgs, modernCall, modernRequest } from "./mcp.mjs";
import { convertOn, interleavedRows } from "./phases.mjs";
import { pidsCpuMs } from "./procstat.mjs";
import { PRICES, PRICES_AS_OF } from "./prices.mjs";
import { runLoad } from "./runner.mjs";
import { SERVERS } from "./servers.mjs";
import { AT_DEFAULTS, startDirect } from "./direct.mjs";
import { ROOT } from "../../scripts/lib/procs.mjs";

const TASKS = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Listen streams open while `announce` publishes: a delivery's share of the publish is 1/LISTENERS. */
const LISTENERS = 20;

/** One quick_task from tools/call to completed, polled every 25 ms as the tasks phase does. */
async function oneTask(client, i) {
  const created = await modernCall(client, "tools/call", { name: "quick_task", arguments: { n: i } }, TASKS);
  if (typeof created.taskId !== "string") throw new Error(`quick_task ${i}: not a task`);
  for (let polls = 0; polls < 400; polls++) {
    await sleep(25);
    const task = await modernCall(client, "tasks/get", { taskId: created.taskId }, TASKS);
    if (task.status === "completed") return;
    if (task.status !== "working") throw new Error(`quick_task ${i}: ${task.status}`);
  }
  throw new Error(`quick_task ${i}: not completed`);
}

/** LISTENERS open `subscriptions/listen` streams on a client of their own, each read to its end; close() ends them. */
async function openListeners(url) {
  const client = new Client(url, { connections: LISTENERS, timeoutMs: 600_000 });
  for (let i = 0; i < LISTENERS; i++) {
    const { headers, body } = modernRequest(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { id: `cost-${i}`, headers: { "CF-Connecting-IP": clientAddress(i) } },
    );
    const res = await expectOk(await client.open("POST", headers, body), "subscriptions/listen");
    res.on("error", () => {});
    res.resume();
  }
  await sleep(500); // their sockets reach the hub
  return { close: () => client.close() };
}

/** The operations, each a function of (client, i, sessions) on the server it names; `per`: deliveries per op. */
const OPERATIONS = {
  modernCall: { server: "engine", label: "2026-07-28 `tools/call`", op: (c, i) => convertOn(c)(i) },
  legacyCall: {
    server: "engine",
    label: "2025-11-25 session `tools/call`",
    op: async (c, i, sessions) => checkConvert(i, await sessions[i % sessions.length].call("tools/call", convertArgs(i))),
  },
  task: { server: "engine", label: "a task (create, tasks/get every 25 ms, completed)", op: (c, i) => oneTask(c, i) },
  delivery: {
    server: "engine",
    label: `a listen delivery (1/${LISTENERS} of a publish)`,
    per: LISTENERS,
    op: async (c) => void (await modernCall(c, "tools/call", { name: "announce", arguments: {} })),
  },
  official: { server: "official", label: "official SDK v2 `tools/call`", op: (c, i) => convertOn(c)(i) },
  agents: { server: "agents", label: "agents `tools/call`", op: (c, i) => convertOn(c)(i) },
};

/** Rows of a read-only query of a `wrangler dev`'s trace store. */
export async function traceStore(origin, sql, params = []) {
  const res = await fetch(`${origin}/cdn-cgi/local/explorer/api/local/observability/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sql, params }),
  });
  const body = await res.json();
  if (!body.success) throw new Error(`trace store: ${JSON.stringify(body).slice(0, 300)}`);
  return body.result.rows;
}

const ATTR = (name) => `json_extract(attributes, '$."${name}"')`;
/** What the platform did for the invocations that started at or after t0. */
const COUNTS = `
  WITH inv AS (SELECT * FROM spans WHERE start_ms >= ?1 AND ${ATTR("faas.trigger")} IS NOT NULL)
  SELECT
    (SELECT COUNT(*) FROM inv WHERE parent_id IS NULL AND ${ATTR("faas.trigger")} = 'http'),
    (SELECT COUNT(*) FROM inv WHERE NOT (parent_id IS NULL AND ${ATTR("faas.trigger")} = 'http') AND ${ATTR("faas.trigger")} != 'websocket'),
    (SELECT COUNT(*) FROM inv WHERE ${ATTR("faas.trigger")} = 'websocket'),
    (SELECT COALESCE(SUM(MAX(duration_ms, 1)), 0) FROM inv WHERE NOT (parent_id IS NULL AND ${ATTR("faas.trigger")} = 'http')),
    (SELECT COALESCE(SUM(${ATTR("cloudflare.durable_object.response.rows_written")}), 0) FROM spans
       WHERE start_ms >= ?1 AND name = 'durable_object_storage_exec' AND ${ATTR("db.query.text")} NOT LIKE '%__miniflare%')
      + (SELECT COUNT(*) FROM spans WHERE start_ms >= ?1 AND name = 'durable_object_storage_setAlarm'),
    (SELECT COUNT(*) FROM spans WHERE start_ms >= ?1 AND name = 'durable_object_storage_setAlarm'),
    (SELECT COUNT(*) FROM logs WHERE ts_ms >= ?1 AND message LIKE '[%'),
    (SELECT COUNT(*) FROM logs WHERE ts_ms >= ?1 AND message LIKE '%mcp\\":\\"request%'),
    (SELECT COUNT(*) FROM inv),
    (SELECT COUNT(*) FROM spans WHERE start_ms >= ?1 AND ${ATTR("mcp.method.name")} IS NOT NULL)`;
const FIELDS = [
  "workerRequests",
  "doRequests",
  "wsMessages",
  "doWallMs",
  "rowsWritten",
  "alarmsSet",
  "consoleLines",
  "requestLines",
  "invocations",
  "mcpSpans",
];

/** What the platform did since `t0` in a `wrangler dev`'s trace store, divided by `n`: the counts billOf prices. */
export async function countsSince(origin, t0, n) {
  const [row] = await traceStore(origin, COUNTS, [t0]);
  return Object.fromEntries(FIELDS.map((f, i) => [f, row[i] / n]));
}

/** Counts per operation from `wrangler dev`'s trace store: `n` of each, one after another. */
async function countPerOp(ops, n, onProgress) {
  const counts = {};
  for (const server of [...new Set(Object.values(ops).map((o) => o.server))]) {
    const persistTo = mkdtempSync(path.join(os.tmpdir(), "mcp-bench-cost-"));
    const dev = await startWrangler({ config: SERVERS[server].config, logLevel: "warn", persistTo, vars: { MAX_TASKS_IN_FLIGHT: "1000" } });
    const client = new Client(dev.url, { connections: 8, timeoutMs: 30_000 });
    try {
      const sessions = server === "engine" ? [await new LegacySession(client).open()] : [];
      for (const [key, o] of Object.entries(ops)) {
        if (o.server !== server) continue;
        const listeners = key === "delivery" ? await openListeners(dev.url) : undefined;
        await o.op(client, 0, sessions); // warm: the first of a kind creates what later ones reuse
        await sleep(300);
        const t0 = Date.now();
        for (let i = 1; i <= n; i++) await o.op(client, i, sessions);
        listeners?.close();
        await sleep(2000); // the collector stores an invocation when it ends
        const [row] = await traceStore(dev.origin, COUNTS, [t0]);
        counts[key] = Object.fromEntries(FIELDS.map((f, i) => [f, row[i] / n / (o.per ?? 1)]));
        onProgress(`  ${key}: ${FIELDS.map((f) => `${f} ${counts[key][f].toFixed(2)}`).join(", ")}`);
      }
    } finally {
      client.close();
      await dev.stop();
      rmSync(persistTo, { recursive: true, force: true });
    }
  }
  return counts;
}

/** workerd CPU per operation (µs), served by Miniflare straight from workerd, in interleaved rounds. */
async function cpuPerOp(ops, { tmpDir, rounds, perRound, warmup }, onProgress) {
  // At the template's defaults (direct.mjs AT_DEFAULTS: no MCP_METRICS dataset among them), with
  // room for the tasks row's many tasks.
  const unlimited = { ...AT_DEFAULTS, vars: { MAX_TASKS_IN_FLIGHT: "1000", MAX_TASKS_RETAINED: "100000" } };
  // The 2026 call on servers of its own, with spans and without, alike but for TRACING: the engine
  // that serves the sessions, the tasks and the open listen streams costs more per call (here about
  // a third more), which would be booked to the spans. Twice: untraced (no trace collector, as a
  // request that [observability.traces] samples out), and traced, each span recorded by the local
  // trace collector, whose CPU in the same process is booked to the spans too (on Cloudflare the
  // platform records them); with a second server without spans, whose difference from the first is
  // the noise of this run.
  const noSpans = { ...unlimited, vars: { ...unlimited.vars, TRACING: "off" } };
  /** @type {Record<string, [string, object]>} */
  const configs = {
    engine: [SERVERS.engine.config, unlimited],
    engineCall: [SERVERS.engine.config, unlimited],
    engineNoSpans: [SERVERS.engine.config, noSpans],
    engineTraced: [SERVERS.engine.config, { ...unlimited, unsafeObservability: true }],
    engineTracedNoSpans: [SERVERS.engine.config, { ...noSpans, unsafeObservability: true }],
    engineTracedNoSpans2: [SERVERS.engine.config, { ...noSpans, unsafeObservability: true }],
    official: [SERVERS.official.config, {}],
    agents: [SERVERS.agents.config, {}],
  };
  const servers = {};
  const clients = {};
  let listeners;
  try {
    for (const [key, [config, overrides]] of Object.entries(configs)) {
      servers[key] = await startDirect(config, path.join(tmpDir, `cost-${key}`), overrides);
      clients[key] = new Client(servers[key].url, { connections: 64, timeoutMs: 60_000 });
    }
    const sessions = await Promise.all(Array.from({ length: 16 }, () => new LegacySession(clients.engine).open()));
    listeners = await openListeners(servers.engine.url);
    const serverOf = (key, o) => (key === "modernCall" ? "engineCall" : o.server);
    const rowOps = Object.fromEntries(
      Object.entries(ops).map(([k, o]) => [k, { server: serverOf(k, o), op: (i) => o.op(clients[serverOf(k, o)], i, sessions) }]),
    );
    for (const [key, server] of [
      ["modernCallNoSpans", "engineNoSpans"],
      ["tracedCall", "engineTraced"],
      ["tracedNoSpans", "engineTracedNoSpans"],
      ["tracedNoSpans2", "engineTracedNoSpans2"],
    ])
      rowOps[key] = { server, op: convertOn(clients[server]) };
    // The task and the publish are slower per op: fewer of them, at a lower concurrency.
    const heavy = new Set(["task", "delivery"]);
    for (const [k, o] of Object.entries(rowOps))
      await runLoad({ name: "warm-up", total: heavy.has(k) ? 8 : warmup, concurrency: 8, maxMs: 30_000, op: o.op });
    const rows = {};
    for (const [keys, per, concurrency] of [
      [Object.keys(rowOps).filter((k) => !heavy.has(k)), perRound, 16],
      [[...heavy], Math.max(10, Math.ceil(perRound / 20)), 4],
    ]) {
      const picked = Object.fromEntries(keys.map((k) => [k, rowOps[k]]));
      Object.assign(
        rows,
        await interleavedRows(
          {
            ops: picked,
            rounds,
            perRound: per,
            concurrency,
            rowMaxMs: 120_000,
            cpuOf: (server) => ({ worker: pidsCpuMs(servers[server].pids) }),
          },
          onProgress,
        ),
      );
    }
    return rows;
  } finally {
    listeners?.close();
    for (const c of Object.values(clients)) c.close();
    for (const sv of Object.values(servers)) await sv.stop();
  }
}

/**
 * What a Worker's wrangler.toml turns on that the bill depends on: Workers Logs' invocation records
 * (`[observability.logs] invocation_logs`, on unless set to false) and the Analytics Engine metrics
 * (an `MCP_METRICS` binding). The engine's operations are priced at the template's defaults (the
 * root wrangler.toml, which a fork starts from), whatever the engine test app binds for its tests.
 * @param {string} config a wrangler.toml, relative to the project
 */
export function billedSettings(config) {
  const toml = readFileSync(path.join(ROOT, config), "utf8");
  const logs = /\[observability\.logs\]([^[]*)/.exec(toml)?.[1] ?? "";
  return {
    invocationLogs: !/^\s*invocation_logs\s*=\s*false/m.test(logs),
    metrics: /^\s*binding\s*=\s*"MCP_METRICS"/m.test(toml),
  };
}

/** The settings each server's operations are billed at: the engine at the template's defaults, a peer at its own. */
const BILLED = {
  engine: billedSettings("wrangler.toml"),
  official: billedSettings(SERVERS.official.config),
  agents: billedSettings(SERVERS.agents.config),
};

/** The bill for a million of one operation, by line, from its counts, its CPU and what its Worker turns on. */
export function billOf(c, cpuUs, settings = { invocationLogs: true, metrics: true }) {
  const p = PRICES;
  const lines = {
    workerRequests: c.workerRequests * p.workerRequest,
    workerCpu: (cpuUs / 1000) * p.workerCpuMs,
    doRequests: (c.doRequests + c.wsMessages / p.doWebSocketMessagesPerRequest) * p.doRequest,
    doDuration: (c.doWallMs / 1000) * p.doMemoryGb * p.doGbSecond,
    rowsWritten: c.rowsWritten * p.sqliteRowWritten,
    analytics: settings.metrics ? c.requestLines * p.analyticsDataPoint : 0,
    logs: (c.consoleLines + (settings.invocationLogs ? c.invocations : 0)) * p.logEvent,
  };
  const perMillion = Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, v * 1e6]));
  return { ...perMillion, total: Object.values(perMillion).reduce((a, b) => a + b, 0) };
}

/**
 * The cost phase: counts and CPU per operation, and the bill for a million of each.
 * @returns {Promise<{pricesAsOf: string, billed: Record<string, {invocationLogs: boolean, metrics: boolean}>, ops: Record<string, {label: string, counts: object, cpuUs: number, bill: object}>, prices: object, spans: {on: number, off: number, control: number, untracedOn: number, untracedOff: number, rounds: number, perRound: number}, errors: string[]}>}
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function costPhase({ tmpDir, rounds = 3, perRound = 300, warmup = 100, countEach = 10 }, onProgress = () => {}) {
  onProgress(
    `cost: what each operation makes the platform do (wrangler dev trace store, ${countEach} of each), then workerd CPU per operation (Miniflare, ${rounds} interleaved rounds)`,
  );
  const counts = await countPerOp(OPERATIONS, countEach, onProgress);
  const rows = await cpuPerOp(OPERATIONS, { tmpDir, rounds, perRound, warmup }, onProgress);
  const errors = Object.values(rows)
    .filter((r) => r.errors)
    .map((r) => `${r.name}: ${r.errors} errors (${r.errorSamples.join(" | ")})`);
  /** @type {Record<string, any>} */
  const ops = {};
  for (const [key, o] of Object.entries(OPERATIONS)) {
    const cpuUs = rows[key].cpuUs.worker / (o.per ?? 1);
    ops[key] = { label: o.label, counts: counts[key], cpuUs, bill: billOf(counts[key], cpuUs, BILLED[o.server]) };
  }
  return {
    pricesAsOf: PRICES_AS_OF,
    prices: PRICES,
    billed: BILLED,
    ops,
    spans: {
      on: rows.tracedCall.cpuUs.worker,
      off: rows.tracedNoSpans.cpuUs.worker,
      control: rows.tracedNoSpans2.cpuUs.worker,
      untracedOn: rows.modernCall.cpuUs.worker,
      untracedOff: rows.modernCallNoSpans.cpuUs.worker,
      rounds,
      perRound,
    },
    errors,
  };
}
