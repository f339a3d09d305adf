/**
 * 2025-11-25 session traffic as a stateful client sends it: `initialize`
 * (no session header, no version header), then `notifications/initialized`,
 * then every message with `Mcp-Session-Id` and `MCP-Protocol-Version`; GET
 * streams with `Last-Event-ID`; DELETE to end the session.
 */
import { ACCEPT_BOTH, freshId, resultOf, withHeaders, type HeaderOverrides, type RequestId } from "./rpc.ts";

export const LEGACY_VERSION = "2025-11-25";

export const LEGACY_CLIENT = { name: "mcp-wire-client", version: "0.0.0" };

/** Headers of a POST in a session (`sessionId` undefined: none sent). */
export function legacyHeaders(
  sessionId: string | undefined,
  overrides: HeaderOverrides = {},
  accept = ACCEPT_BOTH,
): Record<string, string> {
  const base: Record<string, string> = { "Content-Type": "application/json", Accept: accept, "MCP-Protocol-Version": LEGACY_VERSION };
  if (sessionId !== undefined) base["Mcp-Session-Id"] = sessionId;
  return withHeaders(base, overrides);
}

/** Headers of the initialize POST: a client does not know the version (nor a session) yet. */
export const initializeHeaders = (overrides: HeaderOverrides = {}) =>
  legacyHeaders(undefined, { "MCP-Protocol-Version": null, ...overrides });

/** Headers of GET /mcp: the standalone stream, or a resumption after `lastEventId`. */
export function streamHeaders(
  sessionId: string | undefined,
  lastEventId?: string,
  overrides: HeaderOverrides = {},
): Record<string, string> {
  const headers = legacyHeaders(sessionId, { "Content-Type": null, ...overrides }, "text/event-stream");
  if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
  return headers;
}

/** Headers of DELETE /mcp (ends the session). */
export const deleteHeaders = (sessionId: string, overrides: HeaderOverrides = {}) =>
  legacyHeaders(sessionId, { "Content-Type": null, ...overrides });

/** The initialize request; `params` replace the defaults key by key (`undefined` drops one). */
export function initializeMessage(params: Record<string, unknown> = {}, { id = freshId() as RequestId, clientInfo = LEGACY_CLIENT } = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo, ...params },
  };
}

export const requestMessage = (method: string, params: Record<string, unknown> = {}, id: RequestId = freshId()) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

export const notificationMessage = (method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };

/** One HTTP exchange, whatever carries it (fetch in workerd, node:http in the bench). */
export type Send = (request: { method: string; headers: Record<string, string>; body?: string }) => Promise<{
  status: number;
  header(name: string): string | null | undefined;
  text: string;
}>;

export interface OpenedSession {
  id: string;
  protocolVersion: string;
  /** The InitializeResult. */
  init: any;
}

export interface OpenOptions {
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  /** false: stop after initialize, without `notifications/initialized`. */
  initialized?: boolean;
}

/** Opens a session: initialize → Mcp-Session-Id → notifications/initialized (202). Throws on any misstep. */
export async function openLegacySession(send: Send, opts: OpenOptions = {}): Promise<OpenedSession> {
  const message = initializeMessage(
    { protocolVersion: opts.protocolVersion ?? LEGACY_VERSION, capabilities: opts.capabilities ?? {} },
    { clientInfo: opts.clientInfo },
  );
  const res = await send({ method: "POST", headers: initializeHeaders(), body: JSON.stringify(message) });
  if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  const init = resultOf(JSON.parse(res.text), "initialize");
  const id = res.header("Mcp-Session-Id");
  if (!id) throw new Error("initialize must assign a session id (Mcp-Session-Id)");
  if (opts.initialized !== false) {
    // From here on a client names the negotiated revision (a session refuses any other).
    const headers = legacyHeaders(id, { "MCP-Protocol-Version": init.protocolVersion });
    const ack = await send({ method: "POST", headers, body: JSON.stringify(notificationMessage("notifications/initialized")) });
    if (ack.status !== 202) throw new Error(`notifications/initialized: HTTP ${ack.status} ${ack.text.slice(0, 200)}`);
  }
  return { id, protocolVersion: init.protocolVersion, init };
}

/** Splits an event id "<stream>-<seq>" (a GET stream's: "<stream>-<seq>.<hub>") into its parts. */
export function splitId(id: string | undefined): { stream: string; seq: number; hub?: number } {
  // A GET stream's ids also carry the place in its hub shard's log, after a dot.
  const m = /^(.+)-(\d+)(?:\.(\d+))?$/.exec(id ?? "");
  if (!m) throw new Error(`not a per-stream event id: ${id}`);
  return m[3] === undefined ? { stream: m[1]!, seq: Number(m[2]) } : { stream: m[1]!, seq: Number(m[2]), hub: Number(m[3]) };
}
