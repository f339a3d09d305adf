/**
 * JWT access-token checks (RFC 7519, RFC 9068): the signature against the issuer's keys
 * (jws.ts, jwks.ts), then issuer, audience and the time claims. Imported on demand by
 * auth.ts, so a server without JWT auth never evaluates it.
 */
import type { AuthConfig } from "../config";
import { localKeySet, remoteKeySet, type KeyResolver } from "./jwks";
import { jsonObject, verifyCompact } from "./jws";

/** The claims the template reads from an access token. */
export interface JwtClaims {
  sub?: string;
  scope?: unknown;
}

/** A NumericDate claim: absent, or a number (seconds since the epoch). */
function numericDate(claims: Record<string, unknown>, name: string): number | undefined {
  const value = claims[name];
  if (value !== undefined && typeof value !== "number") throw new Error(`"${name}" claim must be a number`);
  return value;
}

/** RFC 7519 §4.1: iss and aud must be present and match; nbf and exp, when present, hold now (no leeway). */
export function checkClaims(claims: Record<string, unknown>, issuer: string, audience: string, nowSeconds: number): void {
  for (const name of ["iss", "aud"]) if (!Object.hasOwn(claims, name)) throw new Error(`missing required "${name}" claim`);
  if (claims.iss !== issuer) throw new Error('unexpected "iss" claim value');
  const aud = claims.aud;
  if (!(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) throw new Error('unexpected "aud" claim value');
  numericDate(claims, "iat");
  const nbf = numericDate(claims, "nbf");
  if (nbf !== undefined && nbf > nowSeconds) throw new Error('"nbf" claim timestamp check failed');
  const exp = numericDate(claims, "exp");
  if (exp !== undefined && exp <= nowSeconds) throw new Error('"exp" claim timestamp check failed');
}

export function jwtChecker(cfg: Extract<AuthConfig, { mode: "jwt" }>) {
  const keys: KeyResolver = cfg.jwks ? localKeySet(JSON.parse(cfg.jwks)) : remoteKeySet(new URL(cfg.jwksUrl!));
  return async (token: string, audience: string): Promise<JwtClaims> => {
    const claims = jsonObject(await verifyCompact(token, keys), "JWT Claims Set must be a top-level JSON object");
    checkClaims(claims, cfg.issuer, audience, Math.floor(Date.now() / 1000));
    return claims;
  };
}
