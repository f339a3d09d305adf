/**
 * One Caller (docs/authorization.md): whichever way a request is authenticated (a static token, a
 * JWT, a custom verifyToken, the `principal` hook, or none), handlers see the same value as
 * `ctx.caller` (principal, scopes, client id, claims, whether anybody authenticated it, and the key
 * its rate limits count), on both revisions; and the edge's refusals around it: RFC 6750 challenges,
 * a verifier result without an id, and only scope tokens in a challenge whoever named them.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AuthFailure,
  ErrorCode,
  McpError,
  createMcpWorker,
  defineApp,
  defineAuthorization,
  defineTool,
  jwtAuth,
  toolRateLimit,
  type TokenVerifier,
} from "../../../src/mcp";
import scoped from "../app/scoped-engine-app";
import { inOneLimiterWindow } from "../helpers/limiter-window";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const AS = "https://as.example.test";
const PRM = "http://localhost/.well-known/oauth-protected-resource/mcp";

type Fetcher = { fetch(r: Request, e: never, c: ExecutionContext): Promise<Response> };

async function send(worker: Fetcher, init: RequestInit, extraEnv: Record<string, unknown> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(MCP, init), { ...env, ...extraEnv } as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function modern(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}): RequestInit {
  const built = buildModernRequest(method, params);
  return { method: "POST", headers: { ...built.headers, ...headers }, body: JSON.stringify(built.message) };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** ctx.caller as the caller_info tool of the scoped engine app answers it on 2026-07-28. */
async function callerSeen(
  worker: Fetcher,
  headers: Record<string, string>,
  extraEnv: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await send(worker, modern("tools/call", { name: "caller_info", arguments: {} }, headers), extraEnv);
  expect(res.status).toBe(200);
  const body = (await res.json()) as RpcMessage;
  return JSON.parse(body.result.content[0].text);
}

const verifyToken: TokenVerifier = async (token) => {
  if (token !== "alice-token") throw new AuthFailure("invalid_token", "unknown");
  return { id: "alice", scopes: ["dice:roll"], clientId: "app-1", claims: { email: "alice@example.test", secret: "never shown" } };
};

describe("one Caller, built at the edge for every way a request is authenticated", () => {
  it("a custom verifyToken: principal, scopes, client id and only the claims the app names; its budget is the principal's", async () => {
    const worker = createMcpWorker(scoped, { verifyToken, authorizationServers: [AS] });
    expect(await callerSeen(worker, bearer("alice-token"))).toEqual({
      principal: "alice",
      scopes: ["dice:roll"],
      clientId: "app-1",
      claims: { email: "alice@example.test" },
      authenticated: true,
      rateLimitKey: "principal:alice",
    });
  });

  it("a static token (AUTH_MODE=token): the principal `token` with AUTH_SCOPES", async () => {
    const worker = createMcpWorker(scoped);
    const seen = await callerSeen(worker, bearer("static-secret"), {
      AUTH_MODE: "token",
      MCP_AUTH_TOKEN: "static-secret",
      AUTH_SCOPES: "dice:roll",
    });
    expect(seen).toEqual({ principal: "token", scopes: ["dice:roll"], claims: {}, authenticated: true, rateLimitKey: "principal:token" });
  });

  it("a JWT (AUTH_MODE=jwt): the principal is <issuer>#<sub>, the client id from client_id", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
    const issuer = "https://auth.example.test";
    const jwt = await new SignJWT({ scope: "dice:roll", client_id: "cli", email: "bob@example.test" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(MCP)
      .setSubject("bob")
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
      .sign(pair.privateKey);
    const worker = createMcpWorker(scoped, { jwt: jwtAuth });
    const seen = await callerSeen(worker, bearer(jwt), {
      AUTH_MODE: "jwt",
      AUTH_ISSUER: issuer,
      AUTH_JWKS: JSON.stringify({ keys: [jwk] }),
    });
    expect(seen).toEqual({
      principal: `${issuer}#bob`,
      scopes: ["dice:roll"],
      clientId: "cli",
      claims: { email: "bob@example.test" },
      authenticated: true,
      rateLimitKey: `principal:${issuer}#bob`,
    });
  });

  it("the principal hook (the OAuth entry's grant, a router's session): what it says, with its scopes", async () => {
    const worker = createMcpWorker(scoped, { principal: () => ({ id: "carol", scopes: ["dice:roll"], claims: { groups: ["a"] } }) });
    expect(await callerSeen(worker, {})).toEqual({
      principal: "carol",
      scopes: ["dice:roll"],
      claims: { groups: ["a"] },
      authenticated: true,
      rateLimitKey: "principal:carol",
    });
  });

  it("no authentication: an anonymous caller whose budget is its address (an IPv6 client's /64)", async () => {
    const worker = createMcpWorker(scoped);
    expect(await callerSeen(worker, { "CF-Connecting-IP": "203.0.113.9" })).toEqual({
      principal: "",
      scopes: [],
      claims: {},
      authenticated: false,
      rateLimitKey: "ip:203.0.113.9",
    });
    expect((await callerSeen(worker, { "CF-Connecting-IP": "2001:db8:1:2:3:4:5:6" })).rateLimitKey).toBe("ip:2001:db8:1:2::/64");
  });

  it("2025-11-25: a session's handler sees the Caller of the request it runs", async () => {
    const worker = createMcpWorker(scoped, { verifyToken, authorizationServers: [AS] });
    const scopedEnv = { MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
    const headers = (sessionId?: string) => ({
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...bearer("alice-token"),
      ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
    });
    const init = await send(
      worker,
      {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      },
      scopedEnv,
    );
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    const res = await send(
      worker,
      {
        method: "POST",
        headers: headers(sessionId),
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "caller_info", arguments: {} } }),
      },
      scopedEnv,
    );
    const body = (await res.json()) as RpcMessage;
    expect(JSON.parse(body.result.content[0].text)).toMatchObject({
      principal: "alice",
      scopes: ["dice:roll"],
      claims: { email: "alice@example.test" },
      authenticated: true,
      rateLimitKey: "principal:alice",
    });
  });
});

describe("RFC 6750 at the edge", () => {
  const worker = createMcpWorker(scoped, { verifyToken, authorizationServers: [AS] });

  it("§3: a request with another scheme (Basic) gets the challenge without an error code", async () => {
    const res = await send(worker, modern("tools/list", {}, { Authorization: "Basic YWxpY2U6cHc=" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${PRM}"`);
  });

  it("§3.1: a malformed Bearer credential is 400 invalid_request", async () => {
    for (const header of ["Bearer", "Bearer a b", "Bearer a,b", "Bearer é"]) {
      const res = await send(worker, modern("tools/list", {}, { Authorization: header }));
      expect(res.status, header).toBe(400);
      expect(res.headers.get("WWW-Authenticate"), header).toMatch(/^Bearer error="invalid_request"/);
      expect(((await res.json()) as RpcMessage).error!.code).toBe(ErrorCode.InvalidRequest);
    }
  });
});

describe("a verifyToken result without an id", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is refused (401) with a log line naming the verifier, never served as an anonymous caller with scopes", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const result of [{ scopes: ["notes:admin"] }, { id: "", scopes: ["notes:admin"] }, { id: 42, scopes: [] }]) {
      const worker = createMcpWorker(scoped, { verifyToken: (async () => result) as unknown as TokenVerifier, authorizationServers: [AS] });
      const res = await send(worker, modern("tools/call", { name: "caller_info", arguments: {} }, bearer("any")));
      expect(res.status, JSON.stringify(result)).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer error="invalid_token"/);
    }
    expect(logged.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/"mcp":"verifier_without_id".*verifyToken/);
  });
});

describe("a handler's -32003 error reaches WWW-Authenticate only as scope tokens", () => {
  const hostile = defineApp({
    info: { name: "hostile-scopes", version: "0.0.0" },
    tools: [
      defineTool({
        name: "throws",
        description: "Throws the insufficient-scope code with the data its argument picks.",
        input: v.object({ kind: v.string() }),
        handler: ({ kind }) => {
          const data: Record<string, unknown> = {
            injection: { scopes: ['a", resource_metadata="https://evil.example', "ok:scope"] },
            crlf: { scopes: ["x\r\nSet-Cookie: a=b", "ok:scope"] },
            string: { scopes: "ok:scope" },
            object: { scopes: { 0: "ok:scope" } },
            numbers: { scopes: [1, null, "ok:scope"] },
          };
          throw new McpError(ErrorCode.InsufficientScope, "no", data[kind]);
        },
      }),
    ],
    authorization: defineAuthorization(),
  });
  const worker = createMcpWorker(hostile, { verifyToken, authorizationServers: [AS] });

  for (const kind of ["injection", "crlf", "numbers"]) {
    it(`${kind}: a 403 challenge naming only the valid scope`, async () => {
      const res = await send(worker, modern("tools/call", { name: "throws", arguments: { kind } }, bearer("alice-token")));
      expect(res.status).toBe(403);
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="ok:scope"`);
      expect(((await res.json()) as RpcMessage).error!.data).toEqual({ scopes: ["ok:scope"] });
    });
  }

  for (const kind of ["string", "object"]) {
    it(`${kind} scopes: answered as the error it is, never a 500`, async () => {
      const res = await send(worker, modern("tools/call", { name: "throws", arguments: { kind } }, bearer("alice-token")));
      expect(res.status).toBe(200);
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
      expect(((await res.json()) as RpcMessage).error!.code).toBe(ErrorCode.InsufficientScope);
    });
  }

  it("2025-11-25 (a session's reply): only the valid scope reaches the challenge, never a 500", async () => {
    const w = createMcpWorker(scoped, { verifyToken, authorizationServers: [AS] });
    const scopedEnv = { MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
    const h = (sessionId?: string) => ({
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...bearer("alice-token"),
      ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
    });
    const init = await send(
      w,
      {
        method: "POST",
        headers: h(),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      },
      scopedEnv,
    );
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    const res = await send(
      w,
      {
        method: "POST",
        headers: h(sessionId),
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hostile_scope", arguments: {} } }),
      },
      scopedEnv,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="ok:scope"`);
  });
});

describe("secure by default: a scoped operation is never served to a caller nobody authenticated", () => {
  afterEach(() => vi.restoreAllMocks());
  const scopedEnv = { MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
  const roll = { name: "roll_dice", arguments: { sides: 6 } };

  it("2026-07-28: refused with an error naming the setting to turn on; an unscoped tool is served; the Worker says so once", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const worker = createMcpWorker(scoped);
    const res = await send(worker, modern("tools/call", roll));
    const body = (await res.json()) as RpcMessage;
    expect(body.result).toBeUndefined();
    expect(body.error!.code).toBe(ErrorCode.InvalidRequest);
    expect(body.error!.message).toMatch(/dice:roll.*AUTH_MODE.*allowUnauthenticated: true/);
    expect((await callerSeen(worker, {})).authenticated).toBe(false);
    const lines = warned.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("scopes_without_auth"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/AUTH_MODE=token or jwt.*allowUnauthenticated: true/);
  });

  it("2025-11-25: the same refusal in a session", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const worker = createMcpWorker(scoped);
    const h = (sessionId?: string) => ({
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
    });
    const init = await send(
      worker,
      {
        method: "POST",
        headers: h(),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      },
      scopedEnv,
    );
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    const res = await send(
      worker,
      { method: "POST", headers: h(sessionId), body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: roll }) },
      scopedEnv,
    );
    const body = (await res.json()) as RpcMessage;
    expect(body.error!.message).toMatch(/AUTH_MODE/);
  });

  it("hideUnauthorized leaves the scoped operations out of an unauthenticated caller's lists", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const hiding = defineApp({ ...scoped, authorization: defineAuthorization({ hideUnauthorized: true }) });
    const listed = (await (await send(createMcpWorker(hiding), modern("tools/list", {}))).json()) as RpcMessage;
    const names = (listed.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain("caller_info");
    expect(names).not.toContain("roll_dice");
  });

  it("defineAuthorization({ allowUnauthenticated: true }) serves it to everyone, and still checks an authenticated caller", async () => {
    const open = defineApp({ ...scoped, authorization: defineAuthorization({ allowUnauthenticated: true }) });
    const served = (await (await send(createMcpWorker(open), modern("tools/call", roll))).json()) as RpcMessage;
    expect(served.result.content[0].text).toMatch(/^Rolled 1d6/);
    const low: TokenVerifier = async () => ({ id: "dave", scopes: [] });
    const refused = await send(
      createMcpWorker(open, { verifyToken: low, authorizationServers: [AS] }),
      modern("tools/call", roll, bearer("any")),
    );
    expect(refused.status).toBe(403);
  });
});

describe("toolRateLimit keys an anonymous caller by its address, as the request rate limit does (3 a minute here)", () => {
  it("one anonymous client spending its budget leaves another client's untouched", async () => {
    // A tool of its own, so no other test's calls count against it.
    const name = `count_${crypto.randomUUID().slice(0, 8)}`;
    const app = defineApp({
      info: { name: "anonymous-limits", version: "0.0.0" },
      tools: [defineTool({ name, description: "Counted.", handler: () => "ok" })],
      authorization: defineAuthorization({ policy: toolRateLimit((e: { TEST_TIGHT_RATE_LIMIT?: RateLimit }) => e.TEST_TIGHT_RATE_LIMIT) }),
    });
    const worker = createMcpWorker(app);
    const callFrom = async (ip: string) =>
      ((await (await send(worker, modern("tools/call", { name, arguments: {} }, { "CF-Connecting-IP": ip }))).json()) as RpcMessage).result;
    await inOneLimiterWindow();
    for (let i = 0; i < 3; i++) expect((await callFrom("198.51.100.1")).isError).toBeUndefined();
    expect((await callFrom("198.51.100.1")).isError).toBe(true);
    expect((await callFrom("198.51.100.2")).isError).toBeUndefined();
  });
});
