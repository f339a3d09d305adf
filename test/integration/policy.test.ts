/**
 * The policy seam (defineAuthorization({ policy })): one function around every operation that sees
 * the operation, its arguments and ctx.auth, and may pass, refuse or observe it; and per-tool rate
 * limits on the Rate Limiting binding, answered as a tool result the model reads.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { AuthFailure, McpError, ToolError, createMcpWorker, defineApp, defineAuthorization, defineTool, toolRateLimit, type Operation, type TokenVerifier } from "../../src/mcp";
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
        if (op.name === "transfer" && (op.arguments.amount as number) > 100) throw new ToolError("Transfers above 100 need a human's approval");
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
  const res = await worker.fetch(new Request("http://localhost/mcp", { method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) }), env as never, ctx);
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
    const alice = `user-${crypto.randomUUID()}`;
    const bob = `user-${crypto.randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await call("tools/call", { name: "search", arguments: { q: `x${i}` } }, alice)).body.result.isError).toBeUndefined();
    const limited = await call("tools/call", { name: "search", arguments: { q: "x4" } }, alice);
    expect(limited.status).toBe(200);
    expect(limited.body.result).toMatchObject({ isError: true, content: [{ text: "Rate limit reached for the tool search: try again in 60 seconds." }], _meta: { retryAfterSeconds: 60 } });
    // Another principal, and another tool of the same principal, have budgets of their own.
    expect((await call("tools/call", { name: "search", arguments: { q: "y" } }, bob)).body.result.isError).toBeUndefined();
    expect((await call("tools/call", { name: "transfer", arguments: { amount: 1 } }, alice)).body.result.isError).toBeUndefined();
  });
});
