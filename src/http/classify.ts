/**
 * Which lane serves a POST (the dual-era rule): the body decides first, the
 * MCP-Protocol-Version header second.
 */
import type { Message } from "../mcp/jsonrpc";
import { META, isLegacyVersion, isModernVersion } from "../mcp/versions";

export type Era = "modern" | "legacy";

export function classifyEra(msg: Message, headers: Headers): Era {
  // Answers to server-initiated requests only exist inside 2025 sessions.
  if (msg.kind === "response") return "legacy";
  const header = headers.get("MCP-Protocol-Version")?.trim();
  // Notifications have no envelope in 2026; a session id means a 2025 client (e.g. notifications/cancelled).
  if (msg.kind === "notification") return isModernVersion(header) && !headers.has("Mcp-Session-Id") ? "modern" : "legacy";

  const meta = msg.message.params?._meta;
  const claim = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[META.protocolVersion] : undefined;
  if (claim !== undefined) {
    // A per-request envelope is a modern request, even for `initialize` (which then is 404 there),
    // unless it names a legacy revision together with a session, which only a 2025 client would send.
    return isLegacyVersion(claim) && headers.has("Mcp-Session-Id") ? "legacy" : "modern";
  }
  if (msg.message.method === "initialize") return "legacy";
  // A modern header without the envelope is a malformed modern request (-32602), not a legacy one.
  if (header !== undefined && !isLegacyVersion(header)) return headers.has("Mcp-Session-Id") ? "legacy" : "modern";
  return "legacy";
}
