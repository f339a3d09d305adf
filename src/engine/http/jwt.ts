/**
 * JWT access-token checks with `jose`: signature against the issuer's keys,
 * issuer, audience and expiry. Imported on demand by jwt-auth.ts, so only
 * Workers that opt into JWT auth carry jose, and evaluate it on their first token.
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify } from "jose";
import type { AuthConfig } from "../config";

/** The claims the template reads from an access token. */
export interface JwtClaims {
  sub?: string;
  scope?: unknown;
  /** Okta and Entra ID send scopes as an array here. */
  scp?: unknown;
  client_id?: unknown;
  azp?: unknown;
  [claim: string]: unknown;
}

export function jwtChecker(cfg: Extract<AuthConfig, { mode: "jwt" }>) {
  // The remote key set caches keys and refetches on an unknown key id (rotation).
  const keySet = cfg.jwks ? createLocalJWKSet(JSON.parse(cfg.jwks)) : createRemoteJWKSet(new URL(cfg.jwksUrl!));
  // A token passes when its `aud` (a string or a list) names any one of `audiences`.
  return async (token: string, audiences: string[]): Promise<JwtClaims> =>
    (await jwtVerify(token, keySet, { issuer: cfg.issuer, audience: audiences })).payload;
}

/**
 * A dev token's check (dev-tokens.ts): HS256 with `npm run dev`'s key. Here, beside the other checks,
 * so that jose is imported by name in one module: a dynamic `import("jose")` would bundle all of it.
 */
export const verifyHs256 = async (token: string, secret: Uint8Array, issuer: string): Promise<JwtClaims> =>
  (await jwtVerify(token, secret, { issuer, algorithms: ["HS256"] })).payload as JwtClaims;
