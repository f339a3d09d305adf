/**
 * 2026-07-28 requests as a stateless client sends them: the `_meta` envelope
 * (protocol version, client capabilities, client info) in the body, and the
 * headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`). Every knob lets a test break one rule at a time.
 */
import { ACCEPT_BOTH, freshId, withHeaders, type HeaderOverrides, type RequestId } from "./rpc.ts";

export const MODERN_VERSION = "2026-07-28";

/** The `_meta` keys of the 2026-07-28 envelope, spelled out here as the wire has them. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

export interface ModernOptions {
  /** Extra or replacement headers; `null` removes a header the builder would set. */
  headers?: HeaderOverrides;
  /** Extra or replacement `_meta` keys; `null` removes a key; `meta: null` sends no `_meta`. */
  meta?: Record<string, unknown> | null;
  /** Shorthand for `_meta["io.modelcontextprotocol/clientCapabilities"]`. */
  capabilities?: Record<string, unknown>;
  /** The `_meta` client info (default: a neutral test client). */
  clientInfo?: { name: string; version: string };
  /** The JSON-RPC id (default: a fresh one); `null` sends a notification (no id). */
  id?: RequestId | null;
}

export const MODERN_CLIENT = { name: "mcp-wire-client", version: "0.0.0" };

/**
 * The `Mcp-Name` a method mirrors: params.name for tools/call and prompts/get, params.uri for
 * resources/read, params.taskId for the tasks extension's tasks/get, tasks/update and tasks/cancel.
 */
export function mirroredName(method: string, params: Record<string, unknown>): string | undefined {
  const v =
    method === "tools/call" || method === "prompts/get"
      ? params.name
      : method === "resources/read"
        ? params.uri
        : ["tasks/get", "tasks/update", "tasks/cancel"].includes(method)
          ? params.taskId
          : undefined;
  return typeof v === "string" ? v : undefined;
}

/** `=?base64?…?=` encoding of a header value (UTF-8). */
export function base64Header(value: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(value)) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

export function buildMeta(opts: Pick<ModernOptions, "meta" | "capabilities" | "clientInfo"> = {}): Record<string, unknown> | undefined {
  if (opts.meta === null) return undefined;
  const meta: Record<string, unknown> = {
    [META.protocolVersion]: MODERN_VERSION,
    [META.clientCapabilities]: opts.capabilities ?? {},
    [META.clientInfo]: opts.clientInfo ?? MODERN_CLIENT,
  };
  for (const [k, v] of Object.entries(opts.meta ?? {})) {
    if (v === null) delete meta[k];
    else meta[k] = v;
  }
  return meta;
}

/** The request (or notification) a modern client would POST, and the headers it would send. */
export function buildModernRequest(method: string, params: Record<string, unknown> = {}, opts: ModernOptions = {}) {
  const meta = buildMeta(opts);
  const fullParams = meta === undefined ? { ...params } : { ...params, _meta: meta };
  const id = opts.id === undefined ? freshId() : opts.id;
  const message: Record<string, unknown> = { jsonrpc: "2.0", method, params: fullParams };
  if (id !== null) message.id = id;

  const base: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: ACCEPT_BOTH,
    "MCP-Protocol-Version": MODERN_VERSION,
    "Mcp-Method": method,
  };
  const name = mirroredName(method, params);
  if (name !== undefined) base["Mcp-Name"] = name;
  return { id, message, headers: withHeaders(base, opts.headers) };
}
