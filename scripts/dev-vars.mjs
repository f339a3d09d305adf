// Creates .dev.vars with a random MCP_STATE_SECRET the first time `npm run dev` runs,
// so local MRTR (sealed requestState) works without a built-in default secret.
// Production never reads this file: there the secret comes from `wrangler secret put`.
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? ".";
const file = join(dir, ".dev.vars");
if (!existsSync(file)) {
  writeFileSync(file, `MCP_STATE_SECRET=${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  console.log(`Created ${file} with a random MCP_STATE_SECRET for local development.`);
}
