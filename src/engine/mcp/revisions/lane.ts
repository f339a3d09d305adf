/**
 * Which revision's lane serves a POSTed message (the dual-era rule): the body decides first, the
 * MCP-Protocol-Version header second, and a session id marks a 2025 client.
 */
import { isObject } from "../guards";
import type { Message } from "../jsonrpc";
import { META, isLegacyVersion, isModernVersion } from "../versions";
import type { Era } from "./revision";

/** `header` is the message's MCP-Protocol-Version header; `hasSession`, whether it named a session. */
export function laneOf(msg: Message, header: string | undefined, hasSession: boolean): Era {
  // Answers to server-initiated requests only exist inside 2025 sessions.
  if (msg.kind === "response") return "legacy";
  // Notifications have no envelope in 2026; a session id means a 2025 client (e.g. notifications/cancelled).
  if (msg.kind === "notification") return isModernVersion(header) && !hasSession ? "modern" : "legacy";

  const meta = msg.message.params?._meta;
  const claim = isObject(meta) ? meta[META.protocolVersion] : undefined;
  if (claim !== undefined) {
    // A per-request envelope is a modern request, even for `initialize` (which then is 404 there),
    // unless it names a legacy revision together with a session, which only a 2025 client would send.
    return isLegacyVersion(claim) && hasSession ? "legacy" : "modern";
  }
  if (msg.message.method === "initialize") return "legacy";
  // A modern header without the envelope is a malformed modern request (-32602), not a legacy one.
  if (header !== undefined && !isLegacyVersion(header)) return hasSession ? "legacy" : "modern";
  return "legacy";
}
