/**
 * What every 2026-07-28 request must carry in its `_meta`: the protocol version (matching the
 * MCP-Protocol-Version header, and one this path serves), the client's capabilities, and optionally
 * its info, a log level and a progress token. The lane checks the routing headers and the method
 * halfway through (`between`), in the order the revision's transport gives.
 */
import { ErrorCode, McpError, invalidParams } from "../errors";
import { isObject } from "../guards";
import { checkProgressToken } from "../jsonrpc";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type LogLevel } from "../types";
import { META, PER_REQUEST_VERSIONS, isKnownVersion, isLegacyVersion } from "../versions";

export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
  progressToken?: string | number;
}

/**
 * `_meta` with a version and capabilities, the version the header's and one served here; then, after
 * `between` has run, the log level, progress token and client info. Throws the McpError of the first fault.
 * `lenient` (STRICT_HEADERS off): the body decides, so a header naming another known revision is
 * served as the body says (hosted clients send a 2026-07-28 body with a 2025-11-25 header); a header
 * naming no revision, or a body version not served here, is still the mismatch.
 */
export function readEnvelope(
  params: Record<string, unknown>,
  headerVersion: string,
  between: (caps: ClientCapabilities) => void,
  lenient = false,
): Envelope {
  const meta = params._meta;
  if (!isObject(meta)) throw invalidParams("params._meta is required on every 2026-07-28 request");
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") throw invalidParams(`params._meta["${META.protocolVersion}"] is required`);
  const caps = meta[META.clientCapabilities];
  if (!isObject(caps)) throw invalidParams(`params._meta["${META.clientCapabilities}"] is required (an object)`);

  if (headerVersion !== version && !(lenient && PER_REQUEST_VERSIONS.includes(version) && isKnownVersion(headerVersion)))
    throw new McpError(ErrorCode.HeaderMismatch, `MCP-Protocol-Version header "${headerVersion}" does not match _meta "${version}"`);
  if (!PER_REQUEST_VERSIONS.includes(version)) {
    // `supported` lists only what this path serves, whatever was requested: a client retries with
    // a version from it, and a legacy revision would earn it this same error again.
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      isLegacyVersion(version)
        ? `Protocol version ${version} needs an initialize session (without the per-request _meta); per-request _meta is served for ${PER_REQUEST_VERSIONS.join(", ")}`
        : `Unsupported protocol version: ${version}`,
      { supported: PER_REQUEST_VERSIONS, requested: version },
    );
  }
  between(caps as ClientCapabilities);

  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel)) throw invalidParams(`Invalid log level: ${String(logLevel)}`);
  const progressToken = checkProgressToken(meta);
  const clientInfo = meta[META.clientInfo];
  return {
    protocolVersion: version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: isObject(clientInfo) ? (clientInfo as unknown as Implementation) : undefined,
    logLevel: logLevel as LogLevel | undefined,
    progressToken,
  };
}
