/**
 * Enterprise-managed authorization in the OAuth entry (src/engine/oauth/id-jag.ts): a registered client
 * trades an ID-JAG (an identity assertion JWT authorization grant, RFC 7523 jwt-bearer) that a
 * trusted IdP signed for an access token, and that token calls /mcp with the scopes the IdP
 * granted. The IdP is a key pair made here; its JWKS is answered in this isolate (the provider
 * fetches only https JWKS URIs, with the global fetch, which the test stands in for). The entry
 * serves the scoped engine app (roll_dice needs dice:roll), not the example app.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { OAuthEnv } from "../../../src/engine/oauth/authorize";
import { createOAuthWorker } from "../../../src/engine/oauth/worker";
import scopedApp from "../app/scoped-engine-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const ORIGIN = "http://localhost";
const RESOURCE = `${ORIGIN}/mcp`;
const IDP = "https://idp.example.test";
const JWKS_URI = `${IDP}/jwks.json`;
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

const entry = createOAuthWorker(scopedApp);
let idpKey: CryptoKey;
let strangerKey: CryptoKey;
let jwksFetches = 0;

beforeAll(async () => {
  const idp = await generateKeyPair("RS256");
  idpKey = idp.privateKey;
  strangerKey = (await generateKeyPair("RS256")).privateKey;
  const jwks = { keys: [{ ...(await exportJWK(idp.publicKey)), kid: "idp-1", alg: "RS256", use: "sig" }] };
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    if (String(input instanceof Request ? input.url : input) !== JWKS_URI) return realFetch(input, init);
    jwksFetches++;
    return Response.json(jwks);
  });
});
afterAll(() => vi.restoreAllMocks());

/** A fresh env (the entry keeps a provider per origin and env), with or without the IdP trusted. */
const envWith = (vars: Record<string, string>) => ({ ...env, ...vars }) as unknown as OAuthEnv;
const TRUSTING = { OAUTH_IDJAG_ISSUER: IDP, OAUTH_IDJAG_JWKS_URI: JWKS_URI };

async function send(oauthEnv: OAuthEnv, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await entry.fetch(new Request(`${ORIGIN}${path}`, init), oauthEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A confidential client (the grant needs client authentication), registered by DCR. */
async function register(oauthEnv: OAuthEnv) {
  const res = await send(oauthEnv, "/oauth/register", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "enterprise agent",
      redirect_uris: ["https://agent.example.test/cb"],
      token_endpoint_auth_method: "client_secret_basic",
    }),
  });
  expect(res.status).toBe(201);
  const { client_id, client_secret } = (await res.json()) as { client_id: string; client_secret: string };
  const exchange = async (assertion: string, extra: Record<string, string> = {}) => {
    const r = await send(oauthEnv, "/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client_id}:${client_secret}`)}` },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, ...extra }),
    });
    return { status: r.status, body: (await r.json()) as { access_token?: string; scope?: string; error?: string } };
  };
  return { clientId: client_id, exchange };
}

/** An ID-JAG as the IdP issues one: for `sub`, this server's issuer and resource, and the client. */
function idJag(clientId: string, claims: Record<string, unknown> = {}, key = idpKey) {
  return new SignJWT({ client_id: clientId, resource: RESOURCE, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "RS256", typ: "oauth-id-jag+jwt", kid: "idp-1" })
    .setIssuer((claims.iss as string | undefined) ?? IDP)
    .setSubject("alice@corp.example")
    .setAudience(ORIGIN)
    .setIssuedAt()
    .setExpirationTime("2m")
    .sign(key);
}

/** A 2026-07-28 roll_dice with the token. */
async function roll(oauthEnv: OAuthEnv, token: string): Promise<Response> {
  const { message, headers } = buildModernRequest("tools/call", { name: "roll_dice", arguments: { sides: 6 } });
  return send(oauthEnv, "/mcp", {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${token}` },
    body: JSON.stringify(message),
  });
}

describe("OAuth entry: enterprise-managed authorization (ID-JAG)", () => {
  it("is off without OAUTH_IDJAG_ISSUER and OAUTH_IDJAG_JWKS_URI: not advertised, and the grant is unsupported", async () => {
    const off = envWith({});
    const meta = (await (await send(off, "/.well-known/oauth-authorization-server")).json()) as { grant_types_supported: string[] };
    expect(meta.grant_types_supported).not.toContain(JWT_BEARER);
    const c = await register(off);
    const t = await c.exchange(await idJag(c.clientId, { scope: "dice:roll" }));
    expect([t.status, t.body.error]).toEqual([400, "unsupported_grant_type"]);
    expect(jwksFetches).toBe(0);
  });

  it("an assertion the trusted IdP signed becomes a token with its scopes, which calls /mcp; used once only", async () => {
    const on = envWith(TRUSTING);
    const meta = (await (await send(on, "/.well-known/oauth-authorization-server")).json()) as { grant_types_supported: string[] };
    expect(meta.grant_types_supported).toContain(JWT_BEARER);
    const c = await register(on);
    const assertion = await idJag(c.clientId, { scope: "dice:roll" });
    const t = await c.exchange(assertion);
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body.scope).toBe("dice:roll");
    const res = await roll(on, t.body.access_token!);
    expect(res.status).toBe(200);
    expect(((await res.json()) as RpcMessage).result.content[0].text).toMatch(/^Rolled 1d6/);
    // The same assertion again is a replay.
    expect((await c.exchange(assertion)).body.error).toBe("invalid_grant");
  });

  it("the IdP grants the scopes: a token without dice:roll gets the 403 step-up challenge, and no scope claim grants none", async () => {
    const on = envWith(TRUSTING);
    const c = await register(on);
    for (const claims of [{ scope: "reports:read" }, {}]) {
      const t = await c.exchange(await idJag(c.clientId, claims), { scope: "dice:roll" });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
      const res = await roll(on, t.body.access_token!);
      expect(res.status).toBe(403);
      expect(res.headers.get("WWW-Authenticate")).toContain('error="insufficient_scope"');
      expect(res.headers.get("WWW-Authenticate")).toContain('scope="dice:roll"');
    }
  });

  it("a blank scope claim grants no scope, whatever the client asks for", async () => {
    const on = envWith(TRUSTING);
    const c = await register(on);
    for (const scope of [" ", "", "   "]) {
      const t = await c.exchange(await idJag(c.clientId, { scope }), { scope: "dice:roll" });
      // Either refused or a token without scope; never dice:roll.
      if (t.status === 200) {
        expect(t.body.scope ?? "", JSON.stringify(scope)).toBe("");
        expect((await roll(on, t.body.access_token!)).status).toBe(403);
      } else expect(t.body.error).toMatch(/invalid_(grant|scope)/);
    }
  });

  it("used once under concurrency: two exchanges of one assertion at the same time give one token", async () => {
    const on = envWith(TRUSTING);
    const c = await register(on);
    for (let round = 0; round < 3; round++) {
      const assertion = await idJag(c.clientId, { scope: "dice:roll" });
      const results = await Promise.all([c.exchange(assertion), c.exchange(assertion), c.exchange(assertion)]);
      expect(results.filter((r) => r.status === 200).length, JSON.stringify(results.map((r) => r.body.error))).toBe(1);
      expect(results.filter((r) => r.status !== 200).every((r) => r.body.error === "invalid_grant")).toBe(true);
    }
  });

  it("an assertion signed by another key, for another client or from another issuer is refused", async () => {
    const on = envWith(TRUSTING);
    const c = await register(on);
    const refused = [
      await idJag(c.clientId, { scope: "dice:roll" }, strangerKey),
      await idJag("someone-else", { scope: "dice:roll" }),
      await idJag(c.clientId, { scope: "dice:roll", iss: "https://evil.example.test" }),
    ];
    for (const assertion of refused) expect((await c.exchange(assertion)).body.error).toBe("invalid_grant");
  });
});
