/**
 * Helpers for the 2026-07-28 integration tests: building well-formed modern
 * POSTs to /mcp (headers mirrored from the body, the required `_meta`
 * envelope), reading SSE answers, and asserting JSON-RPC errors.
 *
 * Every knob exists so a test can break exactly one rule at a time: pass a
 * header as `null` to drop it, a `_meta` key as `null` to drop it, or
 * `meta: null` to send no `_meta` at all.
 *
 * The wire itself (builders, SSE parsing) lives in test/engine/wire, shared with the
 * load and bench scripts; this file adds the Worker under test and assertions.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import {
  EventStream,
  MODERN_VERSION,
  buildMeta as buildWireMeta,
  buildModernRequest as buildWireRequest,
  webSource,
  type JsonRpcError,
  type ModernOptions,
  type RequestId,
  type RpcMessage,
} from "../wire/index.ts";

export { META, base64Header, freshId, mirroredName, parseEvent, sleep } from "../wire/index.ts";
export type { JsonRpcError, RequestId, RpcMessage } from "../wire/index.ts";

export const MCP_URL = "http://localhost/mcp";
export const VERSION = MODERN_VERSION;
const CLIENT_INFO = { name: "vitest", version: "0.0.0" };

export interface PostOptions extends ModernOptions {
  /** Send this raw body instead of the built message. */
  rawBody?: string;
  /** HTTP method (default POST). */
  httpMethod?: string;
  /** Request URL (default http://localhost/mcp). */
  url?: string;
  signal?: AbortSignal;
}

export const buildMeta = (opts: Pick<PostOptions, "meta" | "capabilities"> = {}) => buildWireMeta({ clientInfo: CLIENT_INFO, ...opts });

/** The request (or notification) a modern client would POST, and the headers it would send. */
export const buildModernRequest = (method: string, params: Record<string, unknown> = {}, opts: PostOptions = {}) =>
  buildWireRequest(method, params, { clientInfo: CLIENT_INFO, ...opts });

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

/**
 * An incremental reader of an SSE response: `next()` resolves with the next
 * JSON-RPC message, or `undefined` when the stream ended or nothing arrived
 * within the wait. Raw text is kept, so tests can check what was on the wire.
 */
export class SseReader {
  private readonly stream: EventStream;

  constructor(response: Response) {
    expect(response.headers.get("Content-Type") ?? "").toMatch(/^text\/event-stream/);
    if (!response.body) throw new Error("SSE response without a body");
    this.stream = new EventStream(webSource(response.body));
  }

  /** Every event seen, for wire-level assertions (e.g. no `id:` lines). */
  get rawEvents() {
    return this.stream.events;
  }
  get raw() {
    return this.stream.raw;
  }
  get ended() {
    return this.stream.ended;
  }

  async next(timeoutMs = 2000): Promise<RpcMessage | undefined> {
    return (await this.stream.nextMessage(timeoutMs))?.message;
  }

  /** Reads until the stream ends (bounded), returning every message. */
  async all(timeoutMs = 5000): Promise<RpcMessage[]> {
    return (await this.stream.rest(timeoutMs)).flatMap((e) => (e.message ? [e.message] : []));
  }

  /** Stops reading and cancels the body (for a listen stream: unsubscribes). */
  cancel(): Promise<void> {
    return this.stream.cancel();
  }
}

/** Reads a whole (finite) SSE response into its JSON-RPC messages. */
export async function readSse(response: Response, timeoutMs = 5000): Promise<RpcMessage[]> {
  return new SseReader(response).all(timeoutMs);
}

/** The JSON-RPC response in an answer's body (`text`): plain JSON, or the last message with an id of an SSE stream. */
export function responseIn(res: Response, text: string): RpcMessage {
  if (!res.headers.get("Content-Type")?.includes("text/event-stream")) return JSON.parse(text) as RpcMessage;
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.includes('"id"'))
    .pop()!;
  return JSON.parse(data.slice(6)) as RpcMessage;
}
