/**
 * Rules the server and the client must apply alike. Both import them from here, so a change to one
 * side cannot leave the other behind. Plain constants and pure functions only: the client's bundle
 * takes nothing else of the server with them.
 */

/** The 2026-07-28 methods whose results carry `ttlMs` and `cacheScope`, and which a client may cache. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/**
 * Whether `x-mcp-header` may name `name` for a property of JSON type `type`: the name must be an
 * RFC 9110 token (it becomes `Mcp-Param-<name>`), and only a string, integer or boolean has one
 * header text.
 */
export const isHeaderToken = (name: unknown): name is string => typeof name === "string" && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
export const isHeaderType = (type: unknown): boolean => type === "string" || type === "integer" || type === "boolean";

/**
 * Input rounds (2026-07-28 `input_required`) after which a request that still asks is taken to be
 * looping. The test client stops at the same round as the real one, so a tool that passes its tests
 * does not give up in a host.
 */
export const MAX_INPUT_ROUNDS = 16;
