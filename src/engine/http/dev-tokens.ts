/**
 * Tokens for the dev loop: `npm run token -- --sub alice --scope "notes:read"` (scripts/token.mjs)
 * mints an HS256 JWT signed with a key only `npm run dev` hands the Worker (MCP_DEV_TOKEN_KEY,
 * scripts/dev.mjs). A deployed Worker has no such key (`npm run deploy` refuses one), so there a dev
 * token is just an unknown token. The caller is `mcp-dev#<sub>`, as a JWT's caller is
 * `<issuer>#<sub>`, with the token's scopes and claims. Part of the `jwt` opt-in (jwt-auth.ts): a
 * Worker without it carries none of this.
 */
import { AuthFailure, scopeList, type TokenVerifier } from "./auth";

/** The issuer of every dev token; its callers are `mcp-dev#<sub>`. */
const DEV_TOKEN_ISSUER = "mcp-dev";

/** The `iss` of a JWT, read without checking it: which check the token goes to. */
function issuerOf(token: string): unknown {
  try {
    const part = token.split(".")[1] ?? "";
    return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))).iss;
  } catch {
    return undefined;
  }
}

export function devTokens(key: string, inner: TokenVerifier | undefined, required: string[]): TokenVerifier {
  const secret = new TextEncoder().encode(key);
  return async (token, resource) => {
    if (issuerOf(token) !== DEV_TOKEN_ISSUER) {
      if (inner) return inner(token, resource);
      throw new AuthFailure("invalid_token", "The access token is not valid: under npm run dev, `npm run token` mints one");
    }
    const { verifyHs256 } = await import("./jwt");
    let claims: Record<string, unknown>;
    try {
      claims = await verifyHs256(token, secret, DEV_TOKEN_ISSUER);
    } catch (err) {
      throw new AuthFailure("invalid_token", `The dev token is not valid: ${(err as Error).message}`);
    }
    if (typeof claims.sub !== "string" || claims.sub === "") throw new AuthFailure("invalid_token", "The dev token has no subject");
    const scopes = scopeList(claims.scope, claims.scp);
    const missing = required.filter((s) => !scopes.includes(s));
    if (missing.length > 0) throw new AuthFailure("insufficient_scope", `The token lacks the scope(s): ${missing.join(" ")}`);
    return { id: `${DEV_TOKEN_ISSUER}#${claims.sub}`, scopes, claims };
  };
}
