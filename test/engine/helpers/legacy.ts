/**
 * Helpers for the 2025-11-25 (legacy, session) integration tests: opening a
 * session with `initialize`, POSTing requests, notifications and responses
 * with its Mcp-Session-Id, opening GET streams (with Last-Event-ID), and an
 * SSE reader that keeps every event with its id — the priming event (an id
 * and empty data) included — because ids are what a 2025 client resumes with.
 *
 * The wire (headers, messages, the session opening steps, SSE) lives in
 * test/engine/wire, shared with the load and bench scripts.
 */
import { SELF, env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import {
  EventStream,
  deleteHeaders,
  initializeHeaders,
  initializeMessage,
  legacyHeaders,
  notificationMessage,
  openLegacySession,
  requestMessage,
  streamHeaders,
  webSource,
  type HeaderOverrides,
  type OpenOptions,
  type OpenedSession,
  type RequestId,
  type RpcMessage,
  type Send,
} from "../wire/index.ts";
import { MCP_URL } from "./mcp";
import { until } from "./until";
import { sessionStub as objectStub } from "../../../src/engine/objects/addresses";

export { LEGACY_VERSION, splitId, type SseEvent } from "../wire/index.ts";
export { sleep } from "./mcp";

export const CLIENT_INFO = { name: "vitest-legacy", version: "0.0.0" };

export type LegacySession = OpenedSession;

export interface LegacyPostOptions {
  /** Extra or replacement headers; `null` removes one the helper would set. */
  headers?: HeaderOverrides;
  /** The JSON-RPC id (default: a fresh one). */
  id?: RequestId;
  signal?: AbortSignal;
}

/** POSTs one raw JSON-RPC message (request, notification or response) to /mcp. */
export function postMessage(sessionId: string | undefined, message: object, opts: LegacyPostOptions = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, {
    method: "POST",
    headers: legacyHeaders(sessionId, opts.headers),
    body: JSON.stringify(message),
    signal: opts.signal,
  });
}

/** POSTs the initialize request (no session header, no version header), as a 2025 client opens a session. */
export function postInitialize(params: Record<string, unknown> = {}, opts: LegacyPostOptions = {}): Promise<Response> {
  const message = initializeMessage(params, { id: opts.id, clientInfo: CLIENT_INFO });
  return SELF.fetch(MCP_URL, { method: "POST", headers: initializeHeaders(opts.headers), body: JSON.stringify(message) });
}

/** The Worker under test as the wire client's one HTTP exchange. */
const send: Send = async ({ method, headers, body }) => {
  const res = await SELF.fetch(MCP_URL, { method, headers, body });
  return { status: res.status, header: (name) => res.headers.get(name), text: await res.text() };
};

/** Opens a session: initialize, then notifications/initialized (unless `initialized: false`). */
export function openSession(opts: Omit<OpenOptions, "clientInfo"> = {}): Promise<LegacySession> {
  return openLegacySession(send, { clientInfo: CLIENT_INFO, ...opts });
}

/** POSTs a request in a session; returns the raw HTTP response (JSON or SSE). */
export function request(
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  opts: LegacyPostOptions = {},
): Promise<Response> {
  return postMessage(sessionId, requestMessage(method, params, opts.id), opts);
}

/** POSTs a request that must be answered with plain JSON; returns the JSON-RPC response. */
export async function call(
  sessionId: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: LegacyPostOptions = {},
): Promise<RpcMessage> {
  const res = await request(sessionId, method, params, opts);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  return JSON.parse(text) as RpcMessage;
}

/** The `result` of a request answered with plain JSON; fails the test on an error. */
export async function result(
  sessionId: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: LegacyPostOptions = {},
): Promise<any> {
  const body = await call(sessionId, method, params, opts);
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result;
}

/** POSTs a notification in a session. */
export function notify(
  sessionId: string,
  method: string,
  params?: Record<string, unknown>,
  opts: LegacyPostOptions = {},
): Promise<Response> {
  return postMessage(sessionId, notificationMessage(method, params), opts);
}

/** POSTs the client's answer to a server-to-client request. */
export function respond(
  sessionId: string,
  id: RequestId,
  answer: { result: unknown } | { error: { code: number; message: string } },
): Promise<Response> {
  return postMessage(sessionId, { jsonrpc: "2.0", id, ...answer });
}

/** GET /mcp: the standalone stream, or a resumption with Last-Event-ID. */
export function getStream(sessionId: string | undefined, lastEventId?: string, headers: HeaderOverrides = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, { method: "GET", headers: streamHeaders(sessionId, lastEventId, headers) });
}

export function deleteSession(sessionId: string, headers: HeaderOverrides = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, { method: "DELETE", headers: deleteHeaders(sessionId, headers) });
}

/** The session Durable Object behind a session id. */
export const sessionStub = (sessionId: string) => objectStub(env, sessionId);

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

/** Waits until the session's running instance holds request `id` as a running call (notifications/cancelled then finds it). */
export const untilRunning = (sessionId: string, id: string | number) =>
  until(async () =>
    expect(
      await runInDurableObject(sessionStub(sessionId), (instance) =>
        (instance as unknown as { running: Map<string, unknown> }).running.has(JSON.stringify(id)),
      ),
    ).toBe(true),
  );

/** Waits until a stream of the session is closed: its call finished, and every event it had is in the log. */
export const untilClosed = (sessionId: string, stream: string) =>
  until(async () =>
    expect(
      await runInDurableObject(sessionStub(sessionId), (_i, state) =>
        state.storage.sql.exec("SELECT 1 FROM streams WHERE id = ? AND closed_at IS NOT NULL", stream).toArray(),
      ),
    ).toHaveLength(1),
  );

/** Publishes a notification through every hub shard, as `notify` does from a tool or a cron trigger. */
export { publish } from "./hub";

/** Every reader opened since the last cancelAllReaders, so a test file can hang them all up in afterEach. */
const openReaders = new Set<EventReader>();
export async function cancelAllReaders(): Promise<void> {
  const readers = [...openReaders];
  openReaders.clear();
  await Promise.all(readers.map((r) => r.cancel()));
}

/**
 * An incremental SSE reader at event granularity, with bounded waits:
 * `next()` resolves with the next event, or undefined when the stream ended
 * or nothing arrived in time (check `ended` to tell which). Cancelling it is
 * a dropped connection, not a cancellation, in 2025-11-25.
 */
export class EventReader extends EventStream {
  constructor(response: Response) {
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type") ?? "").toMatch(/^text\/event-stream/);
    if (!response.body) throw new Error("SSE response without a body");
    super(webSource(response.body));
    openReaders.add(this);
  }
}

/** Opens an SSE reader on a response (asserting it is SSE). */
export const sse = (res: Response) => new EventReader(res);
