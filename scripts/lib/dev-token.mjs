// Why: a developer needs tokens of different users and scopes to try a scoped app under
// `npm run dev`, and a deployed Worker must never accept them. The key they are signed with lives
// in .wrangler/dev-token-key (git-ignored, made on first use); `npm run dev` hands it to wrangler
// dev as MCP_DEV_TOKEN_KEY, `npm run token` signs with it, and `npm run deploy` refuses a config
// that carries it. The engine checks these tokens only when that var is set
// (src/engine/http/dev-tokens.ts).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SignJWT } from "jose";

/** Every dev token's issuer: its caller is `mcp-dev#<sub>`. */
export const DEV_ISSUER = "mcp-dev";

/** The dev token key of the project at `root`, made the first time it is asked for. */
export function devTokenKey(root) {
  const file = path.join(root, ".wrangler", "dev-token-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString("base64url");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * A dev token: HS256, issuer mcp-dev, subject `sub`, `scope` space-separated, any other claims.
 * @param {string} key
 * @param {{ sub: string, scope?: string, claims?: Record<string, unknown>, ttlSeconds?: number }} o
 */
export function mintDevToken(key, { sub, scope = "", claims = {}, ttlSeconds = 86_400 }) {
  return new SignJWT({ ...claims, ...(scope ? { scope } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(DEV_ISSUER)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(new TextEncoder().encode(key));
}
