/**
 * The opt-in for AUTH_MODE=jwt: `createMcpWorker(app, { jwt: jwtAuth })`. Only a Worker that passes
 * it carries `jose` (about 6.6 KiB gzip) and this verifier, and even there jose is evaluated on the
 * first token, not at start-up.
 */
import { AuthFailure, scopeList, type JwtAuth } from "./auth";
import { devTokens } from "./dev-tokens";
import type { JwtClaims } from "./jwt";

function requireScopes(granted: readonly string[], needed: string[]): void {
  const missing = needed.filter((s) => !granted.includes(s));
  if (missing.length > 0) throw new AuthFailure("insufficient_scope", `The token lacks the scope(s): ${missing.join(" ")}`);
}

const jwtVerifier: JwtAuth = (cfg) => {
  let check: Promise<(token: string, audiences: string[]) => Promise<JwtClaims>> | undefined;
  return async (token, resource) => {
    check ??= import("./jwt").then(({ jwtChecker }) => jwtChecker(cfg));
    let payload: JwtClaims;
    try {
      // This server's own URI is always its audience; AUTH_AUDIENCE adds the names an authorization
      // server uses for it when a client sends no `resource` (an API identifier, a client id).
      payload = await (await check)(token, [resource, ...cfg.audiences]);
    } catch (err) {
      throw new AuthFailure("invalid_token", `The access token is not valid: ${(err as Error).message}`);
    }
    if (typeof payload.sub !== "string" || payload.sub === "") throw new AuthFailure("invalid_token", "The access token has no subject");
    const scopes = scopeList(payload.scope, payload.scp);
    requireScopes(scopes, cfg.scopes);
    // RFC 9068 names the client `client_id`; OpenID providers (Entra ID, Google) write `azp`.
    const client = payload.client_id ?? payload.azp;
    return { id: `${cfg.issuer}#${payload.sub}`, scopes, ...(typeof client === "string" ? { clientId: client } : {}), claims: payload };
  };
};

// Dev tokens are JWTs too: a Worker that checks JWTs can check `npm run dev`'s, when it has the key.
// Pure, so that a Worker that does not pass `jwt` bundles neither (no top-level side effect keeps this module).
export const jwtAuth: JwtAuth = /* @__PURE__ */ Object.assign(jwtVerifier, { dev: devTokens });
