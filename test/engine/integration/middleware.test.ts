/**
 * The middleware chain (`defineApp({ use: [...] })`): ordered steps around every operation on both
 * revisions, each seeing the operation, its arguments and the caller, which may pass, refuse or
 * observe the outcome. The scoped engine app's steps act only for `use-…` principals
 * (test/engine/app/scoped-engine-app.ts): each adds what it saw to the result's `_meta.trail` on the
 * way out, so the trail lists the inner step first.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AuthFailure,
  ToolError,
  createMcpWorker,
  defineApp,
  defineTool,
  toolRateLimit,
  type Policy,
  type TokenVerifier,
} from "../../../src/mcp";
import { checkApp } from "../../../src/engine/mcp/check-app";
import { LEGACY, MODERN } from "../../../src/engine/mcp/revisions";
import scopedApp from "../app/scoped-engine-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith("use-")) throw new AuthFailure("invalid_token", "unknown");
  return { id: token, scopes: ["dice:roll", "units:read"] };
};
const worker = createMcpWorker(scopedApp, { verifyToken });
// The scoped app's own sessions, so that a 2025 session's chain is that app's.
const scopedEnv = { ...env, MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };

async function send(init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request("http://localhost/mcp", init), scopedEnv as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const convert = { name: "convert_temperature", arguments: { value: 100, from: "celsius" } };

/** Posts one request on a revision and answers the JSON-RPC response. */
type Rpc = (method: string, params: Record<string, unknown>) => Promise<RpcMessage>;

const modern =
  (token: string): Rpc =>
  async (method, params) => {
    const { message, headers } = buildModernRequest(method, params);
    const res = await send({ method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
    return (await res.json()) as RpcMessage;
  };

async function legacy(token: string): Promise<Rpc> {
  const headers = (sessionId?: string) => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const init = await send({
    method: "POST",
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  let id = 0;
  return async (method, params) => {
    const res = await send({
      method: "POST",
      headers: headers(sessionId),
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    return (await res.json()) as RpcMessage;
  };
}

const REVISIONS: [string, (token: string) => Rpc | Promise<Rpc>][] = [
  ["2026-07-28", modern],
  ["2025-11-25 (in the session's object)", legacy],
];

for (const [revision, open] of REVISIONS) {
  describe(`the middleware chain, ${revision}`, () => {
    it("runs its steps in order around the operation, each seeing the operation, its arguments and the caller, and the outcome", async () => {
      const principal = `use-${crypto.randomUUID()}`;
      const rpc = await open(principal);
      const called = await rpc("tools/call", convert);
      expect(called.result.structuredContent).toMatchObject({ fahrenheit: 212 });
      const seen = { kind: "tool", name: "convert_temperature", arguments: convert.arguments, principal, isError: false };
      // Inner first: "outer" wraps "inner", as listed in `use`.
      expect(called.result._meta.trail).toEqual([
        { step: "inner", ...seen },
        { step: "outer", ...seen },
      ]);
      // Around every operation, not only calls: a list and a read go through the same chain.
      const listed = await rpc("tools/list", {});
      expect(listed.result._meta.trail.map((t: { step: string; kind?: string }) => [t.step, t.kind])).toEqual([
        ["inner", undefined],
        ["outer", undefined],
      ]);
      const read = await rpc("resources/read", { uri: "units://kelvin" });
      expect(read.result._meta.trail.map((t: { kind: string; name: string }) => [t.kind, t.name])).toEqual([
        ["resource", "units://kelvin"],
        ["resource", "units://kelvin"],
      ]);
    });

    it("a step refuses with a ToolError (a tool result the model reads) or an McpError (a JSON-RPC error); the handler and the outer step's observation do not run", async () => {
      const refused = await (await open(`use-refused-${crypto.randomUUID()}`))("tools/call", convert);
      expect(refused.result).toMatchObject({ isError: true, content: [{ type: "text", text: "Conversions are not for you" }] });
      expect(refused.result.structuredContent).toBeUndefined();
      expect(refused.result._meta?.trail).toBeUndefined();
      const failed = await (await open(`use-error-${crypto.randomUUID()}`))("tools/call", convert);
      expect(failed.error).toMatchObject({ code: -32602, message: "Conversions refused" });
    });

    it("observes a tool's own error result", async () => {
      const rpc = await open(`use-${crypto.randomUUID()}`);
      const cold = await rpc("tools/call", { name: "convert_temperature", arguments: { value: -500, from: "celsius" } });
      expect(cold.result.isError).toBe(true);
      expect(cold.result._meta.trail.map((t: { isError: boolean }) => t.isError)).toEqual([true, true]);
    });
  });
}

describe("middleware without defineAuthorization (2026-07-28, no authentication)", () => {
  const calls: string[] = [];
  const logged: string[] = [];
  beforeEach(() => {
    logged.length = 0;
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  });
  afterEach(() => vi.restoreAllMocks());
  const app = defineApp({
    info: { name: "use-only", version: "0" },
    tools: [defineTool({ name: "ping_tool", handler: () => "pong" }), defineTool({ name: "closed", handler: () => "never" })],
    use: [
      async (op, next) => {
        calls.push(`${op.method} ${op.name ?? ""}`.trim());
        return next();
      },
      (op, next) => {
        if (op.name === "closed") throw new ToolError("closed today");
        return next();
      },
    ],
  });
  const plain = createMcpWorker(app);
  const post = async (method: string, params: Record<string, unknown>) => {
    const { message, headers } = buildModernRequest(method, params);
    const ctx = createExecutionContext();
    const res = await plain.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return (await res.json()) as RpcMessage;
  };

  it("runs the app's steps for an anonymous caller, in order, and a step's ToolError is the call's result", async () => {
    expect((await post("tools/call", { name: "ping_tool" })).result.content[0].text).toBe("pong");
    expect((await post("tools/call", { name: "closed" })).result).toMatchObject({ isError: true, content: [{ text: "closed today" }] });
    expect(calls).toEqual(["tools/call ping_tool", "tools/call closed"]);
  });

  it("a plain (op, next) => … function in `use` is a step, with no helper around it", async () => {
    let seen = "";
    const bare: Policy = (op, next) => {
      seen = `${op.method} ${op.name}`;
      return next();
    };
    const served = createMcpWorker(
      defineApp({ info: { name: "bare", version: "0" }, tools: [defineTool({ name: "t", handler: () => "x" })], use: [bare] }),
    );
    const { message, headers } = buildModernRequest("tools/call", { name: "t" });
    const res = await served.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as RpcMessage).result.content[0].text).toBe("x");
    expect(seen).toBe("tools/call t");
    // The app check takes it as it is; what is not a function it names.
    expect(checkApp(defineApp({ info: { name: "bare", version: "0" }, use: [bare, toolRateLimit(() => undefined)] }))).toEqual([]);
    expect(checkApp(defineApp({ info: { name: "bare", version: "0" }, use: [{} as never] }))).toEqual([
      expect.stringMatching(/^use\[0\]: each middleware step is a function/),
    ]);
  });

  it("a second next() is refused with an error that says so, and the operation runs once", async () => {
    let runs = 0;
    const twice = createMcpWorker(
      defineApp({
        info: { name: "twice", version: "0" },
        tools: [defineTool({ name: "count", handler: () => String(++runs) })],
        use: [
          async (_op, next) => {
            await next();
            return next();
          },
        ],
      }),
    );
    const { message, headers } = buildModernRequest("tools/call", { name: "count" });
    const res = await twice.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      createExecutionContext(),
    );
    const answer = (await res.json()) as RpcMessage;
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringMatching(/called next\(\) twice/) });
    expect(runs).toBe(1);
  });
});

/**
 * The red team's shape: one step refuses a principal everything. Every method either revision serves
 * through its core or itself (tasks, a 2025 subscription, the held listen stream) is refused by it;
 * only what is the session's own (initialize, ping, logging/setLevel) is not an operation.
 */
describe("a deny-everything step", () => {
  const params = {
    name: "roll_dice",
    uri: "units://kelvin",
    taskId: "task_0123456789abcdef0123456789abcdef",
    ref: { type: "ref/prompt", name: "explain_unit" },
    argument: { name: "unit", value: "k" },
    notifications: { toolsListChanged: true },
    inputResponses: {},
  };
  const tasksDeclared = { extensions: { "io.modelcontextprotocol/tasks": {} } };

  it("refuses every method of 2026-07-28, the task methods and subscriptions/listen included", async () => {
    const token = `use-deny-${crypto.randomUUID()}`;
    const methods = [...Object.keys(MODERN.methods), ...MODERN.taskMethods, "subscriptions/listen"];
    for (const method of methods) {
      const { message, headers } = buildModernRequest(method, params, { capabilities: tasksDeclared });
      const res = await send({ method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
      const answer = (await res.json()) as RpcMessage;
      expect([method, answer.error?.message]).toEqual([method, `Denied by middleware: ${method}`]);
    }
  });

  it("refuses every method of a 2025-11-25 session, the task methods and resources/subscribe included", async () => {
    const rpc = await legacy(`use-deny-${crypto.randomUUID()}`);
    const methods = [...Object.keys(LEGACY.methods), ...LEGACY.taskMethods, "resources/subscribe", "resources/unsubscribe"];
    for (const method of methods) {
      const answer = await rpc(method, params);
      expect([method, answer.error?.message]).toEqual([method, `Denied by middleware: ${method}`]);
    }
  });
});
