/**
 * Helpers for the 2025-11-25 (legacy, session) integration tests: opening a
 * session with `initialize`, POSTing requests, notifications and responses
 * with its Mcp-Session-Id, opening GET streams (with Last-Event-ID), and an
 * SSE reader that keeps every event with its id — the priming event (an id
 * and empty data) included — because ids are what a 2025 client resumes with.
 */
import { SELF, env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { HubNotification } from "../../src/objects/contracts";
import { MCP_URL, freshId, parseEvent, type RequestId, type RpcMessage } from "./mcp";

export const LEGACY_VERSION = "2025-11-25";

export const CLIENT_INFO = { name: "vitest-legacy", version: "0.0.0" };

export interface LegacySession {
  id: string;
  protocolVersion: string;
  /** The InitializeResult. */
  init: any;
}

export interface LegacyPostOptions {
  /** Extra or replacement headers; `null` removes one the helper would set. */
  headers?: Record<string, string | null>;
  /** The JSON-RPC id (default: a fresh one). */
  id?: RequestId;
  signal?: AbortSignal;
}

function headersFor(sessionId: string | undefined, extra: Record<string, string | null> = {}, accept = "application/json, text/event-stream"): Record<string, string> {
  const h: Record<string, string> = { "Content-Type": "application/json", Accept: accept, "MCP-Protocol-Version": LEGACY_VERSION };
  if (sessionId !== undefined) h["Mcp-Session-Id"] = sessionId;
  for (const [k, v] of Object.entries(extra)) {
    for (const existing of Object.keys(h)) if (existing.toLowerCase() === k.toLowerCase()) delete h[existing];
    if (v !== null) h[k] = v;
  }
  return h;
}

/** POSTs one raw JSON-RPC message (request, notification or response) to /mcp. */
export function postMessage(sessionId: string | undefined, message: object, opts: LegacyPostOptions = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, { method: "POST", headers: headersFor(sessionId, opts.headers), body: JSON.stringify(message), signal: opts.signal });
}

/** POSTs the initialize request (no session header, no version header), as a 2025 client opens a session. */
export function postInitialize(params: Record<string, unknown> = {}, opts: LegacyPostOptions = {}): Promise<Response> {
  const message = {
    jsonrpc: "2.0",
    id: opts.id ?? freshId(),
    method: "initialize",
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO, ...params },
  };
  return SELF.fetch(MCP_URL, {
    method: "POST",
    headers: headersFor(undefined, { "MCP-Protocol-Version": null, ...opts.headers }),
    body: JSON.stringify(message),
  });
}

/** Opens a session: initialize, then notifications/initialized (unless `initialized: false`). */
export async function openSession(opts: { protocolVersion?: string; capabilities?: Record<string, unknown>; initialized?: boolean } = {}): Promise<LegacySession> {
  const res = await postInitialize({ protocolVersion: opts.protocolVersion ?? LEGACY_VERSION, capabilities: opts.capabilities ?? {} });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const id = res.headers.get("Mcp-Session-Id");
  expect(id, "initialize must assign a session id").toBeTruthy();
  const body = JSON.parse(text) as RpcMessage;
  const session: LegacySession = { id: id!, protocolVersion: body.result.protocolVersion, init: body.result };
  if (opts.initialized !== false) {
    const ack = await notify(session.id, "notifications/initialized");
    expect(ack.status).toBe(202);
  }
  return session;
}

/** POSTs a request in a session; returns the raw HTTP response (JSON or SSE). */
export function request(sessionId: string | undefined, method: string, params: Record<string, unknown> = {}, opts: LegacyPostOptions = {}): Promise<Response> {
  return postMessage(sessionId, { jsonrpc: "2.0", id: opts.id ?? freshId(), method, params }, opts);
}

/** POSTs a request that must be answered with plain JSON; returns the JSON-RPC response. */
export async function call(sessionId: string, method: string, params: Record<string, unknown> = {}, opts: LegacyPostOptions = {}): Promise<RpcMessage> {
  const res = await request(sessionId, method, params, opts);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  return JSON.parse(text) as RpcMessage;
}

/** The `result` of a request answered with plain JSON; fails the test on an error. */
export async function result(sessionId: string, method: string, params: Record<string, unknown> = {}, opts: LegacyPostOptions = {}): Promise<any> {
  const body = await call(sessionId, method, params, opts);
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result;
}

/** POSTs a notification in a session. */
export function notify(sessionId: string, method: string, params?: Record<string, unknown>, opts: LegacyPostOptions = {}): Promise<Response> {
  return postMessage(sessionId, params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, opts);
}

/** POSTs the client's answer to a server-to-client request. */
export function respond(sessionId: string, id: RequestId, answer: { result: unknown } | { error: { code: number; message: string } }): Promise<Response> {
  return postMessage(sessionId, { jsonrpc: "2.0", id, ...answer });
}

/** GET /mcp: the standalone stream, or a resumption with Last-Event-ID. */
export function getStream(sessionId: string | undefined, lastEventId?: string, headers: Record<string, string | null> = {}): Promise<Response> {
  const h = headersFor(sessionId, { "Content-Type": null, ...headers }, "text/event-stream");
  if (lastEventId !== undefined) h["Last-Event-ID"] = lastEventId;
  return SELF.fetch(MCP_URL, { method: "GET", headers: h });
}

export function deleteSession(sessionId: string, headers: Record<string, string | null> = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, { method: "DELETE", headers: headersFor(sessionId, { "Content-Type": null, ...headers }) });
}

/** The session Durable Object behind a session id. */
export const sessionStub = (sessionId: string) => env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sessionId));

/** Puts an in-memory marker on the running instance, to prove later that an eviction really dropped it. */
export async function markInstance(stub: ReturnType<typeof sessionStub>): Promise<void> {
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as { testMarker?: boolean }).testMarker = true;
  });
}

/** Whether the running instance still carries the marker (false: it is a new instance). */
export function instanceMarked(stub: ReturnType<typeof sessionStub>): Promise<boolean> {
  return runInDurableObject(stub, (instance) => (instance as unknown as { testMarker?: boolean }).testMarker === true);
}

/** Publishes a notification through the global hub, as `notify` does from a tool or a cron trigger. */
export const publish = (n: HubNotification) => env.MCP_HUB.get(env.MCP_HUB.idFromName("global")).publish(n);

/** One SSE event: its id (if any), raw data, and the JSON-RPC message when data is not empty. */
export interface SseEvent {
  id?: string;
  data: string;
  message?: RpcMessage;
}

/** Splits an event id "<stream>-<seq>" into its parts. */
export function splitId(id: string | undefined): { stream: string; seq: number } {
  const m = /^(.+)-(\d+)$/.exec(id ?? "");
  if (!m) throw new Error(`not a per-stream event id: ${id}`);
  return { stream: m[1]!, seq: Number(m[2]) };
}

/** Every open reader, so a test file can cancel them all in afterEach. */
const openReaders = new Set<EventReader>();
export async function cancelAllReaders(): Promise<void> {
  await Promise.all([...openReaders].map((r) => r.cancel()));
}

/**
 * An incremental SSE reader at event granularity, with bounded waits:
 * `next()` resolves with the next event, or undefined when the stream ended
 * or nothing arrived in time (check `ended` to tell which).
 */
export class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  private readonly queue: SseEvent[] = [];
  /** Every event seen so far, in order. */
  readonly events: SseEvent[] = [];
  raw = "";
  ended = false;

  constructor(response: Response) {
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type") ?? "").toMatch(/^text\/event-stream/);
    if (!response.body) throw new Error("SSE response without a body");
    this.reader = response.body.getReader();
    openReaders.add(this);
  }

  async next(timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      this.pending ??= this.reader.read();
      let timer: any;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
      const chunk = await Promise.race([this.pending, timeout]);
      clearTimeout(timer);
      if (chunk === "timeout") return undefined;
      this.pending = undefined;
      if (chunk.done) {
        this.ended = true;
        openReaders.delete(this);
        this.feed(this.decoder.decode(), true);
      } else this.feed(this.decoder.decode(chunk.value, { stream: true }), false);
    }
    return this.queue.shift();
  }

  /** The next event that carries a message (skips the priming event). */
  async nextMessage(timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (!e || e.message) return e;
    }
  }

  /** Reads until a message matches, bounded; returns it (undefined on timeout or end). */
  async until(match: (m: RpcMessage) => boolean, timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.nextMessage(Math.max(1, deadline - Date.now()));
      if (!e || match(e.message!)) return e;
    }
  }

  /** Reads every remaining event until the stream ends; throws if it does not end in time. */
  async rest(timeoutMs = 5000): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (!e) break;
      out.push(e);
    }
    if (!this.ended) throw new Error(`SSE stream did not end within ${timeoutMs} ms; got ${JSON.stringify(out)}`);
    return out;
  }

  /** Stops reading and cancels the body (a dropped connection; not a cancellation in 2025-11-25). */
  async cancel(): Promise<void> {
    openReaders.delete(this);
    if (this.ended) return;
    this.ended = true;
    await this.reader.cancel().catch(() => {});
  }

  private feed(text: string, final: boolean): void {
    this.raw += text;
    this.buffer += text;
    const blocks = this.buffer.split(/\r?\n\r?\n/);
    this.buffer = final ? "" : blocks.pop()!;
    for (const block of blocks) {
      const parsed = parseEvent(block);
      if (!parsed) continue;
      const { id, data } = parsed;
      const ev: SseEvent = { id, data, ...(data === "" ? {} : { message: JSON.parse(data) as RpcMessage }) };
      this.events.push(ev);
      this.queue.push(ev);
    }
  }
}

/** Opens an SSE reader on a response (asserting it is SSE). */
export const sse = (res: Response) => new EventReader(res);

export { sleep } from "./mcp";
