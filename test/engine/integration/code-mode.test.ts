/**
 * `codeMode()` through /mcp (docs/code-mode.md), with the fixture app test/engine/code-mode/app.ts and
 * the Worker Loader vitest.engine.config.ts binds as LOADER: tools/list lists `search_tools` and
 * `execute`; the code's `tools.x()` are governed inner calls; and the hostile battery: no network, no
 * eval, nothing behind `tools` but the caller's tools, a clear error for a tool that does not exist,
 * capped output, an endless loop and endless waiting stopped (the server serving on), a bounded count
 * of inner calls, refusals that no try/catch in the code can swallow, syntax errors named. Without a
 * LOADER binding it serves tool search, and says so once.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import { preparedStats } from "../../../src/engine/code-mode/prepared-cache";
import { checkApp } from "../../../src/engine/mcp/check-app";
import app, { codeModeApp, seenByMiddleware } from "../code-mode/app";
import { buildModernRequest, responseIn, type RpcMessage } from "../helpers/mcp";

/** `cm-admin` holds the admin scope; any other `cm-…` token holds none. */
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith("cm-")) throw new AuthFailure("invalid_token", "unknown");
  return { id: token, scopes: token === "cm-admin" ? ["admin"] : [] };
};
const bound = env as unknown as Record<string, unknown>;
const codeEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_CODE } as never;
const USER = "cm-user";

let lines: string[];
beforeEach(() => {
  lines = [];
  seenByMiddleware.length = 0;
  for (const level of ["log", "warn"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

type Worker = ReturnType<typeof createMcpWorker>;
const worker = createMcpWorker(app, { verifyToken });

async function post(w: Worker, token: string, body: object, headers: Record<string, string>, e: unknown = codeEnv): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const res = await w.fetch(request, e as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

type Rpc = (method: string, params: Record<string, unknown>) => Promise<{ status: number; body: RpcMessage; res: Response }>;

const modern =
  (token = USER, w = worker, e: unknown = codeEnv): Rpc =>
  async (method, params) => {
    const { message, headers } = buildModernRequest(method, params, { capabilities: { elicitation: { form: {} } } });
    const res = await post(w, token, message, headers, e);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as RpcMessage, res };
  };

async function legacy(token = USER): Promise<Rpc> {
  const headers = (sessionId?: string): Record<string, string> => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const init = await post(
    worker,
    token,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    headers(),
  );
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  let id = 0;
  return async (method, params) => {
    const res = await post(worker, token, { jsonrpc: "2.0", id: ++id, method, params }, headers(sessionId));
    const text = await res.text();
    return { status: res.status, body: text ? responseIn(res, text) : ({} as RpcMessage), res };
  };
}

/** The result of `execute` with `code`, as the caller `token` gets it. */
const execute = async (code: string, rpc: Rpc = modern()) => (await rpc("tools/call", { name: "execute", arguments: { code } })).body;

const TWO_CALLS = `const added = await tools.notes_add({ title: "groceries", text: "eggs" });
const read = await tools.notes_get({ id: added.id });
console.log("added", added.id);
return { added, text: read.text };`;

for (const [revision, open] of [
  ["2026-07-28", async () => modern()],
  ["2025-11-25", () => legacy()],
] as const) {
  describe(`codeMode, ${revision}`, () => {
    it("lists search_tools and execute only, and runs code whose tools.x() are governed inner calls", async () => {
      const rpc = await open();
      const listed = await rpc("tools/list", {});
      expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toEqual(["search_tools", "execute"]);
      const result = (await execute(TWO_CALLS, rpc)).result;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toMatchObject({
        result: { added: { title: "groceries" }, text: "eggs" },
        logs: [expect.stringMatching(/^added \d+$/)],
      });
      // The middleware saw the outer call and each inner one by the inner tool's name.
      expect(seenByMiddleware).toEqual(["execute", "notes_add", "notes_get"]);
      // Each inner call has its own log line, as a direct call does.
      expect(lines.filter((l) => l.includes('"tools/call"') && l.includes("notes_")).length).toBeGreaterThanOrEqual(2);
    });
  });
}

describe("codeMode's tools", () => {
  it("search_tools answers the TypeScript declaration of each tool found", async () => {
    const found = (await modern()("tools/call", { name: "search_tools", arguments: { query: "add a note" } })).body.result;
    const add = found.structuredContent.tools.find((t: { name: string }) => t.name === "notes_add");
    expect(add.declaration).toBe(
      "/** Save a note and answer its id. */ notes_add(args: { title: string; text: string }): Promise<{ id: number; title: string }>;",
    );
    expect(found.content[0].text).toContain("notes_add(args:");
  });

  it("a tool whose name is no identifier is called by index, and a text-only tool resolves to its text", async () => {
    const result = (await execute('return await tools["users_get-by-username"]({ username: "ada" })')).result;
    expect(result.structuredContent.result).toBe("user ada");
  });

  it("a tool's own error rejects, and the code may handle it", async () => {
    const result = (await execute("try { await tools.always_fails({}) } catch (e) { return 'handled: ' + e.message }")).result;
    expect(result.structuredContent.result).toBe("handled: it failed on purpose");
    const unhandled = (await execute("await tools.always_fails({})")).result;
    expect(unhandled).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("it failed on purpose") }] });
  });
});

describe("codeMode's sandbox, hostile code", () => {
  it("has no network", async () => {
    const result = (await execute("return await fetch('https://example.com/')")).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/not permitted to access the internet/);
  });

  it("has no eval and no Function constructor", async () => {
    for (const code of ["return eval('1 + 1')", "return new Function('return 1')()", "return (async () => {}).constructor('return 1')()"]) {
      const result = (await execute(code)).result;
      expect(result.isError, code).toBe(true);
      expect(result.content[0].text, code).toMatch(/EvalError|Code generation from strings disallowed/);
    }
  });

  it("has no bindings but tools, and tools holds only the tools this caller may call", async () => {
    const code = `const { env } = await import("cloudflare:workers");
return { env: Object.keys(env), keys: Object.keys(tools), proto: typeof tools.__proto__, ctor: typeof tools.constructor,
  str: typeof tools.toString, then: typeof tools.then, frozen: Object.isFrozen(tools), set: Reflect.set(tools, "notes_add", 1) };`;
    const user = (await execute(code)).result.structuredContent.result;
    expect(user).toEqual({
      env: [],
      // Not admin_purge (the caller lacks its scope), nor the surface's own tools.
      keys: ["notes_add", "notes_get", "users_get-by-username", "always_fails", "notes_rename", "middleware_refused"],
      proto: "undefined",
      ctor: "undefined",
      str: "undefined",
      then: "undefined",
      frozen: true,
      set: false,
    });
    const admin = (await execute(code, modern("cm-admin"))).result.structuredContent.result;
    expect(admin.keys).toContain("admin_purge");
  });

  it("a tool that does not exist is a clear error", async () => {
    const result = (await execute("return await tools.notes_delete({ id: 1 })")).result;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("tools.notes_delete does not exist") }] });
  });

  it("caps a huge result and the console, and says so", async () => {
    const w = createMcpWorker(codeModeApp({ maxResultChars: 1000, maxLogChars: 100 }), { verifyToken });
    const result = (await execute("for (let i = 0; i < 50; i++) console.log('line', i); return 'x'.repeat(5_000_000)", modern(USER, w)))
      .result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.resultCut).toBe(5_000_002 - 1000);
    expect(result.structuredContent.result).toMatch(/… \[cut: 4999002 more characters\]$/);
    expect(result.structuredContent.logsCut).toBeGreaterThan(30);
    expect(result.content[0].text.length).toBeLessThan(1500);
  });

  it("ends an endless loop with a tool error, and the server serves the next request", async () => {
    for (const code of [
      "while (true) {}",
      "for (;;) { try { while (true) {} } catch {} }",
      "const f = () => f(); try { f() } catch { for (;;) {} }",
    ]) {
      const result = (await execute(code)).result;
      expect(result.isError, code).toBe(true);
      expect(result.content[0].text, code).toMatch(/step budget/);
    }
    expect((await execute("return 1 + 1")).result.structuredContent.result).toBe(2);
  });

  it("ends code that waits past the time limit", async () => {
    const w = createMcpWorker(codeModeApp({ timeoutMs: 300 }), { verifyToken });
    const result = (await execute("await new Promise((r) => setTimeout(r, 60_000)); return 1", modern(USER, w))).result;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("time limit of 300 ms") }] });
  });

  it("bounds the count of inner calls with a clear error, whatever the code catches", async () => {
    const w = createMcpWorker(codeModeApp({ maxCalls: 20 }), { verifyToken });
    const code = "for (let i = 0; i < 5000; i++) { try { await tools.notes_get({ id: 1 }) } catch {} } return 'done'";
    const result = (await execute(code, modern(USER, w))).result;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("at most 20") }] });
    // Every call made went through the chain: 20 and the one refused before it ran, none past it.
    expect(seenByMiddleware.filter((n) => n === "notes_get").length).toBe(20);
  });

  it("an insufficient scope inside execute is the outer request's 403 step-up, even when the code catches it", async () => {
    const { status, res, body } = await modern()("tools/call", {
      name: "execute",
      arguments: { code: "try { await tools.admin_purge({}) } catch { return 'swallowed' }" },
    });
    expect(body.result).toBeUndefined();
    expect(status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toContain('scope="admin"');
  });

  it("a middleware's refusal is the outer call's error, even when the code catches it", async () => {
    const body = await execute("try { await tools.middleware_refused({}) } catch { return 'swallowed' }");
    expect(body.result).toBeUndefined();
    expect(body.error).toMatchObject({ message: "middleware_refused is refused by policy" });
  });

  it("an inner tool's question is the outer call's input round, even when the code catches it, and the retry completes", async () => {
    const rpc = modern();
    const code = "try { return await tools.notes_rename({ title: 'draft' }) } catch { return 'swallowed' }";
    const first = (await rpc("tools/call", { name: "execute", arguments: { code } })).body.result as Record<string, any>;
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests)).toEqual(["notes_rename#0/name"]);
    const done = await rpc("tools/call", {
      name: "execute",
      arguments: { code },
      requestState: first.requestState,
      inputResponses: { "notes_rename#0/name": { action: "accept", content: { title: "final" } } },
    });
    expect(done.body.result.structuredContent.result).toBe("Renamed draft to final");
  });

  it("names a syntax error", async () => {
    const result = (await execute("const a = 1;\nreturn a +* 2")).result;
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^SyntaxError: Unexpected token \(line 2, column \d+\)$/) }],
    });
  });
});

describe("codeMode's kept parses (the same code run again)", () => {
  /** Code no other test runs, so its first run parses it. */
  const fresh = (code: string) => `// ${crypto.randomUUID()}\n${code}`;

  it("a second run of the same code is not parsed again, yet runs under names of its own and within its step budget", async () => {
    const named = fresh("try { null.x } catch (e) { return String(e.stack) }");
    const parsed = preparedStats.parsed;
    const stacks = [(await execute(named)).result.structuredContent.result, (await execute(named)).result.structuredContent.result];
    expect(preparedStats.parsed).toBe(parsed + 1);
    const names = stacks.map((stack: string) => /__code_[0-9a-f]+/.exec(stack)?.[0]);
    expect(names[0]).toBeDefined();
    expect(names[1]).toBeDefined();
    expect(names[1]).not.toBe(names[0]);

    const endless = fresh("for (;;) { try { while (true) {} } catch {} }");
    const reused = preparedStats.reused;
    for (let run = 0; run < 2; run++) {
      const result = (await execute(endless)).result;
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/step budget/);
    }
    expect(preparedStats.reused).toBe(reused + 1);
  });

  it("the same code run by another caller is checked against that caller's scopes", async () => {
    const code = fresh("return await tools.admin_purge({})");
    const admin = await modern("cm-admin")("tools/call", { name: "execute", arguments: { code } });
    expect(admin.body.result.structuredContent.result).toBe("purged");
    const reused = preparedStats.reused;
    const user = await modern(USER)("tools/call", { name: "execute", arguments: { code } });
    expect(preparedStats.reused).toBe(reused + 1);
    expect(user.body.result).toBeUndefined();
    expect(user.status).toBe(403);
    expect(user.res.headers.get("WWW-Authenticate")).toContain('scope="admin"');
  });
});

describe("codeMode without a LOADER binding (the Workers Free plan)", () => {
  it("serves search_tools and call_tool, and says so in the log once", async () => {
    const free = { ...(codeEnv as object), LOADER: undefined };
    const rpc = modern(USER, createMcpWorker(codeModeApp(), { verifyToken }), free);
    const listed = (await rpc("tools/list", {})).body.result.tools;
    expect(listed.map((t: { name: string }) => t.name)).toEqual(["search_tools", "call_tool"]);
    expect(listed[0].description).toContain("call_tool");
    // Tool search's answers: input schemas, which call_tool's arguments follow.
    const found = (await rpc("tools/call", { name: "search_tools", arguments: { query: "user profile" } })).body.result;
    expect(found.structuredContent.tools[0]).toMatchObject({ name: "users_get-by-username", inputSchema: { type: "object" } });
    const called = (
      await rpc("tools/call", { name: "call_tool", arguments: { name: "users_get-by-username", arguments: { username: "ada" } } })
    ).body;
    expect(called.result.content[0].text).toBe("user ada");
    const refused = (await rpc("tools/call", { name: "execute", arguments: { code: "return 1" } })).body;
    expect(refused.error).toMatchObject({ code: -32602 });
    expect(lines.filter((l) => l.includes("code_mode_without_loader"))).toHaveLength(1);
  });
});

describe("the app check", () => {
  it("names codeMode options out of range and a tool that takes a surface tool's name", () => {
    const bad = codeModeApp({ timeoutMs: 0, maxCalls: 1.5 });
    expect(checkApp(bad)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("codeMode: timeoutMs must be"),
        expect.stringContaining("codeMode: maxCalls must be"),
      ]),
    );
    const clash = { ...codeModeApp(), tools: [{ name: "execute", handler: () => "mine" }] };
    expect(checkApp(clash as never).join("\n")).toMatch(/Tool "execute" takes the name/);
  });
});
