/**
 * The authorization endpoint (/authorize) of the opt-in OAuth entry (./index.ts): who the user
 * is, and whether they let this client act for them. The provider validated nothing here yet;
 * `parseAuthRequest` checks the client, redirect URI, PKCE and resource, and
 * `completeAuthorization` issues the code. Everything else (tokens, registration, metadata) is
 * the provider's.
 *
 * ▶ PLUG REAL LOGIN INTO `signedInUser` BELOW. Until you do, nobody can authorize: the template
 *   never approves anyone by default. For local testing only, OAUTH_DEMO_AUTO_APPROVE="true"
 *   signs in as a demo user every browser on this machine (not the network) and skips the
 *   consent page; see demoAutoApprove.
 */
import {
  AuthorizationError,
  CimdFetchError,
  authorizationErrorRedirect,
  type AuthRequest,
  type ConsentDescription,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import type { IdJagEnv } from "./id-jag";
import { askedScopes, type ScopePolicy } from "./scopes";

export interface OAuthEnv extends Env, IdJagEnv {
  /** Clients, grants and tokens (hashed); `wrangler kv namespace create OAUTH_KV`. */
  OAUTH_KV: KVNamespace;
  /** Set by the provider for its default handler (on the per-origin copy of env, ./index.ts). */
  OAUTH_PROVIDER: OAuthHelpers;
  /** "true" signs in, as a demo user, browsers on this machine only (demoAutoApprove). */
  OAUTH_DEMO_AUTO_APPROVE?: string;
}

/** What a grant carries to /mcp as `ctx.props`; `userId` becomes the MCP principal. */
export interface UserProps {
  userId: string;
}

export const AUTHORIZE_PATH = "/authorize";

/** localhost, 127.0.0.0/8 and [::1]: where plain http is accepted (`wrangler dev`). */
export const isLoopbackHostname = (hostname: string) => /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(hostname);

/** 127.0.0.0/8 and ::1, also written as IPv4-mapped IPv6. */
const isLoopbackAddress = (ip: string) => /^(::ffff:)?127(\.\d{1,3}){3}$|^(0{0,4}:){2,7}0{0,3}1$/i.test(ip.trim());

/**
 * The demo switch. Besides the var, the browser must really be on this machine, and the Host
 * header cannot tell: the client writes it. CF-Connecting-IP can: in production Cloudflare sets
 * it to the real client's address (never loopback) and replaces any value the client sent;
 * under `wrangler dev` it is the address of the connection. So a deployed Worker never
 * auto-approves, even with the var left on. One limit: `wrangler dev` keeps a CF-Connecting-IP
 * the client sent itself, so never bind `wrangler dev` to a network address (`--ip 0.0.0.0`)
 * with the demo on.
 */
const demoAutoApprove = (request: Request, env: OAuthEnv) =>
  env.OAUTH_DEMO_AUTO_APPROVE === "true" &&
  isLoopbackAddress(request.headers.get("CF-Connecting-IP") ?? "") &&
  isLoopbackHostname(new URL(request.url).hostname);

/**
 * ▶ PLUG REAL LOGIN HERE: return the signed-in user's stable id (no ":"), or undefined.
 * Read your own session cookie, verify a Cloudflare Access JWT (Cf-Access-Jwt-Assertion), or
 * send the browser to GitHub/Google/… with `env.OAUTH_PROVIDER.beginUpstream()` and come back
 * through `finishUpstream()` (the provider's docs/upstream-sign-in.md). Redirect to your login
 * page instead of answering 403 when nobody is signed in.
 *
 * The demo (OAUTH_DEMO_AUTO_APPROVE="true", browsers on this machine only): "demo-user", or
 * "demo-<login_hint>" so a test can be two different users.
 */
async function signedInUser(request: Request, env: OAuthEnv): Promise<string | undefined> {
  if (!demoAutoApprove(request, env)) return undefined;
  const hint = new URL(request.url).searchParams.get("login_hint") ?? "";
  return /^[A-Za-z0-9_-]{1,64}$/.test(hint) ? `demo-${hint}` : "demo-user";
}

export async function authorize(request: Request, env: OAuthEnv, policy: ScopePolicy<OAuthEnv>): Promise<Response> {
  const oauth = env.OAUTH_PROVIDER;
  try {
    const user = await signedInUser(request, env);
    if (request.method === "POST") {
      // The consent form came back. The request itself comes from storage, bound to this browser.
      const form = await request.formData();
      const handle = String(form.get("handle") ?? "");
      if (form.get("decision") !== "approve") {
        const denied = await oauth.denyConsent(request, handle);
        return new Response(null, { status: 302, headers: denied.headers });
      }
      if (!user) return page(403, "Sign in first.");
      // The scopes the user ticked, of those this server knows and this user may hold: the form is the
      // browser's, so it is checked again here, for the client of the stored request.
      const ticked = form
        .getAll("scope")
        .map(String)
        .filter((s) => policy.known.includes(s));
      const approved = await oauth.approveConsent(request, handle, { scope: ticked });
      const scope = await policy.allowed(user, approved.request.clientId, ticked, env);
      return complete(oauth, { ...approved.request, scope }, user, approved.headers);
    }
    if (request.method !== "GET") return page(405, "Use GET or POST.");

    const authRequest = await oauth.parseAuthRequest(request);
    // Scopes this server does not know are refused (RFC 6749 §4.1.2.1), back at the client.
    const { asked, unknown } = askedScopes(policy, authRequest.scope);
    if (unknown.length > 0)
      return Response.redirect(authorizationErrorRedirect(authRequest, "invalid_scope", `Unknown scope: ${unknown.join(" ")}`), 302);
    if (!user)
      return page(403, "Sign-in is not set up on this server: plug your login into signedInUser() in src/engine/oauth/authorize.ts.");
    // A request naming no scope gets the app's baseline (RFC 6749 §3.3: the server's default).
    const wanted = [...new Set([...(asked.length > 0 ? asked : policy.baseline), ...policy.consent])];
    // The demo skips the page unless the client asks for it (prompt=consent).
    const prompt = new URL(request.url).searchParams.get("prompt") ?? "";
    if (demoAutoApprove(request, env) && !prompt.split(" ").includes("consent")) {
      const scope = await policy.allowed(user, authRequest.clientId, wanted, env);
      return complete(oauth, { ...authRequest, scope }, user, new Headers());
    }
    const details = await oauth.describeConsent(authRequest); // first: a failed lookup leaves nothing in KV
    const offered = await policy.allowed(user, authRequest.clientId, policy.known, env);
    const consent = await oauth.beginConsent(authRequest);
    consent.headers.set("Content-Type", "text/html; charset=utf-8");
    const refused = asked.filter((s) => !offered.includes(s));
    return new Response(consentPage(details, consent.handle, user, offered, wanted, refused), { headers: consent.headers });
  } catch (error) {
    // Redirect to the client only when the library says its redirect URI is validated.
    if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
    if (error instanceof AuthorizationError) return page(400, error.description);
    if (error instanceof CimdFetchError)
      return page(400, "This app could not be verified: its client metadata document could not be fetched.");
    throw error;
  }
}

async function complete(oauth: OAuthHelpers, request: AuthRequest, userId: string, headers: Headers): Promise<Response> {
  const props: UserProps = { userId };
  // The user's earlier grant to this client stays until this one's code is redeemed (worker.ts,
  // tokenExchangeCallback): a client that fails to finish this authorization keeps its token.
  const { redirectTo } = await oauth.completeAuthorization({
    request,
    userId,
    metadata: {},
    scope: request.scope,
    props,
    revokeExistingGrants: false,
  });
  headers.set("Location", redirectTo);
  return new Response(null, { status: 302, headers });
}

// Everything below comes partly from the client (name, URIs, scopes): escape it all.
const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function consentPage(d: ConsentDescription, handle: string, user: string, offered: string[], wanted: string[], refused: string[]): string {
  const name = escape(d.clientName);
  const origin = d.clientDomain
    ? `Published by <strong>${escape(d.clientDomain)}</strong>.`
    : "This app registered itself; its name is not verified.";
  const local = d.redirectIsLoopback
    ? "<p><strong>Access goes to an app on your computer.</strong> Continue only if you just started signing in from it.</p>"
    : "";
  // Every scope this user may hold, those asked for (and the app's first-consent set) ticked: the user
  // may grant more than the client asked for, so a client that cannot ask again still works.
  const boxes = offered
    .map(
      (s) =>
        `<label><input type="checkbox" name="scope" value="${escape(s)}"${wanted.includes(s) ? " checked" : ""}> ${escape(s)}${d.scope.includes(s) ? "" : " <small>(not asked for)</small>"}</label><br>`,
    )
    .join("");
  const scopes = offered.length > 0 ? `<fieldset><legend>Permissions</legend>${boxes}</fieldset>` : "";
  const notYours = refused.length > 0 ? `<p>Not available to you: ${refused.map(escape).join(", ")}</p>` : "";
  return `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Authorize ${name}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em}h1{font-size:1.4em}button{font:inherit;padding:.4em 1.2em;margin-right:.5em}fieldset{margin:1em 0}</style>
<h1>Allow ${name} to use this MCP server as ${escape(user)}?</h1>
<p>${origin} Access will be sent to <strong>${escape(d.redirectHost)}</strong>.</p>${local}
<form method="post"><input type="hidden" name="handle" value="${escape(handle)}">${scopes}${notYours}
<button name="decision" value="approve">Allow</button> <button name="decision" value="deny">Deny</button></form>`;
}

function page(status: number, message: string): Response {
  return new Response(`<!doctype html><meta charset="utf-8"><title>Authorization</title><p>${escape(message)}</p>`, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'" },
  });
}
