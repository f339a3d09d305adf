/**
 * The 2026-07-28 mirrored request headers: MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name and Mcp-Param-*. Values are trimmed (RFC 9110 OWS), decoded from
 * `=?base64?…?=` when so marked, and compared case-sensitively with the body.
 */
import { ErrorCode, McpError } from "../mcp/errors";
import { operationRow } from "../mcp/operations";
import type { CompiledTool } from "../mcp/registry";
import { UTF8 } from "./gate";

const mismatch = (message: string) => new McpError(ErrorCode.HeaderMismatch, message);

const BASE64_VALUE = /^=\?base64\?(.*)\?=$/;
// Strict base64: whole quads, correct padding (atob alone would accept missing padding).
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// Visible ASCII plus space and tab; anything else must travel base64-encoded.
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;

/** The header's decoded value, undefined when absent; -32020 when it cannot be decoded. */
function headerValue(headers: Headers, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const value = raw.trim();
  const encoded = BASE64_VALUE.exec(value);
  if (encoded) {
    try {
      if (STRICT_BASE64.test(encoded[1]!)) return UTF8.decode(Uint8Array.from(atob(encoded[1]!), (c) => c.charCodeAt(0)));
    } catch {
      // not UTF-8: the same answer as bad base64
    }
    throw mismatch(`${name}: invalid base64 value`);
  }
  if (!PLAIN_VALUE.test(value)) throw mismatch(`${name}: invalid characters; non-ASCII values must be base64-encoded`);
  return value;
}

/** The decoded value of a header the request must send; -32020 when it is missing or cannot be decoded. */
export function requiredHeader(headers: Headers, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined) throw mismatch(`Missing ${name} header`);
  return value;
}

/** Mcp-Method always; Mcp-Name for methods that target a name or URI. */
export function checkRoutingHeaders(headers: Headers, method: string, params: Record<string, unknown>): void {
  const m = requiredHeader(headers, "Mcp-Method");
  if (m !== method) throw mismatch(`Mcp-Method header "${m}" does not match the body method "${method}"`);
  // The body field Mcp-Name mirrors (operations.ts): the tool or prompt name, the resource URI, or (tasks extension) the task id.
  const row = operationRow(method);
  if (!row?.routed) return;
  const target = params[row.target];
  if (target === undefined) return;
  if (requiredHeader(headers, "Mcp-Name") !== target) throw mismatch(`Mcp-Name header does not match the body`);
}

/** Every argument a tool marks with x-mcp-header must be mirrored exactly in its Mcp-Param-* header. */
export function checkParamHeaders(headers: Headers, tool: CompiledTool, args: unknown): void {
  if (tool.headerParams.size === 0) return;
  const values = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  for (const [prop, { header, type }] of tool.headerParams) {
    const name = `Mcp-Param-${header}`;
    const got = headerValue(headers, name);
    const arg = values[prop];
    if (arg === undefined || arg === null) {
      if (got !== undefined) throw mismatch(`${name} is present but the argument ${prop} is not`);
      continue;
    }
    if (got === undefined) throw mismatch(`Missing ${name} header for argument ${prop}`);
    const same = type === "integer" ? /^-?\d+$/.test(got) && Number(got) === arg : type === "boolean" ? got === String(arg) : got === arg;
    if (!same) throw mismatch(`${name} header does not match the argument ${prop}`);
  }
}
