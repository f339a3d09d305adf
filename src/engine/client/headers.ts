/**
 * The mirrored routing headers of 2026-07-28: `Mcp-Name` and the
 * `Mcp-Param-*` headers a tool asks for with `x-mcp-header` on a top-level
 * argument. Values that are not plain visible ASCII travel as
 * `=?base64?…?=` so that a header never carries what HTTP cannot.
 */
import { isHeaderToken, isHeaderType } from "../mcp/rules";

const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const SENTINEL = /^=\?base64\?.*\?=$/;

/** A header value as the server will compare it with the body. */
export function encodeHeaderValue(value: string): string {
  if (value === "" || (PLAIN.test(value) && !SENTINEL.test(value))) return value;
  const bytes = new TextEncoder().encode(value);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

/**
 * The argument → header-name map of a tool, or `null` when an annotation
 * breaks the rules (empty, not a token, duplicated ignoring case, on a type
 * other than string/integer/boolean). Such a tool must not be used at all:
 * the server would reject every call to it.
 */
export function toolHeaderMap(inputSchema: unknown): Map<string, string> | null {
  const map = new Map<string, string>();
  const props = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof props !== "object" || props === null) return map;
  const seen = new Set<string>();
  for (const [arg, schema] of Object.entries(props as Record<string, unknown>)) {
    if (typeof schema !== "object" || schema === null || !("x-mcp-header" in schema)) continue;
    const name = (schema as Record<string, unknown>)["x-mcp-header"];
    const type = (schema as Record<string, unknown>).type;
    if (!isHeaderToken(name) || !isHeaderType(type)) return null;
    const key = name.toLowerCase();
    if (seen.has(key)) return null;
    seen.add(key);
    map.set(arg, name);
  }
  return map;
}

/** The `Mcp-Param-*` headers for one call; absent and null arguments send none. */
export function paramHeaders(map: Map<string, string>, args: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!args) return out;
  for (const [arg, name] of map) {
    const value = args[arg];
    if (value === undefined || value === null) continue;
    const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
    if (text !== undefined) out[`Mcp-Param-${name}`] = encodeHeaderValue(text);
  }
  return out;
}

/** The `Mcp-Name` a method needs, if any. */
export function mcpName(method: string, params: Record<string, unknown>): string | undefined {
  const v =
    method === "resources/read"
      ? params.uri
      : method === "tools/call" || method === "prompts/get"
        ? params.name
        : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
          ? params.taskId
          : undefined;
  return typeof v === "string" ? v : undefined;
}
