/**
 * ctx.auth in a durable task's runs: the caller as it was when the task was made (principal, scopes,
 * client id, the claims the app selected; never the token), kept with the task's start, on both
 * revisions through /mcp. The scoped engine app's caller_task answers its run's ctx.auth as JSON; its
 * sessions and tasks are the scoped app's own classes (MCP_SESSION_SCOPED, MCP_TASK_SCOPED).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import scopedApp from "../app/scoped-engine-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { untilTask } from "../helpers/tasks";

const TOKEN_PREFIX = "taskauth-";
/** The principal a token names: not the token itself, so the token showing anywhere is a leak. */
const userOf = (token: string) => `user:${token.slice(TOKEN_PREFIX.length)}`;
/** The claims each token carries: `secret` is not selected by the app, `padding` is (and is large when asked). */
const claimsOf = (token: string) => ({
  email: `${userOf(token)}@example.com`,
  groups: ["ops", "billing"],
  secret: "not for handlers",
  ...(token.includes("-big-") ? { padding: "p".repeat(9000) } : {}),
  // A custom verifier's claim that JSON cannot write (a BigInt).
  ...(token.includes("-bigint-") ? { padding: 10n } : {}),
});
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith(TOKEN_PREFIX)) throw new AuthFailure("invalid_token", "unknown");
  return { id: userOf(token), scopes: ["dice:roll", "reports:read"], clientId: "client-42", claims: claimsOf(token) };
};
const worker = createMcpWorker(scopedApp, { verifyToken });
const bound = env as unknown as Record<string, DurableObjectNamespace>;
const scopedEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_SCOPED, MCP_TASK: bound.MCP_TASK_SCOPED } as never;

async function post(token: string, body: object, headers: Record<string, string>): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
    scopedEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** Polls until `read` gives a task that has ended, within a bound. */
const ended = (read: () => Promise<Record<string, any>>, ms = 5000) => untilTask(read, "completed", ms);

const expected = (token: string) => ({
  principal: userOf(token),
  scopes: ["dice:roll", "reports:read"],
  clientId: "client-42",
  claims: { email: `${userOf(token)}@example.com`, groups: ["ops", "billing"] },
});

describe("ctx.auth in a task's runs is the caller as it was at the create", () => {
  describe("2026-07-28", () => {
    const caps = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };
    async function rpc(token: string, method: string, params: Record<string, unknown>) {
      const { message, headers } = buildModernRequest(method, params, caps);
      const res = await post(token, message, headers);
      expect(res.status).toBe(200);
      return ((await res.json()) as RpcMessage).result;
    }
    async function runAs(token: string, name = "caller_task") {
      const created = await rpc(token, "tools/call", { name, arguments: {} });
      expect(created.resultType, JSON.stringify(created)).toBe("task");
      const done = await ended(() => rpc(token, "tasks/get", { taskId: created.taskId }));
      expect(done.status).toBe("completed");
      return JSON.parse(done.result.content[0].text);
    }

    it("shows the caller's principal, scopes, client id and selected claims; no token, no unselected claim", async () => {
      const token = `${TOKEN_PREFIX}${crypto.randomUUID()}`;
      const auth = await runAs(token);
      expect(auth).toEqual(expected(token));
      expect(JSON.stringify(auth)).not.toContain(TOKEN_PREFIX);
    });

    it("ctx.caller in the runs is the Caller of the create: authenticated, its rate-limit key the principal's", async () => {
      const token = `${TOKEN_PREFIX}${crypto.randomUUID()}`;
      expect(await runAs(token, "caller_info_task")).toEqual({
        ...expected(token),
        authenticated: true,
        rateLimitKey: `principal:${userOf(token)}`,
      });
    });

    it("keeps at most 8 KiB of claims: a selected claim past that is left out, the others stay", async () => {
      const token = `${TOKEN_PREFIX}-big-${crypto.randomUUID()}`;
      const auth = await runAs(token);
      expect(auth).toEqual(expected(token));
      expect(auth.claims).not.toHaveProperty("padding");
    });

    it("leaves out a selected claim JSON cannot write (a custom verifier's BigInt); the task is made and runs", async () => {
      const token = `${TOKEN_PREFIX}-bigint-${crypto.randomUUID()}`;
      const auth = await runAs(token);
      expect(auth).toEqual(expected(token));
    });
  });

  describe("2025-11-25 (in the session's object)", () => {
    const headersOf = (sessionId?: string): Record<string, string> => ({
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
    });

    it("shows the caller's principal, scopes, client id and selected claims in the task's result", async () => {
      const token = `${TOKEN_PREFIX}${crypto.randomUUID()}`;
      const capabilities = { tasks: { requests: { tools: { call: {} } } } };
      const init = await post(
        token,
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } },
        },
        headersOf(),
      );
      const sessionId = init.headers.get("Mcp-Session-Id")!;
      expect(sessionId).toBeTruthy();
      let id = 0;
      const rpc = async (method: string, params: Record<string, unknown>) => {
        const res = await post(token, { jsonrpc: "2.0", id: ++id, method, params }, headersOf(sessionId));
        expect(res.status).toBe(200);
        return ((await res.json()) as RpcMessage).result;
      };
      const created = await rpc("tools/call", { name: "caller_task", arguments: {}, task: {} });
      const taskId = created.task.taskId;
      expect(taskId).toBeTruthy();
      expect((await ended(() => rpc("tasks/get", { taskId }))).status).toBe("completed");
      const result = await rpc("tasks/result", { taskId });
      expect(JSON.parse(result.content[0].text)).toEqual(expected(token));
    });
  });
});
