/**
 * Enterprise-managed authorization (ID-JAG: an identity assertion JWT authorization grant, RFC 7523
 * `jwt-bearer`) for the OAuth entry. The company's IdP signs a short-lived assertion for a user and
 * a registered client; the client trades it at /oauth/token for an access token to /mcp, with no
 * browser and no consent page (the IdP's admin consented for the company). The provider checks the
 * signature against the IdP's JWKS, the audience (this issuer), the resource, the client, the
 * lifetime and a first replay check; this maps what it verified to our grant, after marking the
 * assertion used in a Durable Object (./once.ts): the provider's KV mark lets two concurrent
 * exchanges of one assertion through, the object lets one.
 *
 * Off unless OAUTH_IDJAG_ISSUER and OAUTH_IDJAG_JWKS_URI (both https) name the one IdP trusted,
 * and the OAUTH_ONCE binding is there.
 */
import type { EmaOptions } from "@cloudflare/workers-oauth-provider";
import { claimOnce, type OnceEnv } from "./once";
import type { ScopePolicy } from "./scopes";

export interface IdJagEnv extends OnceEnv {
  /** The trusted IdP's issuer, exactly as its assertions write `iss` (https). */
  OAUTH_IDJAG_ISSUER?: string;
  /** Where its signing keys are (https). */
  OAUTH_IDJAG_JWKS_URI?: string;
  /** The algorithms it signs with, comma-separated: RS256 (the default), ES256 or both. */
  OAUTH_IDJAG_ALGORITHMS?: string;
}

export function enterpriseAuthorization<E extends IdJagEnv>(env: E, policy: ScopePolicy<E>): EmaOptions<E> | undefined {
  const issuer = env.OAUTH_IDJAG_ISSUER;
  const jwksUri = env.OAUTH_IDJAG_JWKS_URI;
  if (!issuer || !jwksUri) return undefined;
  const once = env.OAUTH_ONCE;
  if (!once) {
    // Without the single-use marks an assertion could be exchanged twice: the grant stays off.
    console.error("ID-JAG is off: OAUTH_IDJAG_ISSUER is set but the OAUTH_ONCE Durable Object binding is missing (wrangler.oauth.toml)");
    return undefined;
  }
  const algorithms = env.OAUTH_IDJAG_ALGORITHMS?.split(",").map((a) => a.trim());
  const trusted = { issuer, jwksUri, ...(algorithms ? { algorithms } : {}) };
  return {
    trustedIssuers: async ({ iss }) => (iss === issuer ? trusted : null),
    mapClaims: async ({ claims, requestedScope, clientInfo }) => {
      // Used once, also under concurrency; null is the provider's invalid_grant.
      if (!(await claimOnce(once, `id-jag\n${claims.iss}\n${claims.jti}`, claims.exp))) return null;
      // The principal: the IdP's subject, in a namespace of its own (a user id holds no ":").
      const userId = `idjag-${encodeURIComponent(claims.sub)}`;
      // The IdP grants the scopes: those its `scope` claim names that the client asked for (all of
      // them when it asked for none). No claim, or a blank one, grants none: the provider reads a
      // claim without tokens as "no limit", so the claim's own tokens are the limit here.
      const claimed = new Set(typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : []);
      // Of those, the ones the app knows and lets this user hold (./scopes.ts), as at /authorize.
      const scope = await policy.allowed(
        userId,
        clientInfo.clientId,
        requestedScope.filter((s) => claimed.has(s)),
        env,
      );
      // props as /authorize gives them (UserProps): userId is the principal on /mcp.
      return { userId, scope, props: { userId }, metadata: { idJag: { iss: claims.iss, sub: claims.sub } } };
    },
  };
}
