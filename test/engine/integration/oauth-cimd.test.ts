/**
 * OAuth Client ID Metadata Documents on the OAuth entry (src/engine/oauth/worker.ts): Claude and
 * ChatGPT use an https URL as `client_id` instead of registering. The entry fetches the document (the
 * provider's CIMD support, behind the `global_fetch_strictly_public` flag that wrangler.oauth.toml
 * sets), signs the user in, and the token calls /mcp. The document's fetch is answered in this
 * isolate, as id-jag.test.ts answers its JWKS; the flag is set for the test as the OAuth config sets it.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { OAuthEnv } from "../../../src/engine/oauth/authorize";
import { createOAuthWorker } from "../../../src/engine/oauth/worker";
import scopedApp from "../scoped-app/app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { openConsent } from "../helpers/oauth-consent";

const ORIGIN = "http://localhost";
const CLIENT_ID = "https://client.example.test/oauth/client-metadata.json";
const REDIRECT = "http://127.0.0.1:9/callback";
const OTHER_INSTALL = "http://127.0.0.1:10/callback";
const DOCUMENT = {
  client_id: CLIENT_ID,
  client_name: "Hosted Agent",
  client_uri: "https://client.example.test",
  redirect_uris: [REDIRECT, OTHER_INSTALL],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};
let documentFetches = 0;

beforeAll(() => {
  // wrangler.oauth.toml sets global_fetch_strictly_public; the engine test app does not (its tests fetch loopback).
  const cf = (globalThis as { Cloudflare?: { compatibilityFlags?: Record<string, boolean> } }).Cloudflare;
  vi.stubGlobal("Cloudflare", { ...cf, compatibilityFlags: { ...cf?.compatibilityFlags, global_fetch_strictly_public: true } });
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url !== CLIENT_ID) return realFetch(input, init);
    documentFetches++;
    return Response.json(DOCUMENT, { headers: { "Cache-Control": "max-age=60" } });
  });
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const entry = createOAuthWorker(scopedApp);
const oauthEnv = { ...env, OAUTH_DEMO_AUTO_APPROVE: "true" } as unknown as OAuthEnv;
async function send(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await entry.fetch(request, oauthEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

describe("OAuth entry: a client_id that is a client metadata document (CIMD)", () => {
  it("is advertised, its document names the client on the consent page, and its token calls /mcp", async () => {
    const meta = (await (await send(new Request(`${ORIGIN}/.well-known/oauth-authorization-server`))).json()) as {
      client_id_metadata_document_supported?: boolean;
    };
    expect(meta.client_id_metadata_document_supported).toBe(true);

    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
    const q = new URLSearchParams({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
      scope: "notes:read",
    });
    const page = await openConsent(send, `${ORIGIN}/authorize?${q}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Hosted Agent");
    expect(page.html).toContain("client.example.test");
    const back = await page.submit();
    const code = back.searchParams.get("code");
    expect(code, back.href).toBeTruthy();

    const tokenRes = await send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: code!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: CLIENT_ID,
        }),
      }),
    );
    const t = (await tokenRes.json()) as { access_token?: string; scope?: string };
    expect(tokenRes.status, JSON.stringify(t)).toBe(200);
    expect(t.scope).toBe("notes:read");

    const { message, headers } = buildModernRequest("tools/call", { name: "whoami", arguments: {} });
    const res = await send(
      new Request(`${ORIGIN}/mcp`, {
        method: "POST",
        headers: { ...headers, Authorization: `Bearer ${t.access_token}` },
        body: JSON.stringify(message),
      }),
    );
    expect(res.status).toBe(200);
    const auth = JSON.parse(((await res.json()) as RpcMessage).result.content[0].text) as { principal: string; clientId: string };
    expect(auth.principal).toBe("demo-user");
    expect(auth.clientId).toBe(CLIENT_ID);
    expect(documentFetches).toBeGreaterThan(0);
  });

  it("one document, two installations (two redirect URIs) of one user: signing in on the second keeps the first's token", async () => {
    // A CIMD client_id is shared by every installation of the app, so a grant is replaced only within one.
    const signIn = async (redirect: string, login: string) => {
      const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
      const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
      const q = new URLSearchParams({
        response_type: "code",
        client_id: CLIENT_ID,
        redirect_uri: redirect,
        code_challenge: challenge,
        code_challenge_method: "S256",
        login_hint: login,
      });
      const auth = await send(
        new Request(`${ORIGIN}/authorize?${q}`, { headers: { "CF-Connecting-IP": "127.0.0.1" }, redirect: "manual" }),
      );
      const code = new URL(auth.headers.get("Location")!).searchParams.get("code")!;
      const res = await send(
        new Request(`${ORIGIN}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            redirect_uri: redirect,
            code_verifier: verifier,
            client_id: CLIENT_ID,
          }),
        }),
      );
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const status = async (token: string) => {
      const { message, headers } = buildModernRequest("tools/list", {}, {});
      return (
        await send(
          new Request(`${ORIGIN}/mcp`, {
            method: "POST",
            headers: { ...headers, Authorization: `Bearer ${token}` },
            body: JSON.stringify(message),
          }),
        )
      ).status;
    };
    const desktop = await signIn(REDIRECT, "kim");
    const web = await signIn(OTHER_INSTALL, "kim");
    expect([await status(desktop), await status(web)]).toEqual([200, 200]);
    // The same installation signing in again replaces its own earlier grant.
    const again = await signIn(REDIRECT, "kim");
    expect([await status(desktop), await status(again), await status(web)]).toEqual([401, 200, 200]);
  });

  it("a redirect URI the document does not list is refused on the page, never redirected to", async () => {
    const q = new URLSearchParams({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: "https://attacker.example/cb",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    });
    const res = await send(new Request(`${ORIGIN}/authorize?${q}`, { headers: { "CF-Connecting-IP": "127.0.0.1" }, redirect: "manual" }));
    expect(res.status).toBe(400);
    expect(res.headers.get("Location")).toBeNull();
  });
});
