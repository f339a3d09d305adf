/**
 * The OAuth entry (src/engine/oauth/) and clients that send no RFC 8707 `resource`: Claude Code sends
 * it on neither /authorize nor /token, other clients drop it on refresh. Such a client still gets
 * a token for this server's one resource, `<origin>/mcp`, that /mcp serves; a request naming
 * another resource is refused with `invalid_target` and consumes nothing. Driven through the
 * entry's fetch as a client drives it over HTTP, with the demo sign-in (a loopback browser).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createOAuthWorker, type OAuthEnv } from "../../../src/engine/oauth";
import app from "../app/app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

// The engine test app behind the OAuth entry, as a fork's src/oauth.ts puts its own app there.
const entry = createOAuthWorker(app);
const ORIGIN = "http://localhost";
const RESOURCE = `${ORIGIN}/mcp`;
const REDIRECT = "http://127.0.0.1:9/callback"; // never fetched: the flow stops at the redirect
const OTHER = "https://other.example/mcp";

// One env object for the file, as the isolate has one: the entry keeps a provider per origin and env.
const oauthEnv = { ...env, OAUTH_DEMO_AUTO_APPROVE: "true" } as unknown as OAuthEnv;

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", "127.0.0.1"); // the demo approves browsers on this machine only
  const ctx = createExecutionContext();
  const res = await entry.fetch(new Request(url, { ...init, headers, redirect: "manual" }), oauthEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  resource?: string;
  error?: string;
}

/** A public client registered by DCR at `origin`, and the requests it makes. */
async function client(origin = ORIGIN) {
  const reg = await send(`${origin}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "resource-less client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  expect(reg.status).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };

  const token = async (form: Record<string, string>) => {
    const res = await send(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id, ...form }),
    });
    return { status: res.status, body: (await res.json()) as TokenResponse };
  };

  /** /authorize (auto-approved) with `extra` query parameters: the 302 and the PKCE verifier. */
  const authorize = async (extra: Record<string, string> = {}) => {
    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
    const q = {
      response_type: "code",
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
      ...extra,
    };
    const res = await send(`${origin}/authorize?${new URLSearchParams(q)}`);
    expect(res.status).toBe(302);
    return { location: new URL(res.headers.get("Location")!), verifier };
  };

  /** The authorization code flow; `resource` per step, or none at all. */
  const login = async (resource: { authorize?: string; token?: string } = {}) => {
    const a = await authorize(resource.authorize ? { resource: resource.authorize } : {});
    const code = a.location.searchParams.get("code");
    expect(code, a.location.href).toBeTruthy();
    const form = { grant_type: "authorization_code", code: code!, redirect_uri: REDIRECT, code_verifier: a.verifier };
    return { form, exchange: (extra: Record<string, string> = {}) => token({ ...form, ...extra }) };
  };

  return { token, authorize, login };
}

/** A 2026-07-28 tools/list on `url` with the token: the status. */
async function mcpStatus(accessToken: string, url = RESOURCE): Promise<number> {
  const { message, headers } = buildModernRequest("tools/list", {}, {});
  const res = await send(url, {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify(message),
  });
  if (res.status === 200) expect(((await res.json()) as RpcMessage).result.tools.length).toBeGreaterThan(0);
  return res.status;
}

describe("OAuth entry: a client that sends no resource", () => {
  it("authorization code without resource on /authorize and /token: a token for <origin>/mcp, served there", async () => {
    const c = await client();
    const t = await (await c.login()).exchange();
    expect(t.status).toBe(200);
    expect(t.body.resource).toBe(RESOURCE);
    expect(await mcpStatus(t.body.access_token!)).toBe(200);
  });

  it("resource on only one of /authorize and /token: the same token for <origin>/mcp", async () => {
    const c = await client();
    for (const resource of [{ authorize: RESOURCE }, { token: RESOURCE }]) {
      const flow = await c.login({ authorize: resource.authorize });
      const t = await flow.exchange(resource.token ? { resource: resource.token } : {});
      expect(t.status, JSON.stringify(resource)).toBe(200);
      expect(t.body.resource).toBe(RESOURCE);
      expect(await mcpStatus(t.body.access_token!)).toBe(200);
    }
  });

  it("refresh without resource, twice: each new token is for <origin>/mcp and served there", async () => {
    const c = await client();
    let t = await (await c.login({ authorize: RESOURCE })).exchange({ resource: RESOURCE });
    for (let i = 0; i < 2; i++) {
      const r = await c.token({ grant_type: "refresh_token", refresh_token: t.body.refresh_token! });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.resource).toBe(RESOURCE);
      expect(await mcpStatus(r.body.access_token!)).toBe(200);
      t = r;
    }
  });
});

describe("OAuth entry: a token for another resource is still refused", () => {
  it("/authorize naming another resource: invalid_target back to the client, no code", async () => {
    const c = await client();
    const a = await c.authorize({ resource: OTHER });
    expect(a.location.searchParams.get("error")).toBe("invalid_target");
    expect(a.location.searchParams.get("code")).toBeNull();
  });

  it("/token and refresh naming another resource: 400 invalid_target, and the code or refresh token still works without it", async () => {
    const c = await client();
    const flow = await c.login();
    const wrong = await flow.exchange({ resource: OTHER });
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_target"]);
    const t = await flow.exchange();
    expect(t.status).toBe(200);
    const wrongRefresh = await c.token({ grant_type: "refresh_token", refresh_token: t.body.refresh_token!, resource: OTHER });
    expect([wrongRefresh.status, wrongRefresh.body.error]).toEqual([400, "invalid_target"]);
    const r = await c.token({ grant_type: "refresh_token", refresh_token: t.body.refresh_token! });
    expect(r.status).toBe(200);
    expect(await mcpStatus(r.body.access_token!)).toBe(200);
  });

  it("a resource-less token from another origin of this Worker is for that origin's /mcp: 401 here", async () => {
    const elsewhere = await client("http://127.0.0.1");
    const t = await (await elsewhere.login()).exchange();
    expect(t.body.resource).toBe("http://127.0.0.1/mcp");
    expect(await mcpStatus(t.body.access_token!, "http://127.0.0.1/mcp")).toBe(200);
    expect(await mcpStatus(t.body.access_token!)).toBe(401);
  });
});
