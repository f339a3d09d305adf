/**
 * A fixture app for authorization per operation (docs/authorization.md) under `wrangler dev`
 * (test/engine/e2e/scope-challenge.mjs): what a 2025 session's own object does with ctx.auth, a handler's
 * InsufficientScope, the policy with a per-tool rate limit, and hidden lists. Never deployed.
 */
import * as v from "valibot";
import {
  InsufficientScope,
  defineApp,
  defineAuthorization,
  defineResource,
  defineTool,
  durableTask,
  toolRateLimit,
} from "../../../src/mcp";

const perTool = toolRateLimit((env: { TOOL_RATE_LIMIT?: RateLimit }) => env.TOOL_RATE_LIMIT, { tools: ["search"] });

export default defineApp({
  info: { name: "scoped-fixture", version: "0.0.0" },
  tools: [
    defineTool({ name: "whoami", description: "Shows ctx.auth.", handler: (_args, ctx) => JSON.stringify(ctx.auth ?? null) }),
    defineTool({
      name: "delete_note",
      description: "Deletes a note; archived ones need notes:admin.",
      scopes: ["notes:write"],
      input: v.object({ id: v.string() }),
      handler: ({ id }, ctx) => {
        if (id.startsWith("archived-") && !ctx.auth?.scopes.includes("notes:admin"))
          throw new InsufficientScope(["notes:write", "notes:admin"]);
        return `deleted ${id}`;
      },
    }),
    defineTool({
      name: "export_notes",
      description: "A task that needs notes:write.",
      scopes: ["notes:write"],
      task: durableTask("optional"),
      handler: () => "exported",
    }),
    defineTool({
      name: "search",
      description: "Rate limited per caller.",
      input: v.object({ q: v.string() }),
      handler: ({ q }) => `found ${q}`,
    }),
  ],
  resources: [defineResource({ uri: "notes://index", name: "index", scopes: ["notes:read"], read: () => "[]" })],
  authorization: defineAuthorization({
    scopes: ["notes:read"],
    implies: { "notes:admin": ["notes:write"], "notes:write": ["notes:read"] },
    claims: ["email"],
    hideUnauthorized: true,
    policy: perTool,
  }),
});
