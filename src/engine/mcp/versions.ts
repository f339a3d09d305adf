/**
 * The protocol revisions this server speaks, in one place so that the
 * discover result, the -32022 error and the initialize negotiation can
 * never disagree: each lists exactly what its own path accepts.
 */

/** The stateless revision: version and capabilities travel with every request. */
export const MODERN_VERSION = "2026-07-28";

/** Revisions that open with `initialize` and live in a session, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/**
 * The revisions a request can name in its per-request `_meta`: what `server/discover` and -32022 list.
 * Both are answers on that path, and a client is told to pick a version from the list and retry
 * the same request; a legacy revision listed there would only earn it the same -32022 again,
 * because a legacy revision exists only inside an `initialize` session. The legacy revisions are
 * offered where they work: `initialize` negotiates one of LEGACY_VERSIONS (and never the
 * stateless one, which has no handshake), and session traffic names the negotiated one.
 */
export const PER_REQUEST_VERSIONS: readonly string[] = [MODERN_VERSION];

export const isModernVersion = (v: unknown): boolean => v === MODERN_VERSION;
export const isLegacyVersion = (v: unknown): boolean => (LEGACY_VERSIONS as readonly unknown[]).includes(v);
/** A revision this server knows, on either path. */
export const isKnownVersion = (v: unknown): boolean => isModernVersion(v) || isLegacyVersion(v);

/**
 * Reserved `_meta` keys of 2026-07-28. An enum rather than an object: the bundler writes each key
 * where it is used, so the Worker carries no table of them.
 */
export enum META {
  protocolVersion = "io.modelcontextprotocol/protocolVersion",
  clientCapabilities = "io.modelcontextprotocol/clientCapabilities",
  clientInfo = "io.modelcontextprotocol/clientInfo",
  logLevel = "io.modelcontextprotocol/logLevel",
  serverInfo = "io.modelcontextprotocol/serverInfo",
  subscriptionId = "io.modelcontextprotocol/subscriptionId",
}
