/**
 * The 2026-07-28 result encoding: every result carries resultType, and the
 * caching fields where the schema requires them. A 2025 result is the
 * handler's as it is (no resultType, ttlMs, cacheScope or serverInfo); each
 * revision's errors are in revisions/.
 */
import type { InputRequest } from "./input";
import type { Registry } from "./registry";
import { CACHEABLE_METHODS } from "./rules";
import { META } from "./versions";

export function encodeModernResult(
  method: string,
  result: Record<string, unknown>,
  reg: Registry,
  principal?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: "complete", ...result };
  if (CACHEABLE_METHODS.has(method) || reg.ext?.methods.get(method)?.cacheable) {
    // A result that depends on what the client declared is never reused (src/engine/mcp/ext/host.ts says why).
    const perClient = reg.ext?.perClient.has(method);
    out.ttlMs = perClient ? 0 : reg.cacheTtlMs;
    // A result that may depend on who asks must not be shared across tokens.
    out.cacheScope = principal || perClient ? "private" : "public";
  }
  out._meta = { ...(result._meta as object | undefined), [META.serverInfo]: reg.info };
  return out;
}

export function encodeInputRequired(
  inputRequests: Record<string, InputRequest>,
  requestState: string | undefined,
  reg: Registry,
): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: "input_required", inputRequests };
  if (requestState !== undefined) out.requestState = requestState;
  out._meta = { [META.serverInfo]: reg.info };
  return out;
}
