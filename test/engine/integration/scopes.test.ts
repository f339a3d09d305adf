/**
 * Authorization per operation (docs/authorization.md): scopes declared on tools, resources,
 * templates and prompts, checked once the body names the operation, answered with the 403 step-up
 * challenge on both revisions; ctx.auth in handlers; scopes as identity providers send them.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import * as v from "valibot";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  AuthFailure,
  ErrorCode,
  InsufficientScope,
  McpError,
  createMcpWorker,
  defineApp,
  defineAuthorization,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  jwtAuth,
  testClient,
  text,
  type TokenVerifier,
  type WorkerOptions,
} from "../../../src/mcp";
import conformanceApp from "../conformance/app";
import conformanceEntry from "../conformance/index";
import { conformanceTokens } from "../conformance/scopes";
import scoped from "../app/scoped-engine-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const PRM = "http://localhost/.well-known/oauth-protected-resource/mcp";
const AS = "https://as.example.test";

async function send(
  worker: { fetch(r: Request, e: never, c: ExecutionContext): Promise<Response> },
  init: RequestInit,
  extraEnv: Record<string, string> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(MCP, init), { ...env, ...extraEnv } as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function modern(method: string, params: Record<string, unknown>, token?: string): RequestInit {
  const { message, headers } = buildModernRequest(method, params);
  return { method: "POST", headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(message) };
}

const challengeOf = (scopes: string[]) => `Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="${scopes.join(" ")}"`;

/** The four operations of the conformance contract, the scopes each needs, and what a full token gets. */
const PAIRS: { method: string; params: Record<string, unknown>; scopes: string[] }[] = [
  {
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {} },
    scopes: ["mcp:conformance:tools:call", "mcp:conformance:tools:test_simple_text"],
  },
  {
    method: "resources/read",
    params: { uri: "test://static-text" },
    scopes: ["mcp:conformance:resources:read", "mcp:conformance:resources:static"],
  },
  {
    method: "resources/read",
    params: { uri: "test://template/123/data" },
    scopes: ["mcp:conformance:resources:read", "mcp:conformance:resources:template:123"],
  },
  {
    method: "prompts/get",
    params: { name: "test_simple_prompt" },
    scopes: ["mcp:conformance:prompts:get", "mcp:conformance:prompts:test_simple_prompt"],
  },
];

describe("the conformance fixture's scope-challenge contract, 2026-07-28", () => {
  const worker = createMcpWorker(conformanceApp, { verifyToken: conformanceTokens, authorizationServers: [AS] });

  for (const pair of PAIRS) {
    const label = `${pair.method} ${String(pair.params.name ?? pair.params.uri)}`;
    it(`${label}: the low token gets 403 naming both scopes in one challenge, with the request's id`, async () => {
      const init = modern(pair.method, pair.params, "mcp-conformance-scope-low");
      const id = JSON.parse(init.body as string).id;
      const res = await send(worker, init);
      expect(res.status).toBe(403);
      expect(res.headers.get("WWW-Authenticate")).toBe(challengeOf(pair.scopes));
      const body = (await res.json()) as RpcMessage;
      expect(body.id).toBe(id);
      expect(body.error).toMatchObject({ code: -32003, data: { scopes: pair.scopes } });
    });

    it(`${label}: the full token gets the result`, async () => {
      const res = await send(worker, modern(pair.method, pair.params, "mcp-conformance-scope-full"));
      expect(res.status).toBe(200);
      const body = (await res.json()) as RpcMessage;
      expect(body.error).toBeUndefined();
      expect(body.result.resultType).toBe("complete");
    });
  }

  it("a template's scopes name its variables: the full token (template 123) is refused template 124", async () => {
    const res = await send(worker, modern("resources/read", { uri: "test://template/124/data" }, "mcp-conformance-scope-full"));
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(
      challengeOf(["mcp:conformance:resources:read", "mcp:conformance:resources:template:124"]),
    );
  });

  it("without a token the fixture serves the operation as before; an unknown token is 401, not 403", async () => {
    const open = await send(conformanceEntry as never, modern("tools/call", { name: "test_simple_text", arguments: {} }));
    expect(open.status).toBe(200);
    const unknown = await send(conformanceEntry as never, modern("tools/call", { name: "test_simple_text", arguments: {} }, "nope"));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("WWW-Authenticate")).toMatch(/^Bearer error="invalid_token"/);
  });

  it("lists are not gated: the low token lists the tools it cannot call", async () => {
    const res = await send(worker, modern("tools/list", {}, "mcp-conformance-scope-low"));
    expect(res.status).toBe(200);
    const tools = ((await res.json()) as RpcMessage).result.tools as { name: string; scopes?: unknown }[];
    expect(tools.map((t) => t.name)).toContain("test_simple_text");
    expect(tools.every((t) => t.scopes === undefined)).toBe(true);
  });

  it("RFC 9728 metadata asks for no operation's scopes up front (least scope first: this app has no baseline)", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(PRM), env as never, ctx);
    const meta = (await res.json()) as { scopes_supported?: string[]; authorization_servers: string[] };
    expect(meta.authorization_servers).toEqual([AS]);
    expect(meta.scopes_supported).toBeUndefined();
  });
});

/**
 * A 2025 session of the engine app whose roll_dice needs `dice:roll`: the edge checks the scoped
 * variant's declarations, the session object runs the engine app (MCP_SESSION is bound to it).
 */
describe("2025-11-25: a session outlives a step-up", () => {
  const tokens: Record<string, string[]> = { low: [], full: ["dice:roll"] };
  const verifyToken: TokenVerifier = async (token) => {
    if (!Object.hasOwn(tokens, token)) throw new AuthFailure("invalid_token", "unknown");
    return { id: "same-user", scopes: tokens[token]! };
  };
  const worker = createMcpWorker(scoped, { verifyToken, authorizationServers: [AS] });
  // The sessions of the same app, so that a session's own checks are its (the engine app's carry none).
  const scopedEnv = { MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED } as never;
  const headers = (token: string, sessionId?: string) => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const post = (token: string, body: object, sessionId?: string) =>
    send(worker, { method: "POST", headers: headers(token, sessionId), body: JSON.stringify(body) }, scopedEnv);

  it("the low token is challenged in the session; the same principal with more scopes goes on in the same session", async () => {
    const init = await post("low", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    expect(sessionId).toBeTruthy();
    const roll = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "roll_dice", arguments: { sides: 6 } } };
    const refused = await post("low", roll, sessionId);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("WWW-Authenticate")).toBe(challengeOf(["dice:roll"]));
    expect(((await refused.json()) as RpcMessage).error).toMatchObject({ code: -32003, data: { scopes: ["dice:roll"] } });
    // The session is untouched: the low token still uses it for what it may do.
    const ping = await post("low", { jsonrpc: "2.0", id: 8, method: "ping" }, sessionId);
    expect(ping.status).toBe(200);
    const stepped = await post("full", { ...roll, id: 9 }, sessionId);
    expect(stepped.status).toBe(200);
    const body = (await stepped.json()) as RpcMessage;
    expect(body.id).toBe(9);
    expect(body.result.content[0].text).toMatch(/^Rolled 1d6/);
  });

  it("a task's owner reaching it in the session is checked again for the task tool's scopes, with the token it holds then", async () => {
    const init = await post("full", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    const made = await post(
      "full",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "prepare_report", arguments: { topic: "scopes", pauseMs: 30_000 }, task: {} },
      },
      sessionId,
    );
    expect(made.status).toBe(200);
    const { taskId } = ((await made.json()) as RpcMessage).result.task;
    // The same principal, its scopes narrowed since (a new token without dice:roll).
    for (const [id, method] of [
      [3, "tasks/get"],
      [4, "tasks/result"],
      [5, "tasks/cancel"],
    ] as const) {
      const refused = await post("low", { jsonrpc: "2.0", id, method, params: { taskId } }, sessionId);
      expect(refused.status, method).toBe(403);
      expect(refused.headers.get("WWW-Authenticate")).toBe(challengeOf(["dice:roll"]));
      expect((await refused.json()) as RpcMessage).toMatchObject({ id, error: { code: -32003, data: { scopes: ["dice:roll"] } } });
    }
    // Stepped up again, it reaches the task in the same session (and stops it).
    const got = (await (
      await post("full", { jsonrpc: "2.0", id: 6, method: "tasks/get", params: { taskId } }, sessionId)
    ).json()) as RpcMessage;
    expect(got.result).toMatchObject({ taskId, status: "working" });
    const cancelled = (await (
      await post("full", { jsonrpc: "2.0", id: 7, method: "tasks/cancel", params: { taskId } }, sessionId)
    ).json()) as RpcMessage;
    expect(cancelled.result).toMatchObject({ taskId, status: "cancelled" });
  });

  it("2026-07-28: a task tool is checked before its task is made, and when its owner reaches it", async () => {
    const caps = { capabilities: { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } };
    const report = (token: string) => {
      const { message, headers } = buildModernRequest("tools/call", { name: "prepare_report", arguments: { topic: "scopes" } }, caps);
      return send(worker, { method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
    };
    const refused = await report("low");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("WWW-Authenticate")).toBe(challengeOf(["dice:roll"]));
    const made = (await (await report("full")).json()) as RpcMessage;
    expect(made.result.resultType).toBe("task");
    // The owner reaching the task later is checked with the token it holds then.
    const get = (token: string) => {
      const { message, headers } = buildModernRequest("tasks/get", { taskId: made.result.taskId }, caps);
      return send(worker, { method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
    };
    const downscoped = await get("low");
    expect(downscoped.status).toBe(403);
    expect(downscoped.headers.get("WWW-Authenticate")).toBe(challengeOf(["dice:roll"]));
    const owner = await get("full");
    expect(owner.status).toBe(200);
    expect(((await owner.json()) as RpcMessage).result.taskId).toBe(made.result.taskId);
  });
});

/** An app that shows ctx.auth, refuses by argument, and declares implications and a throwing template. */
const ran: string[] = [];
const scopedApp = defineApp({
  info: { name: "scoped", version: "0" },
  tools: [
    defineTool({
      name: "whoami",
      input: v.object({}),
      handler: (_args, ctx) => JSON.stringify(ctx.auth ?? null),
    }),
    defineTool({
      name: "delete_note",
      scopes: ["notes:write"],
      input: v.object({ id: v.string() }),
      handler: ({ id }, ctx) => {
        // An authorization that depends on the arguments: archived notes need the admin scope.
        if (id.startsWith("archived-") && !ctx.auth?.scopes.includes("notes:admin"))
          throw new InsufficientScope(["notes:write", "notes:admin"]);
        ran.push(`delete ${id}`);
        return "deleted";
      },
    }),
  ],
  resources: [defineResource({ uri: "notes://index", name: "index", scopes: ["notes:read"], read: () => (ran.push("index"), "[]") })],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: "broken://{id}",
      name: "broken",
      scopes: ({ id }) => {
        if (id === "boom") throw new Error("boom");
        return ["ok"];
      },
      read: () => (ran.push("broken"), "x"),
    }),
  ],
  prompts: [definePrompt({ name: "summary", get: () => [{ role: "user", content: text("hi") }] })],
  authorization: defineAuthorization({
    scopes: ["notes:read"],
    implies: { "notes:admin": ["notes:write"], "notes:write": ["notes:read"] },
    claims: ["email"],
  }),
});

describe("ctx.auth, implications, InsufficientScope from a handler, bad claims (2026-07-28 over /mcp)", () => {
  let privateKey: CryptoKey;
  let jwtEnv: Record<string, string>;
  const worker = createMcpWorker(scopedApp, { jwt: jwtAuth });
  beforeAll(async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
    jwtEnv = { AUTH_MODE: "jwt", AUTH_ISSUER: AS, AUTH_JWKS: JSON.stringify({ keys: [jwk] }) };
  });
  const token = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(AS)
      .setAudience(MCP)
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
  const call = async (method: string, params: Record<string, unknown>, claims: Record<string, unknown>) =>
    send(worker, modern(method, params, await token(claims)), jwtEnv);

  it("handlers see the principal, scopes, client id and the claims the app named, never the token", async () => {
    const bearer = await token({ scp: ["notes:read", "x"], azp: "client-9", email: "a@example.test", secret: "s" });
    const res = await send(worker, modern("tools/call", { name: "whoami", arguments: {} }, bearer), jwtEnv);
    expect(res.status).toBe(200);
    const shown = JSON.parse(((await res.json()) as RpcMessage).result.content[0].text);
    expect(shown).toEqual({
      principal: `${AS}#alice`,
      scopes: ["notes:read", "x"],
      clientId: "client-9",
      claims: { email: "a@example.test" },
    });
    expect(JSON.stringify(shown)).not.toContain(bearer);
  });

  it("the `scp` array counts as the `scope` string does; the app-wide default applies to what declares nothing", async () => {
    expect((await call("tools/call", { name: "whoami", arguments: {} }, { scp: ["notes:read"] })).status).toBe(200);
    const none = await call("tools/call", { name: "whoami", arguments: {} }, { scope: "other" });
    expect(none.status).toBe(403);
    expect(none.headers.get("WWW-Authenticate")).toBe(challengeOf(["notes:read"]));
    // The prompt declares nothing: the default covers it too.
    expect((await call("prompts/get", { name: "summary" }, { scope: "" })).status).toBe(403);
  });

  it("a broader scope implies the narrower ones, transitively", async () => {
    ran.length = 0;
    expect((await call("resources/read", { uri: "notes://index" }, { scope: "notes:admin" })).status).toBe(200);
    expect((await call("tools/call", { name: "delete_note", arguments: { id: "n1" } }, { scope: "notes:admin" })).status).toBe(200);
    const narrow = await call("tools/call", { name: "delete_note", arguments: { id: "n1" } }, { scope: "notes:read" });
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get("WWW-Authenticate")).toBe(challengeOf(["notes:write"]));
    expect(ran).toEqual(["index", "delete n1"]);
  });

  it("a handler's InsufficientScope is the same 403 challenge, with the request's id", async () => {
    const init = modern("tools/call", { name: "delete_note", arguments: { id: "archived-1" } }, await token({ scope: "notes:write" }));
    const res = await send(worker, init, jwtEnv);
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(challengeOf(["notes:write", "notes:admin"]));
    expect(((await res.json()) as RpcMessage).id).toBe(JSON.parse(init.body as string).id);
  });

  it("an McpError a handler builds with the insufficient-scope code but no scopes is answered as that error, not a 500", async () => {
    const bare = defineTool({
      name: "bare",
      handler: () => {
        throw new McpError(ErrorCode.InsufficientScope, "no scopes named");
      },
    });
    const app = defineApp({ info: { name: "bare", version: "1.0.0" }, tools: [bare] });
    const w = createMcpWorker(app, { verifyToken: async () => ({ id: "u", scopes: [] }), authorizationServers: [AS] });
    const res = await send(w, modern("tools/call", { name: "bare", arguments: {} }, "t"));
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
    expect(((await res.json()) as RpcMessage).error).toMatchObject({ code: ErrorCode.InsufficientScope, message: "no scopes named" });
  });

  it("a scope with a quote or a backslash is dropped, so it matches nothing and never reaches the header", async () => {
    const res = await call("resources/read", { uri: "notes://index" }, { scope: 'notes:read evil" x="1 \\q' });
    expect(res.status).toBe(200); // notes:read itself is clean and held
    const bad = await call("resources/read", { uri: "notes://index" }, { scp: ['notes:read"'] });
    expect(bad.status).toBe(403);
    expect(bad.headers.get("WWW-Authenticate")).toBe(challengeOf(["notes:read"]));
  });

  it("a handler's InsufficientScope names only scope tokens: a quote cannot reach the header", () => {
    expect(new InsufficientScope(['a"b', "c\\d", "ok"]).scopes).toEqual(["ok"]);
  });

  it("a token with too many or too long scopes, or scopes of the wrong type, is refused or read safely", async () => {
    const many = await call(
      "tools/call",
      { name: "whoami", arguments: {} },
      { scope: Array.from({ length: 300 }, (_, i) => `s${i}`).join(" ") },
    );
    expect(many.status).toBe(401);
    const long = await call("tools/call", { name: "whoami", arguments: {} }, { scp: ["x".repeat(300)] });
    expect(long.status).toBe(401);
    const odd = await call("tools/call", { name: "whoami", arguments: {} }, { scope: 42, scp: { "notes:read": true } });
    expect(odd.status).toBe(403);
  });

  it("a template whose scopes throw refuses the read (-32603) without running it", async () => {
    ran.length = 0;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await call("resources/read", { uri: "broken://boom" }, { scope: "ok notes:read" });
      expect(((await res.json()) as RpcMessage).error?.code).toBe(-32603);
      expect((await call("resources/read", { uri: "broken://fine" }, { scope: "ok" })).status).toBe(200);
      expect(ran).toEqual(["broken"]);
    } finally {
      logged.mockRestore();
    }
  });
});

describe("lists (2026-07-28 over /mcp)", () => {
  const verifyToken: TokenVerifier = async (token) => ({ id: "lister", scopes: token === "full" ? ["notes:write"] : ["notes:read"] });
  const hidden = defineApp({
    ...scopedApp,
    authorization: defineAuthorization({ scopes: ["notes:read"], implies: { "notes:write": ["notes:read"] }, hideUnauthorized: true }),
  });
  const list = async (app: typeof scopedApp, method: string, token: string) => {
    const res = await send(createMcpWorker(app, { verifyToken }), modern(method, {}, token));
    return ((await res.json()) as RpcMessage).result;
  };
  const names = (entries: { name: string }[]) => entries.map((e) => e.name);

  it("by default an entry the caller cannot use stays listed (so the client can step up for it)", async () => {
    expect(names((await list(scopedApp, "tools/list", "low")).tools)).toEqual(["whoami", "delete_note"]);
  });

  it("hideUnauthorized leaves it out for a caller without its scopes, and the list goes out private", async () => {
    const low = await list(hidden, "tools/list", "low");
    expect(names(low.tools)).toEqual(["whoami"]);
    expect(low.cacheScope).toBe("private");
    expect(names((await list(hidden, "tools/list", "full")).tools)).toEqual(["whoami", "delete_note"]);
    expect(names((await list(hidden, "resources/list", "low")).resources)).toEqual(["index"]);
    expect(names((await list(hidden, "prompts/list", "low")).prompts)).toEqual(["summary"]);
  });
});

describe("an externally authenticated principal (the OAuth entry's way) carries its grant's scopes", () => {
  const worker = (scopes?: string[]) =>
    createMcpWorker(scopedApp, { principal: () => (scopes ? { id: "grant-user", scopes, clientId: "c1" } : "grant-user") });
  const deleteNote = () => modern("tools/call", { name: "delete_note", arguments: { id: "n3" } });

  it("a grant with the scopes is served, one without is challenged, and a bare id holds no scopes", async () => {
    expect((await send(worker(["notes:write"]), deleteNote())).status).toBe(200);
    const low = await send(worker(["notes:read"]), deleteNote());
    expect(low.status).toBe(403);
    expect(low.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="notes:write"`);
    expect((await send(worker(), deleteNote())).status).toBe(403);
  });
});

describe("declaring scopes", () => {
  it("scopes without defineAuthorization are refused at start-up, not left unchecked", () => {
    const app = defineApp({ info: { name: "x", version: "0" }, tools: [defineTool({ name: "t", scopes: ["a"], handler: () => "" })] });
    expect(() => testClient(app)).toThrow(/defineAuthorization/);
  });

  it("a declared scope with a space or a quote is refused at start-up", () => {
    const app = defineApp({
      info: { name: "x", version: "0" },
      tools: [defineTool({ name: "t", scopes: ['a"b'], handler: () => "" })],
      authorization: defineAuthorization(),
    });
    expect(() => testClient(app)).toThrow(/scope tokens/);
  });
});

describe("testClient(app, { scopes, claims })", () => {
  it("checks declared scopes and shows ctx.auth as the Worker would", async () => {
    const low = testClient(scopedApp, { scopes: ["notes:read"], claims: { email: "t@example.test", other: 1 } });
    await expect(low.callTool("delete_note", { id: "n2" })).rejects.toBeInstanceOf(InsufficientScope);
    const shown = JSON.parse(((await low.callTool("whoami", {})).content[0] as { text: string }).text);
    expect(shown).toEqual({ principal: "test-user", scopes: ["notes:read"], claims: { email: "t@example.test" } });
    const admin = testClient(scopedApp, { scopes: ["notes:admin"] });
    await expect(admin.callTool("delete_note", { id: "archived-2" })).resolves.toMatchObject({ content: [{ text: "deleted" }] });
  });

  it("without scopes or claims it calls as an unauthenticated caller, as the Worker without AUTH_MODE would: scoped operations refused", async () => {
    const anonymous = testClient(scopedApp);
    await expect(anonymous.callTool("delete_note", { id: "n3" })).rejects.toThrow(/AUTH_MODE.*allowUnauthenticated/);
    await expect(anonymous.callTool("whoami", {})).rejects.toThrow(/notes:read/);
    const open = testClient(defineApp({ ...scopedApp, authorization: defineAuthorization({ allowUnauthenticated: true }) }));
    await expect(open.callTool("delete_note", { id: "n3" })).resolves.toMatchObject({ content: [{ text: "deleted" }] });
  });
});

describe("property: no operation runs without its scopes, and every refusal names all of them", () => {
  const universe = ["a", "b", "c", "d", "e"];
  const implies = { a: ["b"], b: ["c"] };
  const closure = (granted: string[]) => {
    const out = new Set(granted);
    for (let changed = true; changed; ) {
      changed = false;
      for (const [broad, narrow] of Object.entries(implies))
        if (out.has(broad)) for (const n of narrow) if (!out.has(n)) out.add(n), (changed = true);
    }
    return out;
  };
  const runs: string[] = [];
  const ops = universe.map((s, i) => ({ name: `op${i}`, scopes: i === 0 ? [] : [s, universe[(i + 2) % universe.length]!] }));
  const app = defineApp({
    info: { name: "prop", version: "0" },
    tools: ops.map((o) => defineTool({ name: o.name, scopes: o.scopes, handler: () => (runs.push(o.name), "ok") })),
    authorization: defineAuthorization({ implies }),
  });
  const verifyToken: TokenVerifier = async (t) => JSON.parse(atob(t.replace(/_/g, "/").replace(/-/g, "+")));
  const options: WorkerOptions = { verifyToken, authorizationServers: [AS] };
  const worker = createMcpWorker(app, options);
  const tokenFor = (who: object) => btoa(JSON.stringify(who)).replace(/\//g, "_").replace(/\+/g, "-").replace(/=+$/, "");

  it("over random principals, scope sets and operations (2026-07-28 over /mcp)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.subarray(universe),
        fc.integer({ min: 0, max: ops.length - 1 }),
        async (id, scopes, i) => {
          runs.length = 0;
          const op = ops[i]!;
          const res = await send(worker, modern("tools/call", { name: op.name, arguments: {} }, tokenFor({ id, scopes })));
          const held = closure(scopes);
          const allowed = op.scopes.every((s) => held.has(s));
          if (allowed) {
            expect(res.status).toBe(200);
            expect(runs).toEqual([op.name]);
          } else {
            expect(res.status).toBe(403);
            expect(runs).toEqual([]);
            const named = /scope="([^"]*)"/.exec(res.headers.get("WWW-Authenticate") ?? "")![1]!.split(" ");
            expect(named).toEqual(op.scopes);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
