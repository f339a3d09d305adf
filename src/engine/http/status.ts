/**
 * The one place that picks an HTTP status for a protocol outcome. The core
 * and the objects speak JSON-RPC codes and reasons; the edge maps them here.
 */
import { ErrorCode } from "../mcp/errors";
import type { Refusal } from "../objects/contracts";

/**
 * A request the 2026 lane refused before running it (a bad body, header, envelope or version): 400,
 * and 404 for a method this server does not have.
 */
export const refusedStatus = (code: number): number => (code === ErrorCode.MethodNotFound ? 404 : 400);

/**
 * An error from running a 2026 request: in-band (200) like every handler-level error, except a
 * missing client capability, which the revision answers with 400.
 */
export const failedStatus = (code: number): number => (code === ErrorCode.MissingRequiredClientCapability ? 400 : 200);

/** Why a 2025 session refused a message. */
export const SESSION_REFUSAL_STATUS: Record<Refusal, number> = {
  "unknown-session": 404,
  invalid: 400,
  "too-many-streams": 429,
  "too-many-sessions": 429,
};
