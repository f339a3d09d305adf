// Why: MCP Events fan one emit out to every webhook subscription on its topic, behind the emit, from
// the type's shards (docs/scale.md). This phase measures, under real `wrangler dev` (the conformance
// fixture, MCP_DEV=on, a receiver on 127.0.0.1 answering at once), for each count of subscriptions on
// one topic and each layout (one principal, so one shard; many principals, spread over the 8 shards):
// how long the publisher waits for emit_test_event to return; emit → delivered at the receiver, p50
// and p99; the workerd CPU per delivery (the Worker and every object run in that process), from
// /proc as procstat.mjs reads it, from just before the emit until the last delivery arrived; and what
// the platform did, per delivery, counted in `wrangler dev`'s local trace store as the cost phase
// counts an operation (rows written, object requests and wall time, log lines), priced by billOf.
// Each run has a fresh `wrangler dev`, so one run's subscriptions do not weigh on the next.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { freePort, startWrangler } from "../../test/engine/e2e/server.mjs";
import { billOf, countsSince, traceStore } from "./cost.mjs";
import { cpuDelta, cpuMs, wranglerProcesses } from "./procstat.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A webhook receiver on 127.0.0.1 that answers the handshake and records when each delivery arrived. */
async function startReceiver() {
  const port = Number(await freePort());
  const state = { arrivals: [] };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const json = JSON.parse(body);
      if (json.type === "verification")
        return res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ challenge: json.challenge }));
      state.arrivals.push(Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", () => r(undefined)));
  return { port, state, close: () => server.close() };
}

let id = 1;
/** One 2026-07-28 request with a conformance bearer token (its principal: `mcp-conformance-events-<n>` is its own). */
async function rpc(url, method, params, token) {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    Authorization: `Bearer ${token}`,
  };
  if (method === "tools/call") headers["Mcp-Name"] = params.name;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "events-bench", version: "0" },
  };
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params: { ...params, _meta: meta } }),
  });
  const text = await res.text();
  const json = JSON.parse(text.includes("data: ") ? text.split("data: ").pop() : text);
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

/**
 * The trace store's counts since `t0` per delivery, once it holds them all. The collector stores the
 * spans of running invocations in batches, behind them (on a busy machine by seconds): a count read
 * too early misses the shards' rows. So it waits until every delivery's outbound fetch is stored and
 * the counts read the same twice a second apart (60 s at most: `stored` then says how far it got).
 */
async function settledCounts(origin, t0, delivered) {
  const deadline = Date.now() + 60_000;
  let last;
  await sleep(1000);
  for (;;) {
    const [[stored]] = await traceStore(origin, "SELECT COUNT(*) FROM spans WHERE start_ms >= ?1 AND name = 'fetch'", [t0]);
    const counts = await countsSince(origin, t0, delivered || 1);
    const settled = stored >= delivered && last !== undefined && JSON.stringify(counts) === JSON.stringify(last);
    if (settled || Date.now() > deadline) return { counts, stored };
    last = counts;
    await sleep(1000);
  }
}

/**
 * The floor: `n` POSTs from one Durable Object to the same receiver, 25 in flight, nothing else
 * (bench/floor-webhook), under its own `wrangler dev` with the trace collector on as the fixture has
 * it. What the machine costs a delivery, whatever the engine does: workerd CPU per POST, and the
 * time from the call to the last arrival; then the same with one row written after each answer (a
 * storage commit each: the most an acknowledgement can cost; a shard writes the answers of one turn
 * of its event loop in one commit).
 */
async function floorDrill(n, receiver) {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), "mcp-bench-floor-webhook-"));
  const server = await startWrangler({ config: "bench/floor-webhook/wrangler.toml", logLevel: "warn", persistTo });
  try {
    const send = async (count, row) => {
      const url = encodeURIComponent(`http://127.0.0.1:${receiver.port}/floor`);
      const out = await (await fetch(`${server.origin}/?n=${count}&c=25&row=${row ? 1 : 0}&url=${url}`)).json();
      if (out.failed) throw new Error(`floor: ${out.failed} POSTs failed`);
    };
    await send(50, true); // warm: the object, its isolate, the connections
    const procs = wranglerProcesses(new URL(server.origin).port);
    const measure = async (row) => {
      receiver.state.arrivals = [];
      const before = cpuMs(procs);
      const t0 = Date.now();
      await send(n, row);
      const cpu = cpuDelta(before, cpuMs(procs));
      const lat = receiver.state.arrivals.map((a) => a - t0).sort((a, b) => a - b);
      return { cpuMsPerPost: cpu ? cpu.worker / n : undefined, p50: pct(lat, 50), p99: pct(lat, 99), lastMs: lat.at(-1) };
    };
    const plain = await measure(false);
    const withRow = await measure(true);
    return { n, ...plain, withRow };
  } finally {
    await server.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

/** One drill: `n` subscriptions of `principals` principals on one topic, one emit, every delivery awaited. */
async function drill(n, principals, receiver, secret, vars) {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), "mcp-bench-events-"));
  const server = await startWrangler({
    config: "test/engine/conformance/wrangler.toml",
    vars: { MCP_DEV: "on", ...vars },
    logLevel: "warn",
    persistTo,
  });
  try {
    const topic = `bench-${n}-${principals}`;
    for (let i = 0; i < n; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, n - i) }, (_, k) =>
          rpc(
            server.url,
            "events/subscribe",
            {
              name: "test_event",
              arguments: { topic },
              delivery: { mode: "webhook", url: `http://127.0.0.1:${receiver.port}/hook/${n}/${i + k}`, secret },
              cursor: null,
            },
            `mcp-conformance-events-${(i + k) % principals}`,
          ),
        ),
      );
    await sleep(1500); // the subscriptions' first passes settle before the clock starts
    // The floor of the publisher's wait on this machine now: a plain tools/call, the median of three.
    const plain = [];
    for (let i = 0; i < 3; i++) {
      const t = Date.now();
      await rpc(server.url, "tools/call", { name: "test_simple_text", arguments: {} }, "mcp-conformance-events-0");
      plain.push(Date.now() - t);
    }
    plain.sort((a, b) => a - b);
    receiver.state.arrivals = [];
    const procs = wranglerProcesses(new URL(server.origin).port);
    const before = cpuMs(procs);
    const t0 = Date.now();
    await rpc(server.url, "tools/call", { name: "emit_test_event", arguments: { topic, text: "bench" } }, "mcp-conformance-events-0");
    const returnedMs = Date.now() - t0;
    const deadline = Date.now() + 120_000;
    while (receiver.state.arrivals.length < n && Date.now() < deadline) await sleep(20);
    const cpu = cpuDelta(before, cpuMs(procs));
    const lat = receiver.state.arrivals.map((a) => a - t0).sort((a, b) => a - b);
    const { counts, stored } = await settledCounts(server.origin, t0, lat.length);
    // The emit as the Worker saw it (the tool's span: the RPC to the type's object included) and as the object did.
    const spans = await traceStore(
      server.origin,
      "SELECT name, MAX(duration_ms) FROM spans WHERE start_ms >= ?1 AND name IN ('tools/call emit_test_event', 'events/emit test_event') GROUP BY name",
      [t0],
    );
    const span = (name) => spans.find((r) => r[0] === name)?.[1];
    return {
      n,
      principals,
      returnedMs,
      plainCallMs: plain[1],
      toolSpanMs: span("tools/call emit_test_event"),
      emitSpanMs: span("events/emit test_event"),
      delivered: lat.length,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      lastMs: lat.at(-1),
      cpuMsPerDelivery: cpu ? cpu.worker / Math.max(lat.length, 1) : undefined,
      counts,
      /** Outbound fetches the trace store held when it was counted (every delivery's, unless the collector fell behind). */
      stored,
      // An object's CPU is billed as its duration (in the counts), not as Worker CPU; each attempt
      // also writes an MCP_METRICS point where the binding is set (the fixture sets none).
      bill: billOf({ ...counts, requestLines: counts.requestLines + 1 }, 0),
    };
  } finally {
    await server.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

/**
 * The events phase: each count of subscriptions in each layout.
 * @param {{counts?: number[], layouts?: number[], vars?: Record<string, string>}} options layouts: how many principals hold the subscriptions; vars: the server's (an A/B of a setting)
 * @param {(line: string) => void} [onProgress]
 * @returns {Promise<{runs: any[], floor: any, errors: string[]}>}
 */
export async function eventsPhase({ counts = [100, 1000], layouts = [1, 100], vars = {} } = {}, onProgress = () => {}) {
  const receiver = await startReceiver();
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const runs = [];
  const errors = [];
  let floor;
  try {
    floor = await floorDrill(Math.max(...counts), receiver);
    onProgress(
      `  floor: ${floor.n} plain POSTs from one object, 25 in flight: ${floor.cpuMsPerPost?.toFixed(2)} ms CPU a POST, p50 ${floor.p50} ms, p99 ${floor.p99} ms; with a row written after each answer: ${floor.withRow.cpuMsPerPost?.toFixed(2)} ms CPU, p99 ${floor.withRow.p99} ms`,
    );
    for (const n of counts)
      for (const principals of layouts) {
        const run = await drill(n, Math.min(principals, n), receiver, secret, vars);
        runs.push(run);
        if (run.delivered < n) errors.push(`events: ${run.delivered}/${n} delivered (${principals} principals)`);
        onProgress(
          `  ${n} subscriptions, ${run.principals} principal(s): publisher waited ${run.returnedMs} ms (a plain call ${run.plainCallMs} ms; the tool's span ${run.toolSpanMs} ms, the emit's ${run.emitSpanMs} ms); delivered ${run.delivered}/${n}, p50 ${run.p50} ms, p99 ${run.p99} ms; ${run.cpuMsPerDelivery?.toFixed(2)} ms CPU, ${run.counts.rowsWritten.toFixed(2)} rows written (${run.stored}/${run.delivered} fetches in the trace store), $${run.bill.total.toFixed(2)} a million (a delivery)`,
        );
      }
  } finally {
    receiver.close();
  }
  return { runs, floor, errors };
}

/**
 * The phase's section of bench/RESULTS.md.
 * @param {{runs: any[], floor?: any}} events
 */
export function eventsSection({ runs, floor }) {
  const head = [
    "## MCP Events webhooks (bench/lib/events.mjs)",
    "",
    "One emit to N webhook subscriptions of one type on one topic, under `wrangler dev` (the conformance fixture, a receiver on 127.0.0.1 answering at once), with the subscriptions held by one principal (one shard) or by 100 (spread over the 8 shards). The publisher's wait is from sending the `tools/call` to its answer, beside a plain `tools/call` just before it (this machine's floor at that moment) and the emit's span in the type's object; CPU is the workerd process's (the Worker and every object) per delivery; rows written, object requests and log events per delivery are counted in the trace store, and priced as in the cost section (each attempt's MCP_METRICS point included).",
    "",
    "| subscriptions | principals | publisher waits (a plain call) | the emit's span | p50 / p99 | CPU per delivery | rows written per delivery | a million deliveries |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const rows = runs.map(
    (r) =>
      `| ${r.n.toLocaleString("en-US")} | ${r.principals} | ${r.returnedMs} ms (${r.plainCallMs} ms) | ${r.emitSpanMs ?? "–"} ms | ${r.p50} / ${r.p99} ms | ${r.cpuMsPerDelivery?.toFixed(2)} ms | ${r.counts.rowsWritten.toFixed(2)} | $${r.bill.total.toFixed(2)} |`,
  );
  const last = runs.at(-1);
  const b = last?.bill;
  const bill = b
    ? [
        "",
        `A million deliveries at ${last.n.toLocaleString("en-US")} subscriptions and ${last.principals} principal(s), by item: $${b.rowsWritten.toFixed(2)} of SQLite rows written (${last.counts.rowsWritten.toFixed(2)} a delivery), $${b.logs.toFixed(2)} of Workers Logs events (${(last.counts.consoleLines + last.counts.invocations).toFixed(3)} a delivery: the passes' lines and the alarms' own records), $${b.analytics.toFixed(2)} of Analytics Engine points (one an attempt, with \`MCP_METRICS\` bound), $${(b.doRequests + b.doDuration).toFixed(2)} of Durable Object requests and duration (${last.counts.doRequests.toFixed(3)} requests a delivery), $${(b.workerRequests + b.workerCpu).toFixed(2)} of Worker requests: $${b.total.toFixed(2)} in all.`,
      ]
    : [];
  const f = floor
    ? [
        "",
        `The floor beside them (bench/floor-webhook, its own \`wrangler dev\` with the trace collector on): ${floor.n.toLocaleString("en-US")} plain POSTs of a small body from one Durable Object to the same receiver, 25 in flight, with no signature, log line or span: ${floor.cpuMsPerPost?.toFixed(2)} ms of workerd CPU a POST, the last arriving after ${floor.lastMs} ms (p50 ${floor.p50} / p99 ${floor.p99} ms); the same with one SQLite row written after each answer (its own storage commit each, the most an acknowledgement can cost; a shard writes the answers of one turn of its event loop in one commit): ${floor.withRow.cpuMsPerPost?.toFixed(2)} ms a POST, p99 ${floor.withRow.p99} ms. That much of each row is this machine's \`wrangler dev\`, whatever the engine does.`,
      ]
    : [];
  return [...head, ...rows, ...bill, ...f].join("\n");
}
