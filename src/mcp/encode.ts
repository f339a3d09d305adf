/**
 * The 2026-07-28 result encoding: every result carries resultType, and the
 * caching fields where the schema requires them. A 2025 result is the
 * handler's as it is (no resultType, ttlMs, cacheScope or serverInfo); each
 * revision's errors are in revisions/.
 */
import type { InputRequest } from "./input";
import type { Registry } from "./registry";
import { META } from "./versions";

const CACHEABLE = new Set(["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"]);

export function encodeModernResult(
  method: string,
  result: Record<string, unknown>,
  reg: Registry,
  principal?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: "complete", ...result };
  if (CACHEABLE.has(method) || reg.extensionMethods.get(method)?.cacheable) {
    out.ttlMs = reg.cacheTtlMs;
    // A result that may depend on who asks must not be shared across tokens.
    out.cacheScope = principal ? "private" : "public";
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
