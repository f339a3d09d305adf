/**
 * Authorization, driven through the Worker's fetch with an env that turns it
 * on (the default wrangler.toml keeps it off): static bearer tokens, JWT
 * access tokens checked against a JWKS, RFC 9728 metadata, and the principal
 * bound to what it creates.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createMcpWorker, jwtAuth } from "../../../src/mcp";
import app from "../app/app";
import engineWorker from "../app/index";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const ISSUER = "https://auth.example.test";
// The engine test app does not opt into JWT auth (a Worker carries jose only when it passes `jwt`): these tests do.
const worker = createMcpWorker(app, { jwt: jwtAuth });

async function call(authEnv: Record<string, string>, init: RequestInit & { url?: string }): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(init.url ?? MCP, init), { ...env, ...authEnv } as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function modern(method: string, params: Record<string, unknown>, token?: string, extraHeaders: Record<string, string> = {}) {
  const { message, headers } = buildModernRequest(method, params, { capabilities: { elicitation: {} } });
  return {
    method: "POST",
    headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extraHeaders },
    body: JSON.stringify(message),
  };
}

describe("static bearer token", () => {
  const tokenEnv = { AUTH_MODE: "token", MCP_AUTH_TOKEN: "s3cret-token", AUTH_SCOPES: "mcp" };

  it("both revisions: a request without a token gets 401 with a challenge naming the scope (no metadata: there is no authorization server)", async () => {
    const res = await call(tokenEnv, modern("server/discover", {}));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer scope="mcp"');
  });

  it("both revisions: a wrong token gets 401 invalid_token", async () => {
    const res = await call(tokenEnv, modern("server/discover", {}, "nope"));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer error="invalid_token", scope="mcp"');
  });

  it("both revisions: the right token is served", async () => {
    const res = await call(tokenEnv, modern("server/discover", {}, "s3cret-token"));
    expect(res.status).toBe(200);
    const body = (await res.json()) as RpcMessage;
    // Results that depend on who asks must not be shared across tokens.
    expect(body.result.cacheScope).toBe("private");
  });

  it("a static token has no authorization server, so there is no RFC 9728 metadata (404)", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await call(tokenEnv, { url: `http://localhost${path}` });
      expect(res.status).toBe(404);
    }
  });

  it("without authorization there is no metadata document (404)", async () => {
    const res = await call({}, { url: "http://localhost/.well-known/oauth-protected-resource/mcp" });
    expect(res.status).toBe(404);
  });
});

describe("JWT access tokens", () => {
  let jwtEnv: Record<string, string>;
  let privateKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
    jwtEnv = { AUTH_MODE: "jwt", AUTH_ISSUER: ISSUER, AUTH_JWKS: JSON.stringify({ keys: [jwk] }), AUTH_SCOPES: "mcp:use" };
  });

  const token = (claims: { sub?: string; scope?: string; aud?: string | string[]; iss?: string; exp?: number }) => {
    const jwt = new SignJWT({ scope: claims.scope ?? "mcp:use" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? MCP)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 300);
    if (claims.sub !== "") jwt.setSubject(claims.sub ?? "alice");
    return jwt.sign(privateKey);
  };

  it("a valid token for this server's URI is served", async () => {
    const res = await call(jwtEnv, modern("tools/list", {}, await token({})));
    expect(res.status).toBe(200);
  });

  it("a token for another audience, another issuer, expired, or without a subject gets 401", async () => {
    for (const bad of [
      { aud: "https://other.example/mcp" },
      { iss: "https://evil.example" },
      { exp: Math.floor(Date.now() / 1000) - 60 },
      { sub: "" },
    ]) {
      const res = await call(jwtEnv, modern("tools/list", {}, await token(bad)));
      expect(res.status, JSON.stringify(bad)).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/error="invalid_token"/);
    }
  });

  it("a token for this server's URI is served whether `aud` is a string or a list", async () => {
    for (const aud of [MCP, [MCP], ["https://other.example/mcp", MCP]]) {
      const res = await call(jwtEnv, modern("tools/list", {}, await token({ aud })));
      expect(res.status, JSON.stringify(aud)).toBe(200);
    }
  });

  // A client that sends no RFC 8707 `resource` gets whatever audience its authorization server
  // defaults to, often its own client id; only the names the operator lists in AUTH_AUDIENCE join
  // this server's URI.
  it("a token whose audience is a client id is refused unless AUTH_AUDIENCE names it", async () => {
    const res = await call(jwtEnv, modern("tools/list", {}, await token({ aud: "claude-code" })));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/error="invalid_token"/);
  });

  it("AUTH_AUDIENCE adds audiences (a client id, an API name) and this server's URI stays accepted, in either shape", async () => {
    const listed = { ...jwtEnv, AUTH_AUDIENCE: "claude-code, api://mcp" };
    for (const aud of [MCP, [MCP], "claude-code", ["claude-code"], "api://mcp"]) {
      const res = await call(listed, modern("tools/list", {}, await token({ aud })));
      expect(res.status, JSON.stringify(aud)).toBe(200);
    }
  });

  it("with AUTH_AUDIENCE set, a token for another resource or another client is still refused", async () => {
    const listed = { ...jwtEnv, AUTH_AUDIENCE: "claude-code" };
    for (const aud of [
      "https://other.example/mcp",
      ["https://other.example/mcp"],
      "other-client",
      "claude-code-2",
      "http://localhost/mcp/",
    ]) {
      const res = await call(listed, modern("tools/list", {}, await token({ aud })));
      expect(res.status, JSON.stringify(aud)).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/error="invalid_token"/);
    }
  });

  it("a token without the required scope gets 403 insufficient_scope naming the scope", async () => {
    const res = await call(jwtEnv, modern("tools/list", {}, await token({ scope: "other" })));
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(
      'Bearer error="insufficient_scope", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", scope="mcp:use"',
    );
  });

  it("RFC 9728 metadata, at the path-suffixed and the root form, names the issuer as the authorization server", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await call(jwtEnv, { url: `http://localhost${path}` });
      expect(res.status).toBe(200);
      const meta = (await res.json()) as Record<string, unknown>;
      expect(meta.resource).toBe(MCP);
      expect(meta.authorization_servers).toEqual([ISSUER]);
      expect(meta.bearer_methods_supported).toEqual(["header"]);
      expect(meta.scopes_supported).toEqual(["mcp:use"]);
    }
  });

  it("2026-07-28: a requestState sealed for one user is rejected for another", async () => {
    const first = await call(jwtEnv, modern("tools/call", { name: "greet", arguments: {} }, await token({ sub: "alice" })));
    const round1 = (await first.json()) as RpcMessage;
    expect(round1.result.resultType).toBe("input_required");
    const retry = {
      name: "greet",
      arguments: {},
      requestState: round1.result.requestState,
      inputResponses: { who: { action: "accept", content: { name: "Mallory" } } },
    };
    const stolen = await call(jwtEnv, modern("tools/call", retry, await token({ sub: "bob" })));
    const body = (await stolen.json()) as RpcMessage;
    expect(body.error?.code).toBe(-32602);
    const own = await call(jwtEnv, modern("tools/call", retry, await token({ sub: "alice" })));
    expect(((await own.json()) as RpcMessage).result.content[0].text).toBe("Hello, Mallory!");
  });

  it("2025-11-25: a session belongs to the user who created it; another user gets 404", async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const init = await call(jwtEnv, {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${await token({ sub: "alice" })}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    expect(sessionId).toBeTruthy();
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const asBob = await call(jwtEnv, {
      method: "POST",
      headers: { ...headers, "Mcp-Session-Id": sessionId, Authorization: `Bearer ${await token({ sub: "bob" })}` },
      body: ping,
    });
    expect(asBob.status).toBe(404);
    const asAlice = await call(jwtEnv, {
      method: "POST",
      headers: { ...headers, "Mcp-Session-Id": sessionId, Authorization: `Bearer ${await token({ sub: "alice" })}` },
      body: ping,
    });
    expect(asAlice.status).toBe(200);
  });
});

describe("JWT auth is opt-in", () => {
  it("a Worker built without `jwt` answers AUTH_MODE=jwt with 500 and a log that names the fix, and carries on when the mode is off", async () => {
    const jwtEnv = { AUTH_MODE: "jwt", AUTH_ISSUER: ISSUER, AUTH_JWKS: JSON.stringify({ keys: [] }) };
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      const res = await engineWorker.fetch(new Request(MCP, modern("tools/list", {}, "a.b.c")), { ...env, ...jwtEnv } as never, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(500);
      expect(((await res.json()) as RpcMessage).error?.code).toBe(-32603);
      expect(logged.mock.calls.flat().map(String).join("\n")).toContain("createMcpWorker(app, { jwt: jwtAuth })");
    } finally {
      logged.mockRestore();
    }
    const ctx = createExecutionContext();
    const served = await engineWorker.fetch(new Request(MCP, modern("tools/list", {})), env as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(served.status).toBe(200);
  });
});
