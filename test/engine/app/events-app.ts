/**
 * The engine tests' app with MCP Events (test/engine/integration/events-*.test.ts): `test_event` as the
 * conformance fixture defines it (EVENTS.md §14), a scoped type whose access the app can revoke (its
 * `allow` reads a revocation in OAUTH_KV, the store the test config binds) and whose `topic` argument
 * has a default its `allow` checks, and a webhook-only type
 * without replay. Its object class is bound only in the engine tests (MCP_EVENTS, vitest-index.ts).
 */
import * as v from "valibot";
import { AuthFailure, defineApp, defineAuthorization, defineEvent, defineTool, emit, events, type TokenVerifier } from "../../../src/mcp";

const testEvent = defineEvent({
  name: "test_event",
  description: "A test occurrence on a topic.",
  input: v.object({ topic: v.string() }),
  payload: v.object({ topic: v.string(), text: v.string(), seq: v.number() }),
  delivery: ["poll", "push", "webhook"],
  replay: { maxEvents: 50 },
});

const scopedEvent = defineEvent({
  name: "scoped_event",
  description: "Only for holders of events:read whose access was not revoked; the hr topic only for hr-* principals.",
  input: v.object({ topic: v.optional(v.string(), "general") }),
  payload: v.object({ text: v.string() }),
  delivery: ["webhook", "push"],
  scopes: ["events:read"],
  allow: async ({ principal, arguments: args, env }) =>
    (args.topic !== "hr" || principal.startsWith("hr-")) &&
    (await (env as unknown as { OAUTH_KV: KVNamespace }).OAUTH_KV.get(`revoked:${principal}`)) === null,
});

const plainEvent = defineEvent({
  name: "plain_event",
  payload: v.object({ text: v.string() }),
  delivery: ["webhook"],
});

const emitTestEvent = defineTool({
  name: "emit_test_event",
  description: "Emits `count` test_event occurrences for a topic, seq increasing.",
  input: v.object({
    topic: v.string(),
    text: v.string(),
    count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 1),
  }),
  handler: async ({ topic, text, count }, ctx) => {
    for (let seq = 1; seq <= count; seq++) await emit(ctx.env, "test_event", { topic, text, seq }, { match: { topic } });
    return `emitted ${count}`;
  },
});

export const eventsExtension = events([testEvent, scopedEvent, plainEvent], {
  maxSubscriptionsPerPrincipal: 3,
  pageSize: 2,
  verificationsPerMinute: 4,
  streamHeartbeatMs: 300,
});

export default defineApp({
  info: { name: "mcp-events-test-app", version: "1.0.0" },
  tools: [emitTestEvent],
  extensions: [eventsExtension],
  // Event types' scopes are checked by the one authorization, with its implications.
  authorization: defineAuthorization({ implies: { "events:write": ["events:read"] } }),
});

/** Bearer tokens: `<principal>` holds events:read, `<principal>.noscope` nothing, `<principal>.writer` events:write. */
export const verifyToken: TokenVerifier = async (token) => {
  if (!/^[a-z0-9-]+(\.noscope|\.writer)?$/.test(token)) throw new AuthFailure("invalid_token", "unknown token");
  const [id, kind] = token.split(".");
  return { id: id!, scopes: kind === "noscope" ? [] : kind === "writer" ? ["events:write"] : ["events:read"] };
};
