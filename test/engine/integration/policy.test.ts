/**
 * The policy seam (defineAuthorization({ policy })): one function around every operation that sees
 * the operation, its arguments and ctx.auth, and may pass, refuse or observe it; and per-tool rate
 * limits on the Rate Limiting binding, answered as a tool result the model reads.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  AuthFailure,
  McpError,
  ToolError,
  createMcpWorker,
  defineApp,
  defineAuthorization,
  defineTool,
  toolRateLimit,
  type Operation,
  type TokenVerifier,
} from "../../../src/mcp";
import { taskIndexKey, taskIndexStub } from "../../../src/engine/objects/addresses";
import { MODERN } from "../../../src/engine/mcp/revisions";
import scopedApp from "../app/scoped-engine-app";
import { inOneLimiterWindow } from "../helpers/limiter-window";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const seen: { method: string; name?: string; arguments: Record<string, unknown>; principal?: string; outcome?: unknown }[] = [];
const limit = toolRateLimit((e: { TEST_TIGHT_RATE_LIMIT?: RateLimit }) => e.TEST_TIGHT_RATE_LIMIT, { tools: ["search"] });

const app = defineApp({
  info: { name: "policy", version: "0" },
  tools: [
    defineTool({ name: "search", input: v.object({ q: v.string() }), handler: ({ q }) => `found ${q}` }),
    defineTool({ name: "transfer", input: v.object({ amount: v.number() }), handler: ({ amount }) => `sent ${amount}` }),
  ],
  authorization: defineAuthorization({
    policy: (op: Operation, next) =>
      limit(op, async () => {
        const entry = { method: op.method, name: op.name, arguments: op.arguments, principal: op.auth?.principal };
        seen.push(entry);
        // The app's own rules, with the arguments: a tool error the model reads, or a protocol error.
        if (op.name === "transfer" && (op.arguments.amount as number) > 100)
          throw new ToolError("Transfers above 100 need a human's approval");
        if (op.name === "transfer" && (op.arguments.amount as number) < 0) throw new McpError(-32602, "Negative transfers are refused");
        const outcome = await next();
        Object.assign(entry, { outcome });
        return outcome;
      }),
  }),
});

const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith("user-")) throw new AuthFailure("invalid_token", "unknown");
  return { id: token, scopes: [] };
};
const worker = createMcpWorker(app, { verifyToken });

async function call(method: string, params: Record<string, unknown>, token: string): Promise<{ status: number; body: RpcMessage }> {
  const { message, headers } = buildModernRequest(method, params);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(message),
    }),
    env as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as RpcMessage };
}

describe("the policy seam (2026-07-28 over /mcp)", () => {
  it("sees every operation with its arguments and the caller, and observes the outcome", async () => {
    seen.length = 0;
    const user = `user-${crypto.randomUUID()}`;
    await call("tools/list", {}, user);
    const ok = await call("tools/call", { name: "transfer", arguments: { amount: 5 } }, user);
    expect(ok.body.result.content[0].text).toBe("sent 5");
    expect(seen.map((s) => [s.method, s.name, s.principal])).toEqual([
      ["tools/list", undefined, user],
      ["tools/call", "transfer", user],
    ]);
    expect(seen[1]!.arguments).toEqual({ amount: 5 });
    expect(seen[1]!.outcome).toMatchObject({ content: [{ text: "sent 5" }] });
  });

  it("refuses with a tool result the model reads (ToolError) or a JSON-RPC error (McpError); the handler does not run", async () => {
    const user = `user-${crypto.randomUUID()}`;
    const big = await call("tools/call", { name: "transfer", arguments: { amount: 500 } }, user);
    expect(big.status).toBe(200);
    expect(big.body.result).toMatchObject({ isError: true, content: [{ text: "Transfers above 100 need a human's approval" }] });
    const negative = await call("tools/call", { name: "transfer", arguments: { amount: -1 } }, user);
    expect(negative.body.error).toMatchObject({ code: -32602, message: "Negative transfers are refused" });
  });
});

describe("toolRateLimit on the Rate Limiting binding (3 a minute here)", () => {
  it("over the limit a call is an isError result with the retry time, per principal and tool; not an HTTP 429", async () => {
    await inOneLimiterWindow();
    const alice = `user-${crypto.randomUUID()}`;
    const bob = `user-${crypto.randomUUID()}`;
    for (let i = 0; i < 3; i++)
      expect((await call("tools/call", { name: "search", arguments: { q: `x${i}` } }, alice)).body.result.isError).toBeUndefined();
    const limited = await call("tools/call", { name: "search", arguments: { q: "x4" } }, alice);
    expect(limited.status).toBe(200);
    expect(limited.body.result).toMatchObject({
      isError: true,
      content: [{ text: "Rate limit reached for the tool search: try again in 60 seconds." }],
      _meta: { retryAfterSeconds: 60 },
    });
    // Another principal, and another tool of the same principal, have budgets of their own.
    expect((await call("tools/call", { name: "search", arguments: { q: "y" } }, bob)).body.result.isError).toBeUndefined();
    expect((await call("tools/call", { name: "transfer", arguments: { amount: 1 } }, alice)).body.result.isError).toBeUndefined();
  });
});

/**
 * A tools/call that becomes a task, through the scoped engine app (its policy: principals
 * `policy-refused-…` may not call prepare_report, and each `policy-…` calls it 3 times a minute).
 * The policy runs around the create with the caller's auth, as around a plain call.
 */
describe("the policy sees the caller of a task-augmented call", () => {
  const verifyToken: TokenVerifier = async (token) => {
    if (!token.startsWith("policy-")) throw new AuthFailure("invalid_token", "unknown");
    return { id: token, scopes: ["dice:roll"] };
  };
  const scopedWorker = createMcpWorker(scopedApp, { verifyToken });
  const report = { name: "prepare_report", arguments: { topic: "policy" } };

  async function send(init: RequestInit, extraEnv: Record<string, unknown> = {}): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await scopedWorker.fetch(new Request("http://localhost/mcp", init), { ...env, ...extraEnv } as never, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  describe("2026-07-28", () => {
    const caps = { capabilities: { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } };
    const postAsTask = (token: string) => {
      const { message, headers } = buildModernRequest("tools/call", report, caps);
      return send({ method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
    };
    const callAsTask = async (token: string) => {
      const res = await postAsTask(token);
      expect(res.status).toBe(200);
      return ((await res.json()) as RpcMessage).result;
    };
    const tasksOf = async (principal: string) =>
      (await taskIndexStub(env as never, taskIndexKey({ era: MODERN.era, principal }, "")).list(undefined, 50))!.tasks;

    it("a refusal of the task tool refuses the create: an isError result the model reads, and no task", async () => {
      const refused = `policy-refused-${crypto.randomUUID()}`;
      const answer = await callAsTask(refused);
      expect(answer).toMatchObject({ isError: true, content: [{ type: "text", text: "Reports are not for you" }] });
      expect(answer.taskId).toBeUndefined();
      expect(await tasksOf(refused)).toEqual([]);
      // Another principal's call still becomes its task.
      const allowed = `policy-${crypto.randomUUID()}`;
      expect((await callAsTask(allowed)).resultType).toBe("task");
      expect(await tasksOf(allowed)).toHaveLength(1);
      // InsufficientScope from the policy: the 403 step-up challenge, and no task.
      const stepUp = `policy-stepup-${crypto.randomUUID()}`;
      const challenged = await postAsTask(stepUp);
      expect(challenged.status).toBe(403);
      expect(challenged.headers.get("WWW-Authenticate")).toContain('error="insufficient_scope"');
      expect(challenged.headers.get("WWW-Authenticate")).toContain('scope="report:write"');
      expect(((await challenged.json()) as RpcMessage).error).toMatchObject({ code: -32003, data: { scopes: ["report:write"] } });
      expect(await tasksOf(stepUp)).toEqual([]);
    });

    it("toolRateLimit counts task-augmented calls by principal and tool", async () => {
      await inOneLimiterWindow();
      const alice = `policy-${crypto.randomUUID()}`;
      for (let i = 0; i < 3; i++) expect((await callAsTask(alice)).resultType).toBe("task");
      const limited = await callAsTask(alice);
      expect(limited).toMatchObject({
        isError: true,
        content: [{ text: "Rate limit reached for the tool prepare_report: try again in 60 seconds." }],
        _meta: { retryAfterSeconds: 60 },
      });
      expect(await tasksOf(alice)).toHaveLength(3);
      expect((await callAsTask(`policy-${crypto.randomUUID()}`)).resultType).toBe("task");
    });
  });

  describe("2025-11-25 (in the session's object)", () => {
    // The scoped app's own sessions, so that the session's policy is that app's.
    const scopedEnv = { MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
    const post = (token: string, body: object, sessionId?: string) =>
      send(
        {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            Authorization: `Bearer ${token}`,
            ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
          },
          body: JSON.stringify(body),
        },
        scopedEnv,
      );
    async function session(token: string) {
      const init = await post(token, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      const sessionId = init.headers.get("Mcp-Session-Id")!;
      expect(sessionId).toBeTruthy();
      let id = 0;
      const rpc = async (method: string, params: Record<string, unknown>) => {
        const res = await post(token, { jsonrpc: "2.0", id: ++id, method, params }, sessionId);
        expect(res.status).toBe(200);
        return (await res.json()) as RpcMessage;
      };
      return Object.assign(rpc, { sessionId });
    }

    it("a refusal of the task tool refuses the create (no task in tasks/list); toolRateLimit counts the task calls", async () => {
      await inOneLimiterWindow();
      const refused = await session(`policy-refused-${crypto.randomUUID()}`);
      const answer = (await refused("tools/call", { ...report, task: {} })).result;
      expect(answer).toMatchObject({ isError: true, content: [{ type: "text", text: "Reports are not for you" }] });
      expect(answer.task).toBeUndefined();
      expect((await refused("tasks/list", {})).result.tasks).toEqual([]);

      // InsufficientScope from the policy: the 403 step-up challenge in the session, and no task.
      const stepUpToken = `policy-stepup-${crypto.randomUUID()}`;
      const stepUp = await session(stepUpToken);
      const challenged = await post(
        stepUpToken,
        { jsonrpc: "2.0", id: 9, method: "tools/call", params: { ...report, task: {} } },
        stepUp.sessionId,
      );
      expect(challenged.status).toBe(403);
      expect(challenged.headers.get("WWW-Authenticate")).toContain('scope="report:write"');
      expect(((await challenged.json()) as RpcMessage).error).toMatchObject({ code: -32003, data: { scopes: ["report:write"] } });
      expect((await stepUp("tasks/list", {})).result.tasks).toEqual([]);

      const alice = await session(`policy-${crypto.randomUUID()}`);
      for (let i = 0; i < 3; i++) expect((await alice("tools/call", { ...report, task: {} })).result.task.taskId).toBeTruthy();
      const limited = (await alice("tools/call", { ...report, task: {} })).result;
      expect(limited).toMatchObject({
        isError: true,
        content: [{ text: "Rate limit reached for the tool prepare_report: try again in 60 seconds." }],
        _meta: { retryAfterSeconds: 60 },
      });
      expect((await alice("tasks/list", {})).result.tasks).toHaveLength(3);
    });
  });
});
