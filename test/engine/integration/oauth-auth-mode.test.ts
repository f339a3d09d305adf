/**
 * The OAuth entry authenticates every /mcp request itself, so AUTH_MODE and its settings (the
 * default entry's, e.g. from a .dev.vars both entries share) change nothing there, as
 * docs/security.md says: a signed-in client is served, not answered 500. Driven through the
 * entry's fetch as a client drives it over HTTP, with the demo sign-in (a loopback browser).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createOAuthWorker, type OAuthEnv } from "../../../src/engine/oauth";
import app from "../app/app";
import { buildModernRequest } from "../helpers/mcp";

// The engine test app behind the OAuth entry, as a fork's src/oauth.ts puts its own app there.
const entry = createOAuthWorker(app);
const ORIGIN = "http://localhost";
const REDIRECT = "http://127.0.0.1:9/callback"; // never fetched: the flow stops at the redirect
const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** Signs in through the entry under `oauthEnv` and lists the tools with the token it got. */
async function signInAndList(oauthEnv: OAuthEnv): Promise<Response> {
  const send = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("CF-Connecting-IP", "127.0.0.1");
    const ctx = createExecutionContext();
    const res = await entry.fetch(new Request(url, { ...init, headers, redirect: "manual" }), oauthEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  const reg = await send(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "c", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  expect(reg.status).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const q = {
    response_type: "code",
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
  };
  const authorized = await send(`${ORIGIN}/authorize?${new URLSearchParams(q)}`);
  expect(authorized.status).toBe(302);
  const code = new URL(authorized.headers.get("Location")!).searchParams.get("code")!;
  const token = await send(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id, grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  expect(access_token).toBeTruthy();
  const { message, headers } = buildModernRequest("tools/list", {}, {});
  return send(`${ORIGIN}/mcp`, {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${access_token}` },
    body: JSON.stringify(message),
  });
}

describe("the OAuth entry ignores AUTH_MODE", () => {
  it.each([
    [
      "AUTH_MODE=jwt with its issuer and keys",
      { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp.example.test", AUTH_JWKS: '{"keys":[]}', AUTH_SCOPES: "mcp:use" },
    ],
    ["AUTH_MODE=token without its token", { AUTH_MODE: "token" }],
    ["an AUTH_MODE it does not know", { AUTH_MODE: "oauth" }],
  ])("%s: a signed-in client is served", async (_, authVars) => {
    const res = await signInAndList({ ...env, OAUTH_DEMO_AUTO_APPROVE: "true", ...authVars } as unknown as OAuthEnv);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result?: { tools?: unknown[] } }).result?.tools?.length).toBeGreaterThan(0);
  });
});
