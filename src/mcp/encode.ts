/**
 * Per-revision result encoding. Wire shapes never mix: a 2025 result carries
 * no resultType, ttlMs, cacheScope or serverInfo; a 2026 result always
 * carries resultType, and the caching fields where the schema requires them.
 */
import { ErrorCode, McpError, ResourceNotFound, type JsonRpcErrorObject } from "./errors";
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
    // A result that depends on what the client declared is never reused (src/mcp/ext/host.ts says why).
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

/** The 2025 form of an error: a missing resource is -32002 there, a missing client capability -32600. */
export function encodeLegacyError(err: McpError): JsonRpcErrorObject {
  if (err instanceof ResourceNotFound) return { code: ErrorCode.ResourceNotFoundLegacy, message: err.message, data: { uri: err.uri } };
  if (err.code === ErrorCode.MissingRequiredClientCapability) {
    // -32021 exists only from 2026-07-28 on. 2025-11-25 defines no code for "this request needs a
    // capability the client did not declare at initialize": its servers simply must not send such a
    // request. The standard code that fits is -32600 Invalid Request: the request is well-formed
    // JSON-RPC with valid params, but it cannot be served in this session as negotiated, which is
    // also how the revision answers its nearest case (a tool call that needs task augmentation sent
    // without it). -32602 would blame the arguments and -32603 a server fault, and the client can
    // only fix it by opening a session that declares the capability, which `data` names.
    return { code: ErrorCode.InvalidRequest, message: err.message, data: err.data };
  }
  return err.toJSON();
}
