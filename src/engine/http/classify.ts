/** Which lane serves a POST: what the revisions' rule (laneOf) needs, read from the HTTP request. */
import type { Message } from "../mcp/jsonrpc";
import { laneOf } from "../mcp/revisions/lane";
import type { Era } from "../mcp/revisions/revision";

export const classifyEra = (msg: Message, headers: Headers): Era =>
  laneOf(msg, headers.get("MCP-Protocol-Version")?.trim(), headers.has("Mcp-Session-Id"));
