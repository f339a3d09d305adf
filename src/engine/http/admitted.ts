/** What both lanes know of a request the edge admitted (http/edge.ts). */
import type { Config } from "../config";
import type { Env } from "../env";
import type { Caller } from "../mcp/auth";
import type { RequestId } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import type { Quirks } from "../mcp/quirks";

/**
 * Past authentication: what either lane needs of an admitted request (the registry, the caller, the
 * step-up challenge, the quirks served so far). One type for both lanes.
 */
export interface Admitted {
  reg: Registry;
  config: Config;
  env: Env;
  /** Who is calling (ctx.caller); a 2025 session is bound to its principal. */
  caller: Caller;
  /** The 403 step-up challenge for an operation refused with InsufficientScope. */
  scopeChallenge(id: RequestId, scopes: readonly string[]): Response;
  /** The quirks the edge served in this request (http/quirks.ts), for its log line; a lane adds its own. */
  quirks?: Quirks;
}
