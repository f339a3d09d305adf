// Creates .dev.vars with a random MCP_STATE_SECRET the first time `npm run dev` runs,
// so local MRTR (sealed requestState) works without a built-in default secret.
// Production never reads this file: there the secret comes from `wrangler secret put`.
//
//   node scripts/dev-vars.mjs [dir]     (scripts/dev.mjs calls ensureDevVars for its config's folder)
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export function ensureDevVars(dir = ".") {
  const file = join(dir, ".dev.vars");
  if (existsSync(file)) return;
  writeFileSync(file, `MCP_STATE_SECRET=${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  console.log(`Created ${file} with a random MCP_STATE_SECRET for local development.`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureDevVars(process.argv[2]);
