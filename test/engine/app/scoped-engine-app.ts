/**
 * The engine test app with scopes on roll_dice and prepare_report (a task tool): what the engine
 * tests of authorization in a 2025 session's own object run (test/engine/integration/scopes.test.ts).
 * Its session class is bound only in the engine tests (vitest-index.ts), so the engine app's
 * bundle, which the budget measures, carries no authorization code.
 * Its policy acts only for principals named `policy-…` (test/engine/integration/policy.test.ts): those named
 * `policy-refused-…` may not call prepare_report, `policy-stepup-…` must step up to `report:write`
 * for it, and each counts 3 calls of it a minute.
 * caller_task is a task whose runs answer their ctx.auth (test/engine/integration/tasks-auth.test.ts); its
 * task class too is bound only in the engine tests (MCP_TASK_SCOPED).
 */
import { ErrorCode, InsufficientScope, McpError, ToolError, defineApp, defineAuthorization, defineTool, durableTask, toolRateLimit } from "../../../src/mcp";
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
    throw new McpError(ErrorCode.InsufficientScope, "no", { scopes: ['a", resource_metadata="https://evil.example', "x\r\nSet-Cookie: a=b", "ok:scope"] });
  },
});

const perTool = toolRateLimit((env: { TEST_TIGHT_RATE_LIMIT?: RateLimit }) => env.TEST_TIGHT_RATE_LIMIT, { tools: ["prepare_report"] });

const tools = [...engineApp.tools!.map((t) => (t.name === "roll_dice" || t.name === "prepare_report" ? { ...t, scopes: ["dice:roll"] } : t)), callerTask, callerInfo, callerInfoTask, hostileScope];

export default defineApp({
  ...engineApp,
  tools,
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
});
