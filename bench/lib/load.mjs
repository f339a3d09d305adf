// Why: `npm run load` and `npm run bench` drive real `wrangler dev` servers with the same
// traffic shapes. This module is their one load generator: a keep-alive HTTP client
// (node:http, no dependency), a bounded closed-loop runner (N requests at concurrency C,
// stopping at N or at a time limit, whichever comes first), latency statistics, an SSE
// parser, and MCP request builders for both revisions — 2026-07-28 (stateless, `_meta`
// envelope + mirrored headers) and 2025-11-25 (initialize → Mcp-Session-Id → calls → DELETE).
//
// Safety: every request goes to a URL the caller got from startWrangler (127.0.0.1);
// `assertLoopback` refuses anything else, and every request has its own timeout.
import http from "node:http";
import { performance } from "node:perf_hooks";

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
};
const CLIENT_INFO = { name: "mcp-bench", version: "0.0.0" };

// ── the HTTP client ─────────────────────────────────────────────────────────

export function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(host)) throw new Error(`load: refusing non-loopback target ${url}`);
}

/**
 * A keep-alive client for one origin. `request()` resolves with the whole body;
 * `open()` resolves at the response head and hands back the live response stream (SSE).
 */
export class Client {
  constructor(url, { connections = 64, timeoutMs = 30_000 } = {}) {
    assertLoopback(url);
    const u = new URL(url);
    this.url = u;
    this.timeoutMs = timeoutMs;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, scheduling: "lifo" });
  }

  /** Starts a request; resolves with the IncomingMessage (body unread). */
  open(method, headers = {}, body) {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname + this.url.search,
          method,
          agent: this.agent,
          headers: body === undefined ? headers : { ...headers, "Content-Length": Buffer.byteLength(body) },
        },
        (res) => resolve(res),
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`timeout after ${this.timeoutMs} ms: ${method} ${headers["Mcp-Method"] ?? ""}`)));
      req.once("error", reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** A whole request: { status, headers, text }. */
  async request(method, headers = {}, body) {
    const res = await this.open(method, headers, body);
    const text = await readAll(res, this.timeoutMs);
    return { status: res.statusCode, headers: res.headers, text };
  }

  close() {
    this.agent.destroy();
  }
}

function readAll(res, timeoutMs) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const timer = setTimeout(() => res.destroy(new Error(`body not complete after ${timeoutMs} ms`)), timeoutMs);
    res.on("data", (c) => chunks.push(c));
    res.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    res.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    res.once("aborted", () => {
      clearTimeout(timer);
      reject(new Error("response aborted"));
    });
  });
}

// ── SSE ─────────────────────────────────────────────────────────────────────

/** Parses one SSE event block; undefined for comment-only blocks. */
export function parseSseBlock(block) {
  let data;
  let id;
  let event;
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") (data ??= []).push(value);
    else if (field === "id") id = value;
    else if (field === "event") event = value;
  }
  if (data === undefined) return undefined;
  const joined = data.join("\n");
  return { id, event, data: joined, message: joined === "" ? undefined : JSON.parse(joined) };
}

/**
 * Reads an SSE response to its end, calling onEvent(ev) for each event as it arrives
 * (ev.message is the parsed JSON-RPC message; priming events have none). Resolves with
 * the number of events; rejects on a broken stream or after timeoutMs.
 */
export function readSse(res, onEvent = () => {}, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let count = 0;
    let failed = false;
    const fail = (e) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      res.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`SSE stream did not end within ${timeoutMs} ms (${count} events)`)), timeoutMs);
    res.setEncoding("utf8");
    res.on("data", (chunk) => {
      buffer += chunk;
      let at;
      // Events end with a blank line; our servers write "\n\n".
      while ((at = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        let ev;
        try {
          ev = parseSseBlock(block);
        } catch (e) {
          return fail(e);
        }
        if (!ev) continue;
        count++;
        try {
          onEvent(ev);
        } catch (e) {
          return fail(e);
        }
      }
    });
    res.once("end", () => {
      if (failed) return;
      clearTimeout(timer);
      resolve(count);
    });
    res.once("error", fail);
    res.once("aborted", () => fail(new Error("SSE response aborted")));
  });
}

/** The JSON-RPC messages of a response, whether it came as JSON or as SSE. */
export async function readMessages(res, timeoutMs = 30_000) {
  const type = String(res.headers["content-type"] ?? "");
  if (type.startsWith("text/event-stream")) {
    const out = [];
    await readSse(res, (ev) => ev.message && out.push(ev.message), timeoutMs);
    return out;
  }
  const text = await readAll(res, timeoutMs);
  return text === "" ? [] : [JSON.parse(text)];
}

// ── MCP request builders ────────────────────────────────────────────────────

let nextId = 1;
export const freshId = () => nextId++;

/** A 2026-07-28 request: { headers, body } with the `_meta` envelope and mirrored headers. */
export function modernRequest(method, params = {}, { id = freshId(), capabilities = {} } = {}) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: { [META.protocolVersion]: MODERN_VERSION, [META.clientCapabilities]: capabilities, [META.clientInfo]: CLIENT_INFO },
    },
  });
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN_VERSION,
    "Mcp-Method": method,
  };
  const name = method === "tools/call" || method === "prompts/get" ? params.name : method === "resources/read" ? params.uri : undefined;
  if (name !== undefined) headers["Mcp-Name"] = name;
  return { headers, body };
}

/** Headers of a 2025-11-25 session request (no session header for initialize). */
export function legacyHeaders(sessionId, { accept = "application/json, text/event-stream", contentType = true } = {}) {
  const h = { Accept: accept };
  if (contentType) h["Content-Type"] = "application/json";
  if (sessionId !== undefined) {
    h["Mcp-Session-Id"] = sessionId;
    h["MCP-Protocol-Version"] = LEGACY_VERSION;
  }
  return h;
}

/** Checks a JSON-RPC response: a result (and not an error, nor a tool error). */
export function expectResult(msg, what) {
  if (!msg || msg.error || msg.result === undefined) throw new Error(`${what}: ${JSON.stringify(msg?.error ?? msg).slice(0, 300)}`);
  if (msg.result.isError) throw new Error(`${what}: tool error ${JSON.stringify(msg.result).slice(0, 300)}`);
  return msg.result;
}

/** One modern request, checked: resolves with the JSON-RPC result (JSON or SSE answer). */
export async function modernCall(client, method, params, opts) {
  const { headers, body } = modernRequest(method, params, opts);
  const res = await client.open("POST", headers, body);
  if (res.statusCode !== 200) throw new Error(`${method}: HTTP ${res.statusCode} ${(await readAll(res, 5000)).slice(0, 300)}`);
  const msgs = await readMessages(res, client.timeoutMs);
  return expectResult(msgs.find((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined)), method);
}

/**
 * A 2025-11-25 session over one Client: initialize (→ Mcp-Session-Id),
 * notifications/initialized, requests, answers to server requests, GET streams
 * (with Last-Event-ID), DELETE.
 */
export class LegacySession {
  constructor(client, { capabilities = {} } = {}) {
    this.client = client;
    this.capabilities = capabilities;
    this.id = undefined;
  }

  async open() {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: freshId(),
      method: "initialize",
      params: { protocolVersion: LEGACY_VERSION, capabilities: this.capabilities, clientInfo: CLIENT_INFO },
    });
    const r = await this.client.request("POST", legacyHeaders(undefined), body);
    if (r.status !== 200) throw new Error(`initialize: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    expectResult(JSON.parse(r.text), "initialize");
    this.id = r.headers["mcp-session-id"];
    if (!this.id) throw new Error("initialize: no Mcp-Session-Id");
    const ack = await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (ack.status !== 202) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
    return this;
  }

  /** POSTs one raw message in the session; whole answer. */
  post(message) {
    return this.client.request("POST", legacyHeaders(this.id), JSON.stringify(message));
  }

  /** POSTs a request; resolves with the live response (JSON or SSE). */
  openRequest(method, params = {}, id = freshId()) {
    return this.client.open("POST", legacyHeaders(this.id), JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  }

  /** A request whose answer needs no client input; resolves with its result. */
  async call(method, params = {}) {
    const id = freshId();
    const res = await this.openRequest(method, params, id);
    if (res.statusCode !== 200) throw new Error(`${method}: HTTP ${res.statusCode} ${(await readAll(res, 5000)).slice(0, 300)}`);
    const msgs = await readMessages(res, this.client.timeoutMs);
    return expectResult(msgs.find((m) => m.id === id), method);
  }

  /**
   * A request that the server answers on an SSE stream, with server-to-client requests
   * on the way: `answer(serverRequest)` returns the result to POST back for each.
   * Resolves with { result, events, serverRequests }.
   */
  async callWithInput(method, params, answer) {
    const id = freshId();
    const res = await this.openRequest(method, params, id);
    if (res.statusCode !== 200) throw new Error(`${method}: HTTP ${res.statusCode} ${(await readAll(res, 5000)).slice(0, 300)}`);
    const type = String(res.headers["content-type"] ?? "");
    if (!type.startsWith("text/event-stream")) throw new Error(`${method}: expected an SSE stream, got ${type}: ${(await readAll(res, 5000)).slice(0, 200)}`);
    let final;
    let serverRequests = 0;
    const posts = [];
    const events = await readSse(
      res,
      (ev) => {
        const m = ev.message;
        if (!m) return;
        if (m.method !== undefined && m.id !== undefined) {
          serverRequests++;
          posts.push(
            this.post({ jsonrpc: "2.0", id: m.id, result: answer(m) }).then((r) => {
              if (r.status !== 202) throw new Error(`answer to ${m.method}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
            }),
          );
        } else if (m.id === id) final = m;
      },
      this.client.timeoutMs,
    );
    await Promise.all(posts);
    return { result: expectResult(final, method), events, serverRequests };
  }

  /** GET the session's stream from an event id; resolves with the live SSE response. */
  async openGet(lastEventId) {
    const h = legacyHeaders(this.id, { accept: "text/event-stream", contentType: false });
    if (lastEventId !== undefined) h["Last-Event-ID"] = lastEventId;
    const res = await this.client.open("GET", h);
    if (res.statusCode !== 200) throw new Error(`GET (Last-Event-ID ${lastEventId}): HTTP ${res.statusCode} ${(await readAll(res, 5000)).slice(0, 300)}`);
    return res;
  }

  async close() {
    const r = await this.client.request("DELETE", legacyHeaders(this.id, { contentType: false }));
    if (r.status !== 200) throw new Error(`DELETE: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  }
}

// ── the bounded runner and statistics ───────────────────────────────────────

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/**
 * Runs `op(i)` for i = 0 … total-1 with `concurrency` workers in a closed loop, and stops
 * at `total` or when `maxMs` has passed (then `truncated` is true). A rejected op counts
 * as an error (the first few messages are kept). Latency is per op, in ms.
 * @returns {Promise<{name: string, done: number, errors: number, errorSamples: string[], elapsedMs: number, rps: number, p50: number, p90: number, p99: number, max: number, truncated: boolean, concurrency: number}>}
 */
export async function runLoad({ name = "", total, concurrency, maxMs = 60_000, op }) {
  if (!(total > 0) || !(concurrency > 0)) throw new Error("runLoad: total and concurrency must be positive");
  const lat = new Float64Array(total);
  let next = 0;
  let done = 0;
  let errors = 0;
  const errorSamples = [];
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const s = performance.now();
      try {
        await op(i);
      } catch (e) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String(e?.message ?? e));
      }
      lat[done++] = performance.now() - s;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const elapsedMs = performance.now() - t0;
  const sorted = lat.subarray(0, done).sort();
  return {
    name,
    done,
    errors,
    errorSamples,
    elapsedMs,
    rps: (done / elapsedMs) * 1000,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[done - 1] ?? NaN,
    truncated: done < total,
    concurrency,
    latencies: sorted,
  };
}

/** Merges several runLoad results of one row (e.g. interleaved rounds) into one. */
export function mergeRuns(name, runs) {
  const all = new Float64Array(runs.reduce((a, r) => a + r.done, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.done;
  }
  all.sort();
  const elapsedMs = runs.reduce((a, r) => a + r.elapsedMs, 0);
  return {
    name,
    done: all.length,
    errors: runs.reduce((a, r) => a + r.errors, 0),
    errorSamples: runs.flatMap((r) => r.errorSamples).slice(0, 5),
    elapsedMs,
    rps: (all.length / elapsedMs) * 1000,
    roundRps: runs.map((r) => r.rps),
    p50: percentile(all, 50),
    p90: percentile(all, 90),
    p99: percentile(all, 99),
    max: all[all.length - 1] ?? NaN,
    truncated: runs.some((r) => r.truncated),
    concurrency: runs[0]?.concurrency,
    latencies: all,
  };
}

export const fmt = {
  rps: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–"),
  ms: (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : "–"),
};

/** One line for a runLoad result. */
export function describe(r) {
  return `${r.name}: ${r.done} ops in ${(r.elapsedMs / 1000).toFixed(2)} s at c=${r.concurrency} → ${fmt.rps(r.rps)}/s, p50 ${fmt.ms(r.p50)} ms, p99 ${fmt.ms(r.p99)} ms, max ${fmt.ms(r.max)} ms, errors ${r.errors}${r.truncated ? " (stopped at the time limit)" : ""}${r.errorSamples.length ? `\n    first errors: ${r.errorSamples.join(" | ")}` : ""}`;
}
