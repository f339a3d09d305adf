/**
 * JWT access tokens (AUTH_MODE=jwt) against what an attacker or a misconfigured issuer
 * sends: every algorithm an issuer may sign with is served, and a token is refused (401
 * invalid_token) when its header, key, signature or claims do not hold. Through /mcp, plus
 * the remote key set's refresh rules on the checker itself.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { jwtChecker } from "../../../src/engine/http/jwt";
import { createMcpWorker, jwtAuth } from "../../../src/mcp";
import app from "../app/app";
import { buildModernRequest } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const ISSUER = "https://auth.example.test";
// The engine test app does not opt into JWT auth (a Worker carries jose only when it passes `jwt`): these tests do.
const worker = createMcpWorker(app, { jwt: jwtAuth });
const now = () => Math.floor(Date.now() / 1000);
const b64u = (x: string | Uint8Array) => {
  const bytes = typeof x === "string" ? new TextEncoder().encode(x) : x;
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

async function status(jwks: { keys: JWK[] }, token: string): Promise<{ status: number; challenge: string | null }> {
  const { message, headers } = buildModernRequest("tools/list", {}, {});
  const ctx = createExecutionContext();
  const authEnv = { AUTH_MODE: "jwt", AUTH_ISSUER: ISSUER, AUTH_JWKS: JSON.stringify(jwks), AUTH_SCOPES: "mcp:use" };
  const req = new Request(MCP, {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${token}` },
    body: JSON.stringify(message),
  });
  const res = await worker.fetch(req, { ...env, ...authEnv } as never, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, challenge: res.headers.get("WWW-Authenticate") };
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: MCP,
  sub: "alice",
  scope: "mcp:use",
  iat: now(),
  exp: now() + 300,
  ...extra,
});

function sign(alg: string, key: CryptoKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}) {
  return new SignJWT(payload).setProtectedHeader({ alg, kid: "k1", ...header }).sign(key);
}

/** A token with a hand-made header and signature (what no honest library would produce). */
const forged = (header: Record<string, unknown>, payload: Record<string, unknown>, signature = "") =>
  `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}.${signature}`;

/** Signs any header and payload text with WebCrypto directly (jose refuses to sign some of them). */
async function signRaw(algorithm: SubtleCryptoSignAlgorithm, key: CryptoKey, header: Record<string, unknown>, payload: string) {
  const input = `${b64u(JSON.stringify(header))}.${b64u(payload)}`;
  return `${input}.${b64u(new Uint8Array(await crypto.subtle.sign(algorithm, key, new TextEncoder().encode(input))))}`;
}
const ES256 = { name: "ECDSA", hash: "SHA-256" };

async function keyPair(alg: string, options: Record<string, unknown> = {}) {
  const pair = await generateKeyPair(alg, { extractable: true, ...options });
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1" };
  return { privateKey: pair.privateKey, jwk };
}

describe("JWT access tokens: algorithms", () => {
  for (const alg of ["RS256", "PS384", "ES256", "ES384", "ES512", "EdDSA"]) {
    it(`${alg}: a valid token is served, a token with a changed signature gets 401`, async () => {
      const { privateKey, jwk } = await keyPair(alg);
      const token = await sign(alg, privateKey, claims());
      expect((await status({ keys: [jwk] }, token)).status).toBe(200);
      const [h, p, s] = token.split(".");
      const flipped = `${h}.${p}.${s!.startsWith("A") ? `B${s!.slice(1)}` : `A${s!.slice(1)}`}`;
      const bad = await status({ keys: [jwk] }, flipped);
      expect(bad.status).toBe(401);
      expect(bad.challenge).toMatch(/error="invalid_token"/);
    });
  }

  it("an RSA key under 2048 bits is refused even with a good signature", async () => {
    const rsa = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    const pair = (await crypto.subtle.generateKey({ ...rsa, modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const jwk = { ...((await crypto.subtle.exportKey("jwk", pair.publicKey)) as JWK), kid: "k1" };
    delete jwk.alg;
    delete jwk.key_ops;
    expect(
      (await status({ keys: [jwk] }, await signRaw(rsa, pair.privateKey, { alg: "RS256", kid: "k1" }, JSON.stringify(claims())))).status,
    ).toBe(401);
  });
});

describe("JWT access tokens: what is refused", () => {
  let es: { privateKey: CryptoKey; jwk: JWK };
  beforeAll(async () => {
    es = await keyPair("ES256");
  });

  it('"alg": "none" and an HMAC alg keyed with the public key are refused', async () => {
    expect((await status({ keys: [es.jwk] }, forged({ alg: "none", kid: "k1" }, claims()))).status).toBe(401);
    const secret = new TextEncoder().encode(JSON.stringify(es.jwk));
    const hs = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", kid: "k1" }).sign(secret);
    expect((await status({ keys: [es.jwk] }, hs)).status).toBe(401);
  });

  it("a critical header extension we do not know is refused; crit b64=true is accepted", async () => {
    const signed = (header: Record<string, unknown>) =>
      signRaw(ES256, es.privateKey, { alg: "ES256", kid: "k1", ...header }, JSON.stringify(claims()));
    expect((await status({ keys: [es.jwk] }, await signed({}))).status).toBe(200);
    expect((await status({ keys: [es.jwk] }, await signed({ crit: ["exp"], exp: 1 }))).status).toBe(401);
    expect((await status({ keys: [es.jwk] }, await signed({ crit: ["b64"] }))).status).toBe(401);
    expect((await status({ keys: [es.jwk] }, await signed({ crit: ["b64"], b64: false }))).status).toBe(401);
    expect((await status({ keys: [es.jwk] }, await signed({ crit: ["b64"], b64: true }))).status).toBe(200);
  });

  it("the key must fit: another kid, another alg on the key, use=enc, key_ops without verify, or two keys that fit", async () => {
    const token = await sign("ES256", es.privateKey, claims());
    for (const jwk of [
      { ...es.jwk, kid: "k2" },
      { ...es.jwk, alg: "ES384" },
      { ...es.jwk, use: "enc" },
      { ...es.jwk, key_ops: ["encrypt"] },
    ]) {
      expect((await status({ keys: [jwk] }, token)).status, JSON.stringify(jwk)).toBe(401);
    }
    expect((await status({ keys: [es.jwk, { ...es.jwk }] }, token)).status).toBe(401);
    expect((await status({ keys: [{ ...es.jwk, alg: "ES256", use: "sig", key_ops: ["verify"] }] }, token)).status).toBe(200);
  });

  it("a private key in the set is refused", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.privateKey)), kid: "k1" };
    expect((await status({ keys: [jwk] }, await sign("ES256", pair.privateKey, claims()))).status).toBe(401);
  });

  it("claims: missing iss or aud, aud as a list, nbf in the future, non-numeric exp, a payload that is not an object", async () => {
    const { iss: _i, ...noIss } = claims();
    const { aud: _a, ...noAud } = claims();
    const cases: [Record<string, unknown>, number][] = [
      [noIss, 401],
      [noAud, 401],
      [claims({ aud: ["https://other.example/mcp", MCP] }), 200],
      [claims({ aud: ["https://other.example/mcp"] }), 401],
      [claims({ nbf: now() + 120 }), 401],
      [claims({ exp: String(now() + 300) }), 401],
      [claims({ iat: "yesterday" }), 401],
    ];
    for (const [payload, expected] of cases)
      expect((await status({ keys: [es.jwk] }, await sign("ES256", es.privateKey, payload))).status, JSON.stringify(payload)).toBe(
        expected,
      );
    // A JSON array as the claims set, signed properly.
    expect((await status({ keys: [es.jwk] }, await signRaw(ES256, es.privateKey, { alg: "ES256", kid: "k1" }, "[1]"))).status).toBe(401);
  });

  it("malformed tokens: two parts, a header that is not JSON, non-canonical base64url", async () => {
    const token = await sign("ES256", es.privateKey, claims());
    const [h, p, s] = token.split(".");
    for (const bad of [`${h}.${p}`, `${b64u("not json")}.${p}.${s}`, `${h}.${p}.${s}.x`]) {
      expect((await status({ keys: [es.jwk] }, bad)).status, bad).toBe(401);
    }
    // "=" inside the credential is not RFC 6750's b64token syntax: a malformed request (400), as §3.1 says.
    expect((await status({ keys: [es.jwk] }, `${h}=.${p}.${s}`)).status).toBe(400);
  });
});

describe("JWT access tokens: a remote key set (AUTH_JWKS_URL)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("is fetched once, refetched for an unknown kid only after the 30 s cooldown, and refreshed after 10 minutes", async () => {
    const one = await keyPair("ES256");
    const two = await keyPair("ES256");
    const jwk2 = { ...two.jwk, kid: "k2" };
    let served = [one.jwk];
    const fetched: string[] = [];
    vi.stubGlobal("fetch", async (input: string | URL, init?: RequestInit) => {
      fetched.push(String(input));
      expect(init?.redirect).toBe("manual");
      return new Response(JSON.stringify({ keys: served }), { headers: { "Content-Type": "application/json" } });
    });
    vi.useFakeTimers({ toFake: ["Date"] });
    const check = jwtChecker({ mode: "jwt", issuer: ISSUER, jwksUrl: "https://auth.example.test/jwks", audiences: [], scopes: [] });
    await expect(check(await sign("ES256", one.privateKey, claims()), [MCP])).resolves.toMatchObject({ sub: "alice" });
    await expect(check(await sign("ES256", one.privateKey, claims()), [MCP])).resolves.toMatchObject({ sub: "alice" });
    expect(fetched).toHaveLength(1);
    // The issuer rotates to k2: within the cooldown the set is not refetched.
    served = [one.jwk, jwk2];
    const rotated = await sign("ES256", two.privateKey, claims(), { kid: "k2" });
    await expect(check(rotated, [MCP])).rejects.toThrow(/no applicable key/);
    expect(fetched).toHaveLength(1);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(check(await sign("ES256", two.privateKey, claims({ exp: now() + 300 }), { kid: "k2" }), [MCP])).resolves.toMatchObject({
      sub: "alice",
    });
    expect(fetched).toHaveLength(2);
    // k1 is withdrawn; after ten minutes the cached set is refreshed and k1 no longer verifies.
    served = [jwk2];
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await expect(check(await sign("ES256", one.privateKey, claims({ iat: now(), exp: now() + 300 })), [MCP])).rejects.toThrow(
      /no applicable key/,
    );
    expect(fetched).toHaveLength(3);
  });

  it("a key set answered with anything but 200 is an error, not an empty set", async () => {
    vi.stubGlobal("fetch", async () => new Response("moved", { status: 302, headers: { Location: "https://evil.example/jwks" } }));
    const check = jwtChecker({ mode: "jwt", issuer: ISSUER, jwksUrl: "https://auth.example.test/jwks", audiences: [], scopes: [] });
    const { privateKey } = await keyPair("ES256");
    await expect(check(await sign("ES256", privateKey, claims()), [MCP])).rejects.toThrow(/200 OK/);
  });
});
