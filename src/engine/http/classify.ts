/** Which lane serves a POST: what the revisions' rule (laneOf) needs, read from the HTTP request. */
import type { Message } from "../mcp/jsonrpc";
import { laneOf } from "../mcp/revisions/lane";
import type { Era } from "../mcp/revisions/revision";
import { oneVersion } from "./quirks";

/** `strict` (STRICT_HEADERS=on): a version header a proxy repeated ("v, v") is not read as "v" (http/quirks.ts). */
export const classifyEra = (msg: Message, headers: Headers, strict: boolean): Era =>
  laneOf(msg, oneVersion(headers.get("MCP-Protocol-Version")?.trim(), strict), headers.has("Mcp-Session-Id"));
