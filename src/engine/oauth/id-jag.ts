/**
 * Enterprise-managed authorization (ID-JAG: an identity assertion JWT authorization grant, RFC 7523
 * `jwt-bearer`) for the OAuth entry. The company's IdP signs a short-lived assertion for a user and
 * a registered client; the client trades it at /oauth/token for an access token to /mcp, with no
 * browser and no consent page (the IdP's admin consented for the company). The provider checks the
 * signature against the IdP's JWKS, the audience (this issuer), the resource, the client, the
 * lifetime and that the assertion is used once; this maps what it verified to our grant.
 *
 * Off unless OAUTH_IDJAG_ISSUER and OAUTH_IDJAG_JWKS_URI (both https) name the one IdP trusted.
 */
import type { EmaOptions } from "@cloudflare/workers-oauth-provider";

export interface IdJagEnv {
  /** The trusted IdP's issuer, exactly as its assertions write `iss` (https). */
  OAUTH_IDJAG_ISSUER?: string;
  /** Where its signing keys are (https). */
  OAUTH_IDJAG_JWKS_URI?: string;
  /** The algorithms it signs with, comma-separated: RS256 (the default), ES256 or both. */
  OAUTH_IDJAG_ALGORITHMS?: string;
}

export function enterpriseAuthorization<E extends IdJagEnv>(env: E): EmaOptions<E> | undefined {
  const issuer = env.OAUTH_IDJAG_ISSUER;
  const jwksUri = env.OAUTH_IDJAG_JWKS_URI;
  if (!issuer || !jwksUri) return undefined;
  const algorithms = env.OAUTH_IDJAG_ALGORITHMS?.split(",").map((a) => a.trim());
  const trusted = { issuer, jwksUri, ...(algorithms ? { algorithms } : {}) };
  return {
    trustedIssuers: async ({ iss }) => (iss === issuer ? trusted : null),
    mapClaims: async ({ claims, requestedScope }) => {
      // The principal: the IdP's subject, in a namespace of its own (a user id holds no ":").
      const userId = `idjag-${encodeURIComponent(claims.sub)}`;
      // The IdP grants the scopes: those its `scope` claim names that the client asked for (all of
      // them when it asked for none; the provider narrows the request to the claim). No claim, no scope.
      const scope = typeof claims.scope === "string" ? requestedScope : [];
      // props as /authorize gives them (UserProps): userId is the principal on /mcp.
      return { userId, scope, props: { userId }, metadata: { idJag: { iss: claims.iss, sub: claims.sub } } };
    },
  };
}
