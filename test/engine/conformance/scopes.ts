/**
 * The scope-challenge contract of the conformance suite (`sep-2350-server-scope-challenge`): two
 * opaque tokens of one principal, one holding only the baseline scope, the other every scope the
 * fixture's scoped operations declare. A request without a token is served as before (index.ts).
 */
import { AuthFailure, type TokenVerifier } from "../../../src/mcp";

export const SCOPE = {
  baseline: "mcp:conformance:baseline",
  toolsCall: "mcp:conformance:tools:call",
  simpleText: "mcp:conformance:tools:test_simple_text",
  resourcesRead: "mcp:conformance:resources:read",
  staticText: "mcp:conformance:resources:static",
  template: (id: string) => `mcp:conformance:resources:template:${id}`,
  promptsGet: "mcp:conformance:prompts:get",
  simplePrompt: "mcp:conformance:prompts:test_simple_prompt",
} as const;

const FULL = [
  SCOPE.baseline,
  SCOPE.toolsCall,
  SCOPE.simpleText,
  SCOPE.resourcesRead,
  SCOPE.staticText,
  SCOPE.template("123"),
  SCOPE.promptsGet,
  SCOPE.simplePrompt,
];

const TOKENS: Record<string, readonly string[]> = {
  "mcp-conformance-scope-low": [SCOPE.baseline],
  "mcp-conformance-scope-full": FULL,
};

/** The events bench's subscribers (bench/lib/events.mjs): `mcp-conformance-events-<n>` is principal `conformance-events-<n>`. */
const EVENTS_BENCH = /^mcp-conformance-events-(\d{1,4})$/;

/** Both tokens are the same principal, so a 2025 session opened with one goes on with the other. */
export const conformanceTokens: TokenVerifier = async (token) => {
  const scopes = Object.hasOwn(TOKENS, token) ? TOKENS[token] : undefined;
  const bench = EVENTS_BENCH.exec(token);
  if (!scopes && bench) return { id: `conformance-events-${bench[1]}`, scopes: FULL };
  if (!scopes) throw new AuthFailure("invalid_token", "Unknown conformance token");
  return { id: "conformance-user", scopes };
};
