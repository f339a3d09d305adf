/**
 * The OAuth entry as an authorization server that grants permissions (src/engine/oauth/scopes.ts):
 * only scopes the app knows (declared, or named in `implies`), an unknown one refused with
 * `invalid_scope` back at the client (RFC 6749 §4.1.2.1); the app's `userScopes` decides which user
 * may hold which; the consent page offers every scope the user may hold and grants what the user
 * ticks, also more than the client asked for (RFC 6749 §3.3, named in the token response); and a
 * second consent keeps the earlier grant until its own code is redeemed. The scoped fixture app:
 * `delete_note` needs notes:write, the baseline is notes:read, notes:admin implies notes:write.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OAuthEnv } from "../../../src/engine/oauth/authorize";
import { createOAuthWorker, type OAuthWorkerOptions } from "../../../src/engine/oauth/worker";
import scopedApp from "../scoped-app/app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { openConsent } from "../helpers/oauth-consent";

const ORIGIN = "http://localhost";
const REDIRECT = "http://127.0.0.1:9/callback";

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** An entry for the scoped fixture with `options`, and a public client registered there. */
async function setup(options: OAuthWorkerOptions = {}) {
  const entry = createOAuthWorker(scopedApp, options);
  const oauthEnv = { ...env, OAUTH_DEMO_AUTO_APPROVE: "true" } as unknown as OAuthEnv;
  const send = async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await entry.fetch(request, oauthEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  const reg = await send(
    new Request(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "scoped client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    }),
  );
  const { client_id } = (await reg.json()) as { client_id: string };

  /** An /authorize URL for `scope` (none when undefined), and its PKCE verifier. */
  const authorizeUrl = async (scope?: string, extra: Record<string, string> = {}) => {
    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
    const q = new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
      ...extra,
    });
    if (scope !== undefined) q.set("scope", scope);
    return { url: new URL(`${ORIGIN}/authorize?${q}`), verifier };
  };
  /** /authorize auto-approved by the demo (no page): the redirect back. */
  const autoApprove = async (url: URL) => {
    const res = await send(new Request(url, { headers: { "CF-Connecting-IP": "127.0.0.1" }, redirect: "manual" }));
    expect(res.status).toBe(302);
    return new URL(res.headers.get("Location")!);
  };
  const redeem = async (back: URL, verifier: string) => {
    const code = back.searchParams.get("code");
    expect(code, back.href).toBeTruthy();
    const res = await send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: code!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id,
        }),
      }),
    );
    const body = (await res.json()) as { access_token: string; scope?: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  };
  /** A 2026-07-28 delete_note with the token: the HTTP status. */
  const deleteNote = async (token: string) => {
    const { message, headers } = buildModernRequest("tools/call", { name: "delete_note", arguments: { id: "n1" } });
    const res = await send(
      new Request(`${ORIGIN}/mcp`, {
        method: "POST",
        headers: { ...headers, Authorization: `Bearer ${token}` },
        body: JSON.stringify(message),
      }),
    );
    if (res.status === 200) expect(((await res.json()) as RpcMessage).result.content[0].text).toBe("deleted n1");
    return res.status;
  };
  return { send, authorizeUrl, autoApprove, redeem, deleteNote };
}

const scopesOf = (t: { scope?: string }) => (t.scope ?? "").split(" ").filter(Boolean).sort();

describe("OAuth entry: least scope first", () => {
  it("the resource metadata's scopes_supported and the 401 challenge name the baseline (notes:read), not every declared scope", async () => {
    const s = await setup();
    const meta = (await (await s.send(new Request(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`))).json()) as {
      scopes_supported?: string[];
    };
    expect(meta.scopes_supported).toEqual(["notes:read"]);
    const { message, headers } = buildModernRequest("tools/list", {}, {});
    const res = await s.send(new Request(`${ORIGIN}/mcp`, { method: "POST", headers, body: JSON.stringify(message) }));
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('scope="notes:read"');
    // The authorization server's own metadata lists every scope it may grant.
    const as = (await (await s.send(new Request(`${ORIGIN}/.well-known/oauth-authorization-server`))).json()) as {
      scopes_supported?: string[];
    };
    expect(as.scopes_supported?.sort()).toEqual(["notes:admin", "notes:read", "notes:write"]);
  });
});

describe("OAuth entry: the scopes it grants", () => {
  it("a request naming a scope the app does not know is refused with invalid_scope back at the client, and no code", async () => {
    const s = await setup();
    for (const scope of ["notes:read notes:everything", "root", "notes:read admin:*"]) {
      const back = await s.autoApprove((await s.authorizeUrl(scope)).url);
      expect(back.searchParams.get("error"), scope).toBe("invalid_scope");
      expect(back.searchParams.get("code")).toBeNull();
      expect(back.searchParams.get("state")).toBe("st");
    }
  });

  it("declared and implied scopes are granted (notes:admin only through implies); none asked gets the baseline; offline_access is served", async () => {
    const s = await setup();
    for (const [asked, granted] of [
      ["notes:read notes:write", ["notes:read", "notes:write"]],
      ["notes:admin", ["notes:admin"]],
      [undefined, ["notes:read"]],
      ["notes:read offline_access", ["notes:read"]],
      // Scopes OAuth libraries add by habit grant nothing here, and are not refused.
      ["openid profile notes:read", ["notes:read"]],
    ] as const) {
      const a = await s.authorizeUrl(asked);
      const t = await s.redeem(await s.autoApprove(a.url), a.verifier);
      expect(scopesOf(t), String(asked)).toEqual([...granted].sort());
    }
  });

  it("an app that declares no scope refuses none: any scope asked is served, and none granted", async () => {
    const bare = createOAuthWorker({ info: { name: "bare", version: "0.0.0" }, tools: [] });
    const oauthEnv = { ...env, OAUTH_DEMO_AUTO_APPROVE: "true" } as unknown as OAuthEnv;
    const send = async (request: Request) => {
      const ctx = createExecutionContext();
      const res = await bare.fetch(request, oauthEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const reg = await send(
      new Request(`${ORIGIN}/oauth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      }),
    );
    const { client_id } = (await reg.json()) as { client_id: string };
    const q = new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
      scope: "mcp anything",
    });
    const res = await send(new Request(`${ORIGIN}/authorize?${q}`, { headers: { "CF-Connecting-IP": "127.0.0.1" }, redirect: "manual" }));
    const back = new URL(res.headers.get("Location")!);
    expect(back.searchParams.get("error")).toBeNull();
    expect(back.searchParams.get("code")).toBeTruthy();
  });

  it("userScopes decides which user may hold which scope: notes:admin for the admin only", async () => {
    const s = await setup({
      userScopes: ({ userId, scopes }) => (userId === "demo-admin" ? scopes : scopes.filter((x) => x !== "notes:admin")),
    });
    const bob = await s.authorizeUrl("notes:read notes:admin", { login_hint: "bob" });
    expect(scopesOf(await s.redeem(await s.autoApprove(bob.url), bob.verifier))).toEqual(["notes:read"]);
    const admin = await s.authorizeUrl("notes:read notes:admin", { login_hint: "admin" });
    expect(scopesOf(await s.redeem(await s.autoApprove(admin.url), admin.verifier))).toEqual(["notes:admin", "notes:read"]);
    // On the page bob is not offered notes:admin, and a forged form field does not grant it.
    const page = await openConsent(s.send, (await s.authorizeUrl("notes:read notes:admin", { login_hint: "bob" })).url);
    expect([...page.boxes.keys()].sort()).toEqual(["notes:read", "notes:write"]);
    expect(page.html).toContain("Not available to you: notes:admin");
  });

  it("the consent page offers every scope the user may hold, ticks those asked for, and grants what the user ticks: a write tool after one consent", async () => {
    const s = await setup();
    const a = await s.authorizeUrl("notes:read");
    const page = await openConsent(s.send, a.url);
    expect(page.status).toBe(200);
    expect(Object.fromEntries(page.boxes)).toEqual({ "notes:read": true, "notes:admin": false, "notes:write": false });
    const t = await s.redeem(await page.submit({ scopes: ["notes:read", "notes:write"] }), a.verifier);
    // RFC 6749 §3.3: the token response names the scope issued, more than was asked for.
    expect(scopesOf(t)).toEqual(["notes:read", "notes:write"]);
    expect(await s.deleteNote(t.access_token)).toBe(200);
  });

  it("the user may grant less than asked; a forged unknown scope is not granted", async () => {
    const s = await setup();
    const a = await s.authorizeUrl("notes:read notes:write");
    const page = await openConsent(s.send, a.url);
    const t = await s.redeem(await page.submit({ scopes: ["notes:read"], forge: ["root"] }), a.verifier);
    expect(scopesOf(t)).toEqual(["notes:read"]);
    expect(await s.deleteNote(t.access_token)).toBe(403);
  });

  it("consentScopes: the app's first-consent set is ticked on the page and granted by the demo", async () => {
    const s = await setup({ consentScopes: ["notes:write"] });
    const a = await s.authorizeUrl("notes:read");
    const page = await openConsent(s.send, a.url);
    expect(Object.fromEntries(page.boxes)).toEqual({ "notes:read": true, "notes:admin": false, "notes:write": true });
    const demo = await s.authorizeUrl("notes:read");
    const t = await s.redeem(await s.autoApprove(demo.url), demo.verifier);
    expect(scopesOf(t)).toEqual(["notes:read", "notes:write"]);
    expect(await s.deleteNote(t.access_token)).toBe(200);
  });

  it("a second consent keeps the earlier grant until its own code is redeemed; then the earlier one goes", async () => {
    const s = await setup();
    const first = await s.authorizeUrl("notes:read");
    const t1 = await s.redeem(await s.autoApprove(first.url), first.verifier);
    expect(await s.deleteNote(t1.access_token)).toBe(403);
    // A step-up the client never finishes: the code is issued and not redeemed.
    const second = await s.authorizeUrl("notes:read notes:write");
    const back = await s.autoApprove(second.url);
    expect(await s.deleteNote(t1.access_token)).toBe(403); // still valid: 403 for the scope, not 401
    const t2 = await s.redeem(back, second.verifier);
    expect(await s.deleteNote(t2.access_token)).toBe(200);
    expect(await s.deleteNote(t1.access_token)).toBe(401);
  });
});
