/**
 * Helpers for the 2026-07-28 integration tests: building well-formed modern
 * POSTs to /mcp (headers mirrored from the body, the required `_meta`
 * envelope), reading SSE answers, and asserting JSON-RPC errors.
 *
 * Every knob exists so a test can break exactly one rule at a time: pass a
 * header as `null` to drop it, a `_meta` key as `null` to drop it, or
 * `meta: null` to send no `_meta` at all.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

export const MCP_URL = "http://localhost/mcp";
export const VERSION = "2026-07-28";

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

export type RequestId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: any;
}

/** A JSON-RPC message as the tests read it (loosely typed on purpose). */
export interface RpcMessage {
  jsonrpc: "2.0";
  id?: RequestId | null;
  method?: string;
  params?: any;
  result?: any;
  error?: JsonRpcError;
}

export interface PostOptions {
  /** Extra or replacement headers; `null` removes a header the helper would set. */
  headers?: Record<string, string | null>;
  /** Extra or replacement `_meta` keys; `null` removes a key; `meta: null` sends no `_meta`. */
  meta?: Record<string, unknown> | null;
  /** Shorthand for `_meta["io.modelcontextprotocol/clientCapabilities"]`. */
  capabilities?: Record<string, unknown>;
  /** The JSON-RPC id (default: a fresh one); `null` sends a notification (no id). */
  id?: RequestId | null;
  /** Send this raw body instead of the built message. */
  rawBody?: string;
  /** HTTP method (default POST). */
  httpMethod?: string;
  /** Request URL (default http://localhost/mcp). */
  url?: string;
  signal?: AbortSignal;
}

let nextId = 1;
export const freshId = (): number => nextId++;

/** The `Mcp-Name` a method mirrors: params.name for tools/call and prompts/get, params.uri for resources/read. */
export function mirroredName(method: string, params: Record<string, unknown>): string | undefined {
  const v = method === "tools/call" || method === "prompts/get" ? params.name : method === "resources/read" ? params.uri : undefined;
  return typeof v === "string" ? v : undefined;
}

/** `=?base64?…?=` encoding of a header value (UTF-8). */
export function base64Header(value: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(value)) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

export function buildMeta(opts: Pick<PostOptions, "meta" | "capabilities"> = {}): Record<string, unknown> | undefined {
  if (opts.meta === null) return undefined;
  const meta: Record<string, unknown> = {
    [META.protocolVersion]: VERSION,
    [META.clientCapabilities]: opts.capabilities ?? {},
    [META.clientInfo]: { name: "vitest", version: "0.0.0" },
  };
  for (const [k, v] of Object.entries(opts.meta ?? {})) {
    if (v === null) delete meta[k];
    else meta[k] = v;
  }
  return meta;
}

/** The request (or notification) a modern client would POST, and the headers it would send. */
export function buildModernRequest(method: string, params: Record<string, unknown> = {}, opts: PostOptions = {}) {
  const meta = buildMeta(opts);
  const fullParams = meta === undefined ? { ...params } : { ...params, _meta: meta };
  const id = opts.id === undefined ? freshId() : opts.id;
  const message: Record<string, unknown> = { jsonrpc: "2.0", method, params: fullParams };
  if (id !== null) message.id = id;

  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": method,
  };
  const name = mirroredName(method, params);
  if (name !== undefined) headers["Mcp-Name"] = name;
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    // Header names are case-insensitive: replace whatever spelling the helper used.
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    if (v !== null) headers[k] = v;
  }
  return { id, message, headers };
}

/** POSTs one modern (2026-07-28) request through the Worker's default export. */
export async function modernPost(method: string, params: Record<string, unknown> = {}, opts: PostOptions = {}): Promise<Response> {
  const { message, headers } = buildModernRequest(method, params, opts);
  return SELF.fetch(opts.url ?? MCP_URL, {
    method: opts.httpMethod ?? "POST",
    headers,
    body: opts.rawBody ?? JSON.stringify(message),
    signal: opts.signal,
  });
}

/** POSTs a request that must be answered with plain JSON, and returns the JSON-RPC response. */
export async function modernCall(method: string, params: Record<string, unknown> = {}, opts: PostOptions = {}): Promise<RpcMessage> {
  const res = await modernPost(method, params, opts);
  expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  return (await res.json()) as RpcMessage;
}

/** The `result` of a successful JSON answer; fails the test on an error answer. */
export async function modernResult(method: string, params: Record<string, unknown> = {}, opts: PostOptions = {}): Promise<any> {
  const res = await modernPost(method, params, opts);
  expect(res.status).toBe(200);
  const body = (await res.json()) as RpcMessage;
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result;
}

/** Asserts an HTTP status plus a JSON-RPC error body with `code` (and the echoed id when given). */
export async function expectRpcError(res: Response, status: number, code: number, id?: RequestId | null): Promise<JsonRpcError> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  const body = JSON.parse(text) as RpcMessage;
  expect(body.jsonrpc).toBe("2.0");
  expect(body.result).toBeUndefined();
  expect(body.error?.code, text).toBe(code);
  expect(typeof body.error?.message).toBe("string");
  if (id !== undefined) expect(body.id).toEqual(id);
  return body.error!;
}

/** Parses one SSE event block into its fields; comments (`:`) are skipped. */
export function parseEvent(block: string): { event?: string; data: string; id?: string } | undefined {
  let data: string[] | undefined;
  let event: string | undefined;
  let id: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") (data ??= []).push(value);
    else if (field === "event") event = value;
    else if (field === "id") id = value;
  }
  return data === undefined ? undefined : { event, data: data.join("\n"), id };
}

/**
 * An incremental reader of an SSE response: `next()` resolves with the next
 * JSON-RPC message, or `undefined` when the stream ended or nothing arrived
 * within the wait. Raw text is kept, so tests can check what was on the wire.
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  readonly queue: RpcMessage[] = [];
  /** Every event field block seen, for wire-level assertions (e.g. no `id:` lines). */
  readonly rawEvents: { event?: string; data: string; id?: string }[] = [];
  raw = "";
  ended = false;

  constructor(response: Response) {
    expect(response.headers.get("Content-Type") ?? "").toMatch(/^text\/event-stream/);
    if (!response.body) throw new Error("SSE response without a body");
    this.reader = response.body.getReader();
  }

  async next(timeoutMs = 2000): Promise<RpcMessage | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      this.pending ??= this.reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
      const chunk = await Promise.race([this.pending, timeout]);
      if (timer !== undefined) clearTimeout(timer);
      if (chunk === "timeout") return undefined;
      this.pending = undefined;
      if (chunk.done) {
        this.ended = true;
        this.feed(this.decoder.decode(), true);
      } else this.feed(this.decoder.decode(chunk.value, { stream: true }), false);
    }
    return this.queue.shift();
  }

  /** Reads until the stream ends (bounded), returning every message. */
  async all(timeoutMs = 5000): Promise<RpcMessage[]> {
    const out: RpcMessage[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = await this.next(Math.max(1, deadline - Date.now()));
      if (m === undefined) break;
      out.push(m);
    }
    if (!this.ended) throw new Error(`SSE stream did not end within ${timeoutMs} ms; got ${JSON.stringify(out)}`);
    return out;
  }

  /** Stops reading and cancels the body (for a listen stream: unsubscribes). */
  async cancel(): Promise<void> {
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
      const ev = parseEvent(block);
      if (!ev) continue;
      this.rawEvents.push(ev);
      if (ev.data !== "") this.queue.push(JSON.parse(ev.data) as RpcMessage);
    }
  }
}

/** Reads a whole (finite) SSE response into its JSON-RPC messages. */
export async function readSse(response: Response, timeoutMs = 5000): Promise<RpcMessage[]> {
  return new SseReader(response).all(timeoutMs);
}

/** A small sleep, for letting a publish travel through the hub. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
