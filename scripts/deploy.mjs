// Why: `npm run deploy` is `wrangler deploy` behind the checks a first deploy of a fork fails
// without, each of which would otherwise show up only in production:
//   1. the app's definitions (scripts/check-app.mjs): a mistake there fails every request;
//   2. rate-limit namespace ids still the template's: every fork deployed to one account with
//      them would count against the same limits;
//   3. MCP_STATE_SECRET set on the Worker (asked of wrangler): without it every 2026-07-28 input
//      round fails. When wrangler cannot say (not logged in, offline), a loud warning instead.
// 2 and 3 are skipped for `--dry-run`, which uploads nothing. Every argument goes on to wrangler:
//
//   npm run deploy [-- <wrangler deploy flags>]      e.g. npm run deploy -- --dry-run --outdir dist
import { randomInt } from "node:crypto";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkAppDefinitions } from "./check-app.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The ids the template ships with, in wrangler.toml and wrangler.oauth.toml. */
export const TEMPLATE_NAMESPACE_IDS = new Set(["1001", "1002"]);
const SECRET = "MCP_STATE_SECRET";

const args = process.argv.slice(2);
const configAt = args.indexOf("--config");
const configFile = configAt >= 0 ? args[configAt + 1] : "wrangler.toml";
const dryRun = args.includes("--dry-run");

const refuse = (lines) => {
  console.error(`\nnpm run deploy: not deployed.\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
  process.exit(1);
};

const app = await checkAppDefinitions(ROOT);
if (app.loaded && app.problems.length) refuse([`src/server.ts has definition mistakes (every request would fail):`, ...app.problems.map((p) => `✗ ${p}`)]);
if (!app.loaded) console.warn(`app check: skipped in Node (${app.why}); \`npm test\` checks the app inside workerd`);

if (!dryRun) {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: path.resolve(ROOT, configFile) });
  const shared = (config.ratelimits ?? []).filter((r) => TEMPLATE_NAMESPACE_IDS.has(String(r.namespace_id)));
  if (shared.length) {
    refuse([
      `${configFile} still has the template's rate-limit namespace ids (${shared.map((r) => `${r.name} = ${r.namespace_id}`).join(", ")}).`,
      "Each namespace_id must be unique in your Cloudflare account, or every Worker that uses it shares its counters.",
      `Pick your own, e.g. these random ones: ${shared.map((r) => `${r.name}: namespace_id = "${randomInt(100_000, 2_000_000_000)}"`).join(", ")}`,
    ]);
  }

  const listed = spawnSync("wrangler", ["secret", "list", "--format", "json", "--config", configFile], { cwd: ROOT, encoding: "utf8" });
  let names;
  try {
    names = listed.status === 0 ? JSON.parse(listed.stdout).map((s) => s.name) : undefined;
  } catch {
    names = undefined;
  }
  if (names && !names.includes(SECRET)) {
    refuse([`The Worker has no ${SECRET}: 2026-07-28 tools that ask the user for input would fail.`, `Set it first:  npx wrangler secret put ${SECRET}   (a long random value, e.g. from: openssl rand -hex 32)`]);
  }
  if (!names) {
    console.warn(
      [
        "",
        "!!! Could not ask wrangler whether the Worker has MCP_STATE_SECRET (not logged in, offline, or the Worker",
        "!!! does not exist yet). If it is not set, 2026-07-28 input rounds fail. Before the first deploy run:",
        `!!!   npx wrangler login && npx wrangler secret put ${SECRET}`,
        "",
      ].join("\n"),
    );
  }
}

const deploy = spawnSync("wrangler", ["deploy", ...args], { cwd: ROOT, stdio: "inherit" });
process.exit(deploy.status ?? 1);
