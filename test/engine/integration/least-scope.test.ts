/**
 * Least scope first (docs/authorization.md): the 401 challenge and the RFC 9728 metadata ask a
 * client for the baseline only (the app's `defineAuthorization({ scopes })` default and AUTH_SCOPES),
 * in one challenge; an operation's own scopes are asked for by its 403 step-up. Driven on the scoped
 * fixture app (test/engine/scoped-app).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { createMcpWorker, jwtAuth } from "../../../src/mcp";
import scopedApp from "../scoped-app/app";
import scopedWorker from "../scoped-app/index";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const PRM = "http://localhost/.well-known/oauth-protected-resource/mcp";
type Fetcher = { fetch(r: Request, e: never, c: ExecutionContext): Promise<Response> };

async function send(worker: Fetcher, url: string, init: RequestInit = {}, extraEnv: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), { ...env, ...extraEnv } as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function modern(method: string, params: Record<string, unknown>, token?: string): RequestInit {
  const built = buildModernRequest(method, params);
  return {
    method: "POST",
    headers: { ...built.headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(built.message),
  };
}

describe("least scope first, on the scoped fixture app (a verifyToken naming an authorization server)", () => {
  it("the 401 challenge asks for the baseline (the app's default scope), not every declared scope", async () => {
    const res = await send(scopedWorker as never, MCP, modern("tools/list", {}));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${PRM}", scope="notes:read"`);
  });

  it("RFC 9728 scopes_supported is the baseline", async () => {
    const meta = (await (await send(scopedWorker as never, PRM)).json()) as { scopes_supported?: string[] };
    expect(meta.scopes_supported).toEqual(["notes:read"]);
  });

  it("a token for exactly the baseline is served what needs it, and gets the 403 step-up on delete_note", async () => {
    const read = await send(scopedWorker as never, MCP, modern("resources/read", { uri: "notes://index" }, "reader"));
    expect(((await read.json()) as RpcMessage).result.contents).toBeDefined();
    const res = await send(scopedWorker as never, MCP, modern("tools/call", { name: "delete_note", arguments: { id: "n1" } }, "reader"));
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="notes:write"`);
  });
});

describe("least scope first in JWT mode: AUTH_SCOPES and the app's default in one challenge", () => {
  const ISSUER = "https://auth.example.test";
  const worker = createMcpWorker(scopedApp, { jwt: jwtAuth });

  /** A fresh key, the JWT mode's settings that trust it (AUTH_SCOPES mcp:use), and alice's tokens signed with it. */
  async function issuer(kid: string) {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256" };
    const jwtEnv = { AUTH_MODE: "jwt", AUTH_ISSUER: ISSUER, AUTH_JWKS: JSON.stringify({ keys: [jwk] }), AUTH_SCOPES: "mcp:use" };
    const sign = (scope: string) =>
      new SignJWT(scope ? { scope } : {})
        .setProtectedHeader({ alg: "ES256", kid })
        .setIssuer(ISSUER)
        .setAudience(MCP)
        .setSubject("alice")
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
        .sign(pair.privateKey);
    return { jwtEnv, sign };
  }

  it("the 401 and the 403 of a token without AUTH_SCOPES both name the whole baseline, so one consent covers it", async () => {
    const { jwtEnv, sign } = await issuer("k1");
    const unauthenticated = await send(worker, MCP, modern("tools/list", {}), jwtEnv);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${PRM}", scope="mcp:use notes:read"`);
    const meta = (await (await send(worker, PRM, {}, jwtEnv)).json()) as { scopes_supported?: string[] };
    expect(meta.scopes_supported).toEqual(["mcp:use", "notes:read"]);
    const token = await sign("notes:read");
    const narrow = await send(worker, MCP, modern("tools/list", {}, token), jwtEnv);
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get("WWW-Authenticate")).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="mcp:use notes:read"`,
    );
  });

  it("a token short of the baseline calling a scoped tool is challenged once for every scope it needs, baseline and the tool's", async () => {
    const { jwtEnv, sign } = await issuer("k2");
    const call = modern("tools/call", { name: "delete_note", arguments: { id: "n1" } }, await sign(""));
    const first = await send(worker, MCP, call, jwtEnv);
    expect(first.status).toBe(403);
    expect(first.headers.get("WWW-Authenticate")).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="mcp:use notes:read notes:write"`,
    );
    expect(((await first.json()) as RpcMessage).id).toBe(JSON.parse(String(call.body)).id);
    // Stepped up to what the challenge named: served, with no second challenge.
    const again = await send(
      worker,
      MCP,
      modern("tools/call", { name: "delete_note", arguments: { id: "n1" } }, await sign("mcp:use notes:read notes:write")),
      jwtEnv,
    );
    expect(again.status).toBe(200);
    // A request that names no operation of its own scopes keeps the baseline's challenge.
    const list = await send(worker, MCP, modern("tools/list", {}, await sign("")), jwtEnv);
    expect(list.headers.get("WWW-Authenticate")).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${PRM}", scope="mcp:use notes:read"`,
    );
  });
});
