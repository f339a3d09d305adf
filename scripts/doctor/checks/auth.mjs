// Why: when the server asks for authorization, a hosted client signs in from its metadata alone:
// the 401 challenge, RFC 9728 protected-resource metadata (at the challenge's URL, the path form
// /.well-known/oauth-protected-resource/mcp and the root form), the authorization server's RFC 8414 or
// OpenID metadata, PKCE S256, dynamic registration or Client ID Metadata Documents, and a token endpoint
// that answers a request without RFC 8707 `resource` as it answers one with it. Each fetch is held to
// the hosted clients' budget. The only change it makes is one client registration named as the doctor's.
import { FAULTS } from "../faults.mjs";
import { describe, jsonOf } from "../http.mjs";
import { fault } from "../report.mjs";

const REDIRECT_URI = "https://claude.ai/api/mcp/auth_callback";
const DOCTOR_CLIENT_NAME = "mcp-worker-template doctor";

/** The `resource_metadata` parameter of a Bearer challenge, or null; undefined when there is no Bearer challenge. */
function bearerChallenge(header) {
  if (!header || !/^\s*bearer\b/i.test(header)) return undefined;
  return header.match(/resource_metadata\s*=\s*"([^"]*)"/i)?.[1] ?? null;
}

const trimSlash = (s) => String(s).replace(/\/+$/, "");

/**
 * GETs every URL at once (a stalled one costs the timeout once, not once per URL); the first in the
 * list's order that answered 200 with a JSON object wins. Every answer is kept for the report.
 */
async function firstJson(ctx, urls) {
  const tried = await Promise.all(
    urls.map(async (url) => ({ url, a: await ctx.send({ method: "GET", headers: { Accept: "application/json" } }, { url, auth: false }) })),
  );
  for (const t of tried) {
    const body = jsonOf(t.a);
    if (t.a.status === 200 && body && typeof body === "object") return { url: t.url, a: t.a, body, tried };
  }
  return { tried };
}

const slowest = (tried) => tried.reduce((m, t) => (t.a.ms > m.a.ms ? t : m), tried[0]);
const overBudget = (ctx, tried, what) => {
  const s = slowest(tried);
  return s && (s.a.ms > ctx.budgetMs || s.a.timedOut) ? fault("slow", FAULTS.slow(`${what} (${s.url})`, s.a.ms, ctx.budgetMs)) : undefined;
};

export async function authChecks(ctx, report) {
  if (ctx.state.blocked) return;
  if (!ctx.state.authRequired) {
    await report.step("authorization", () => ({ skip: "the server answers without asking for authorization" }));
    return;
  }
  const url = new URL(ctx.url);
  let challengeUrl;
  const ok = await report.step("401 challenge", () => {
    const header = ctx.state.first.headers.get("www-authenticate");
    challengeUrl = bearerChallenge(header);
    if (challengeUrl === undefined)
      return { fault: fault("no-challenge", FAULTS.noChallenge(`401 with WWW-Authenticate ${header ? `"${header}"` : "missing"}`)) };
    return { detail: challengeUrl ? `Bearer, resource_metadata="${challengeUrl}"` : "Bearer, without resource_metadata" };
  });
  if (ok.status !== "ok") return;

  /** @type {any} */
  let prm;
  await report.step("protected-resource metadata (RFC 9728)", async () => {
    const pathForm = `${url.origin}/.well-known/oauth-protected-resource${url.pathname === "/" ? "" : url.pathname}`;
    const rootForm = `${url.origin}/.well-known/oauth-protected-resource`;
    const urls = [...new Set([challengeUrl, pathForm, rootForm].filter(Boolean))];
    // Every path is asked for the report; clients use the challenge's, else the path form, else the root form.
    const r = await firstJson(ctx, urls);
    const all = r.tried;
    const detail = all.map((t) => `${new URL(t.url).pathname} ${t.a.status || t.a.error}`).join("; ");
    const ms = slowest(all).a.ms;
    if (!r.body) {
      // Metadata that did not come in time is slow, not missing: what it would have said is unknown.
      const slow = overBudget(ctx, all, "protected-resource metadata");
      if (slow) return { fault: slow, detail, ms };
      return {
        fault: challengeUrl
          ? fault("metadata-missing", FAULTS.metadataMissing(urls))
          : fault("static-token-only", FAULTS.staticTokenOnly()),
        detail,
        ms,
      };
    }
    prm = r.body;
    const faults = [];
    if (trimSlash(prm.resource) !== trimSlash(ctx.url))
      faults.push(fault("resource-mismatch", FAULTS.resourceMismatch(prm.resource, ctx.url)));
    const slow = overBudget(ctx, all, "protected-resource metadata");
    if (slow) faults.push(slow);
    return { faults, detail: `${detail}; resource ${prm.resource}; authorization server ${prm.authorization_servers?.[0] ?? "none"}`, ms };
  });
  const issuer = prm?.authorization_servers?.[0];
  if (!issuer) return;

  let asm;
  await report.step("authorization server metadata (RFC 8414)", async () => {
    const as = new URL(issuer);
    const path = as.pathname === "/" ? "" : trimSlash(as.pathname);
    const urls = [
      `${as.origin}/.well-known/oauth-authorization-server${path}`,
      `${as.origin}/.well-known/openid-configuration${path}`,
      `${as.origin}${path}/.well-known/openid-configuration`,
    ];
    const r = await firstJson(ctx, [...new Set(urls)]);
    const ms = slowest(r.tried).a.ms;
    if (!r.body)
      return {
        fault: overBudget(ctx, r.tried, "authorization server metadata") ?? fault("as-metadata-missing", FAULTS.asMetadataMissing(urls)),
        ms,
      };
    asm = r.body;
    const slow = overBudget(ctx, r.tried, "authorization server metadata");
    return { faults: slow ? [slow] : [], detail: `${new URL(r.url).pathname}: issuer ${asm.issuer}`, ms };
  });
  if (!asm) return;

  await report.step("PKCE S256", () => {
    const methods = asm.code_challenge_methods_supported;
    return Array.isArray(methods) && methods.includes("S256")
      ? { detail: `code_challenge_methods_supported: ${methods.join(", ")}` }
      : { fault: fault("no-s256", FAULTS.noS256(methods ?? null)) };
  });

  // Information, never a fault: a client that prefers CIMD falls back to dynamic registration (checked next).
  await report.step("client ID metadata documents (information)", () => ({
    detail:
      asm.client_id_metadata_document_supported === true
        ? "supported (client_id_metadata_document_supported): Claude and ChatGPT can sign in with an https client_id, without registering"
        : "not supported (no client_id_metadata_document_supported: true): clients that prefer them (Claude, ChatGPT) register dynamically instead",
  }));

  let client;
  await report.step("client registration (DCR, client ID metadata documents)", async () => {
    const cimd = asm.client_id_metadata_document_supported === true;
    if (!asm.registration_endpoint)
      return cimd
        ? { detail: "client ID metadata documents supported; no dynamic registration" }
        : { fault: fault("no-registration", FAULTS.noRegistration()) };
    const a = await ctx.send(
      {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: {
          client_name: DOCTOR_CLIENT_NAME,
          redirect_uris: [REDIRECT_URI],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        },
      },
      { url: asm.registration_endpoint, auth: false },
    );
    const body = jsonOf(a);
    if (!(a.status === 200 || a.status === 201) || !body?.client_id)
      return { fault: fault("registration-failed", FAULTS.registrationFailed(describe(a))), ms: a.ms };
    client = body;
    const slow = a.ms > ctx.budgetMs ? fault("slow", FAULTS.slow("dynamic client registration", a.ms, ctx.budgetMs)) : undefined;
    return {
      faults: slow ? [slow] : [],
      detail: `registered "${DOCTOR_CLIENT_NAME}" (client_id ${body.client_id}); client ID metadata documents ${cimd ? "supported" : "not supported"}`,
      ms: a.ms,
    };
  });

  await report.step("token endpoint: a request without resource", async () => {
    if (!asm.token_endpoint) return { skip: "the metadata names no token_endpoint" };
    if (!client) return { skip: "no client registered to ask with" };
    // An authorization code that does not exist: a healthy endpoint says invalid_grant either way.
    const form = {
      grant_type: "authorization_code",
      code: "mcp-doctor-no-such-code",
      redirect_uri: REDIRECT_URI,
      client_id: client.client_id,
      code_verifier: "mcp-doctor-verifier-".padEnd(64, "x"),
    };
    const ask = (extra) =>
      ctx.send(
        {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
          body: new URLSearchParams({ ...form, ...extra }).toString(),
        },
        { url: asm.token_endpoint, auth: false },
      );
    const without = await ask({});
    const withIt = await ask({ resource: ctx.url });
    const err = (a) => jsonOf(a) ?? {};
    const words = (a) => `${a.status || a.error} ${err(a).error ?? ""}`.trim();
    const detail = `without resource: ${words(without)}; with it: ${words(withIt)}`;
    const ms = Math.max(without.ms, withIt.ms);
    const faults = [];
    const refusesMissing = err(without).error === "invalid_target" || /\bresource\b/i.test(String(err(without).error_description ?? ""));
    if (refusesMissing && (without.status !== withIt.status || err(without).error !== err(withIt).error))
      faults.push(fault("token-needs-resource", FAULTS.tokenNeedsResource(words(without))));
    if (ms > ctx.budgetMs) faults.push(fault("slow", FAULTS.slow("the token endpoint", ms, ctx.budgetMs)));
    return { faults, detail, ms };
  });
}
