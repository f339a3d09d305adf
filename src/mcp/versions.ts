/**
 * The protocol revisions this server speaks, in one place so that the
 * discover result, the -32022 error and the initialize negotiation can
 * never disagree.
 */

/** The stateless revision: version and capabilities travel with every request. */
export const MODERN_VERSION = "2026-07-28";

/** Revisions that open with `initialize` and live in a session, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** Every revision, newest first (what `server/discover` and -32022 list). */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];

export const isModernVersion = (v: unknown): boolean => v === MODERN_VERSION;
export const isLegacyVersion = (v: unknown): boolean =>
  typeof v === "string" && (LEGACY_VERSIONS as readonly string[]).includes(v);

/** Reserved `_meta` keys of 2026-07-28. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
