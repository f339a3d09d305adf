/**
 * The engine test app with scopes on roll_dice and prepare_report (a task tool): what the engine
 * tests of authorization in a 2025 session's own object run (test/engine/integration/scopes.test.ts).
 * Its session class is bound only in the engine tests (vitest-index.ts), so the engine app's
 * bundle, which the budget measures, carries no authorization code.
 * Its policy acts only for principals named `policy-…` (test/engine/integration/policy.test.ts): those named
 * `policy-refused-…` may not call prepare_report, `policy-stepup-…` must step up to `report:write`
 * for it, and each counts 3 calls of it a minute.
 * greet needs `greet:ask` (test/engine/integration/elicitation-scopes.test.ts); the units template and the
 * explain_unit prompt, completed and subscribed to in a session, need `units:read`
 * (test/engine/integration/operation-scopes.test.ts).
 * Its middleware (`use`) acts only for principals named `use-…` (test/engine/integration/middleware.test.ts):
 * each step writes what it saw into the result's `_meta.trail` on the way out, so the order is the
 * trail read backwards; `use-refused-…` may not convert temperatures (a ToolError), `use-error-…` gets a
 * JSON-RPC error for it.
 * caller_task is a task whose runs answer their ctx.auth (test/engine/integration/tasks-auth.test.ts); its
 * task class too is bound only in the engine tests (MCP_TASK_SCOPED).
 */
import {
  ErrorCode,
  InsufficientScope,
  McpError,
  ToolError,
  defineApp,
  defineAuthorization,
  defineMiddleware,
  defineTool,
  durableTask,
  toolRateLimit,
  type Middleware,
} from "../../../src/mcp";
import engineApp from "./app";

const callerTask = defineTool({
  name: "caller_task",
  description: "Answers the caller its run sees (ctx.auth), as JSON.",
  task: durableTask("optional"),
  handler: (_args, ctx) => JSON.stringify(ctx.auth ?? null),
});

const callerInfoTask = defineTool({
  name: "caller_info_task",
  description: "Answers who is calling as its run sees it (ctx.caller), as JSON.",
  task: durableTask("optional"),
  handler: (_args, ctx) => JSON.stringify(ctx.caller),
});

const callerInfo = defineTool({
  name: "caller_info",
  description: "Answers who is calling as the handler sees it (ctx.caller), as JSON.",
  handler: (_args, ctx) => JSON.stringify(ctx.caller),
});

const hostileScope = defineTool({
  name: "hostile_scope",
  description: "Throws the insufficient-scope code with scopes that would inject into a header.",
  handler: () => {
    throw new McpError(ErrorCode.InsufficientScope, "no", {
      scopes: ['a", resource_metadata="https://evil.example', "x\r\nSet-Cookie: a=b", "ok:scope"],
    });
  },
});

const perTool = toolRateLimit((env: { TEST_TIGHT_RATE_LIMIT?: RateLimit }) => env.TEST_TIGHT_RATE_LIMIT, { tools: ["prepare_report"] });

/** A middleware step that, for `use-…` principals, adds what it saw to the result's `_meta.trail` on the way out. */
const trail = (step: string): Middleware =>
  defineMiddleware(async (op, next) => {
    if (!op.auth?.principal.startsWith("use-")) return next();
    if (step === "inner" && op.name === "convert_temperature" && op.auth.principal.startsWith("use-refused-"))
      throw new ToolError("Conversions are not for you");
    if (step === "inner" && op.name === "convert_temperature" && op.auth.principal.startsWith("use-error-"))
      throw new McpError(-32602, "Conversions refused");
    const result = await next();
    const meta = (result._meta ?? {}) as { trail?: unknown[] };
    const seen = {
      step,
      kind: op.kind,
      name: op.name,
      arguments: op.arguments,
      principal: op.auth.principal,
      isError: result.isError === true,
    };
    return { ...result, _meta: { ...meta, trail: [...(meta.trail ?? []), seen] } };
  });

const tools = [
  ...engineApp.tools!.map((t) =>
    t.name === "roll_dice" || t.name === "prepare_report"
      ? { ...t, scopes: ["dice:roll"] }
      : t.name === "greet"
        ? { ...t, scopes: ["greet:ask"] }
        : t,
  ),
  callerTask,
  callerInfo,
  callerInfoTask,
  hostileScope,
];

export default defineApp({
  ...engineApp,
  tools,
  resourceTemplates: engineApp.resourceTemplates!.map((t) => ({ ...t, scopes: ["units:read"] })),
  prompts: engineApp.prompts!.map((p) => ({ ...p, scopes: ["units:read"] })),
  authorization: defineAuthorization({
    claims: ["email", "groups", "padding"],
    policy: (op, next) => {
      const principal = op.auth?.principal ?? "";
      if (!principal.startsWith("policy-")) return next();
      return perTool(op, async () => {
        if (op.name === "prepare_report" && principal.startsWith("policy-refused-")) throw new ToolError("Reports are not for you");
        if (op.name === "prepare_report" && principal.startsWith("policy-stepup-")) throw new InsufficientScope(["report:write"]);
        return next();
      });
    },
  }),
  use: [
    trail("outer"),
    trail("inner"),
    // The red team's step: a `use-deny-…` principal is refused everything (middleware.test.ts).
    async (op, next) => {
      if (op.caller.principal.startsWith("use-deny-")) throw new McpError(-32600, `Denied by middleware: ${op.method}`);
      return next();
    },
  ],
});
