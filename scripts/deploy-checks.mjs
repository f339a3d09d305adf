// Why: a first deploy of a fork fails, or worse goes out broken, for reasons a script can see
// beforehand: not logged in, the template's Worker name or rate-limit ids, no MCP_STATE_SECRET, a D1
// database that does not exist yet or whose tables were never created. `npm run deploy`
// (scripts/deploy.mjs) gathers what it can learn from wrangler and this judges it, so that every
// missing step is named at once with the exact command that does it.

import { engineSetupProblems } from "./lib/engine-setup.mjs";

/** What the template ships with: a fork deploys under its own name and ids. */
export const TEMPLATE_NAMES = new Set(["mcp-worker-template", "mcp-worker-template-oauth"]);
export const TEMPLATE_NAMESPACE_IDS = new Set(["1001", "1002"]);
export const SECRET = "MCP_STATE_SECRET";
/** The dev-only token key `npm run dev` hands wrangler dev (scripts/dev-token.mjs); a deployed Worker never has it. */
export const DEV_TOKEN_KEY = "MCP_DEV_TOKEN_KEY";
/** Settings that turn on a dev-only behaviour: a Worker that carries one is not deployed. */
const DEV_ONLY = [DEV_TOKEN_KEY, "MCP_DEV"];

/** Whether this config is the opt-in OAuth entry, which authenticates every /mcp request itself. */
export const isOAuthEntry = (config) =>
  /(^|[\\/])(engine[\\/]oauth[\\/]index|oauth)\.ts$/.test(config.main ?? "") ||
  (config.kv_namespaces ?? []).some((kv) => kv.binding === "OAUTH_KV");

/**
 * Whether requests will be authenticated: AUTH_MODE token or jwt in the config's vars (or AUTH_MODE
 * set as a secret, whose value cannot be read), or the OAuth entry.
 */
export function authConfigured(config, secrets) {
  if (isOAuthEntry(config)) return true;
  const mode = String(config.vars?.AUTH_MODE ?? "")
    .trim()
    .toLowerCase();
  if (mode === "token" || mode === "jwt") return true;
  if (Array.isArray(secrets) && secrets.includes("AUTH_MODE")) return true;
  return false;
}

/**
 * @typedef {{ binding: string, name?: string, id?: string, files: string[] }} D1
 * @typedef {{
 *   configFile: string,
 *   env?: string,
 *   config: { name?: string, main?: string, vars?: Record<string, unknown>, ratelimits?: { name: string, namespace_id: string | number }[],
 *             compatibility_flags?: string[], durable_objects?: { bindings?: { name?: string, class_name?: string }[] },
 *             kv_namespaces?: { binding: string, id?: string }[], r2_buckets?: { binding: string, bucket_name?: string }[] },
 *   d1: D1[],
 *   loggedIn: boolean | undefined,
 *   secrets?: string[] | "no-worker",
 *   remote?: { d1?: { name: string, uuid: string }[], kv?: { id: string }[], r2?: string[] },
 *   randomId: () => number,
 *   app?: { scoped: boolean, allowUnauthenticated: boolean },
 *   features?: Record<string, boolean>,
 *   mountRefusals?: string[],
 * }} Facts  what is known; a fact left undefined could not be learned (offline), and is not judged.
 */

/**
 * The preconditions not met, each with the command (or edit) that meets it.
 * @param {Facts} f
 * @returns {{ problem: string, fix: string }[]}
 */
export function deployProblems(f) {
  const problems = [];
  const { config, configFile } = f;
  if (f.loggedIn === false)
    problems.push({
      problem: "wrangler is not logged in to a Cloudflare account.",
      fix: "npx wrangler login        (or set CLOUDFLARE_API_TOKEN)",
    });
  const templateName = (n) => TEMPLATE_NAMES.has(n) || (!!f.env && [...TEMPLATE_NAMES].some((t) => n === `${t}-${f.env}`));
  if (!config.name || templateName(config.name))
    problems.push({
      problem: `${configFile} still names the Worker "${config.name ?? ""}", the template's name.`,
      fix: `In ${configFile} set your Worker's name, e.g.  name = "my-mcp-server"   (its URL is https://<name>.<your subdomain>.workers.dev/mcp)`,
    });
  const shared = (config.ratelimits ?? []).filter((r) => TEMPLATE_NAMESPACE_IDS.has(String(r.namespace_id)));
  if (shared.length)
    problems.push({
      problem: `${configFile} still has the template's rate-limit namespace ids (${shared.map((r) => `${r.name} = ${r.namespace_id}`).join(", ")}); each must be unique in your account, or every Worker using it shares its counters.`,
      fix: `In ${configFile} pick your own, e.g. these random ones: ${shared.map((r) => `${r.name}: namespace_id = "${f.randomId()}"`).join(", ")}`,
    });
  if (f.secrets === "no-worker" || (Array.isArray(f.secrets) && !f.secrets.includes(SECRET)))
    problems.push({
      problem: `The Worker has no ${SECRET}: 2026-07-28 tools that ask the user for input would fail.`,
      fix: `openssl rand -hex 32 | npx wrangler secret put ${SECRET} --config ${configFile}${f.env ? ` --env ${f.env}` : ""}`,
    });

  if (f.app?.scoped && !f.app.allowUnauthenticated && !authConfigured(config, f.secrets))
    problems.push({
      problem: `src/server.ts declares scopes, but ${configFile} turns on no authentication (AUTH_MODE is "${config.vars?.AUTH_MODE ?? "none"}"): no caller could be given a scoped operation.`,
      fix: `Set AUTH_MODE = "jwt" (with AUTH_ISSUER and AUTH_JWKS_URL) or "token" in ${configFile}'s [vars] (docs/security.md), deploy the OAuth entry (npm run deploy:oauth), or, to serve every scope to anyone, defineAuthorization({ ..., allowUnauthenticated: true }) in src/server.ts`,
    });
  const devOnly = DEV_ONLY.filter((v) => config.vars?.[v] !== undefined || (Array.isArray(f.secrets) && f.secrets.includes(v)));
  if (devOnly.length)
    problems.push({
      problem: `${devOnly.join(" and ")} ${devOnly.length === 1 ? "is a" : "are"} development-only setting${devOnly.length === 1 ? "" : "s"} (npm run dev passes ${devOnly.length === 1 ? "it" : "them"} to wrangler dev): a deployed Worker with ${DEV_TOKEN_KEY} would accept tokens anyone with the key can mint.`,
      fix: devOnly
        .map((v) =>
          config.vars?.[v] !== undefined
            ? `remove ${v} from ${configFile}'s [vars]`
            : `npx wrangler secret delete ${v} --config ${configFile}`,
        )
        .join("; "),
    });

  for (const db of f.d1) {
    const name = db.name ?? db.binding.toLowerCase();
    const create = `npx wrangler d1 create ${name}   then put the database_id it prints in ${configFile}'s [[d1_databases]] binding = "${db.binding}"`;
    if (!db.id) problems.push({ problem: `D1 ${db.binding} has no database_id.`, fix: create });
    else if (f.remote?.d1 && !f.remote.d1.some((r) => r.uuid === db.id))
      problems.push({ problem: `D1 ${db.binding}: your account has no database ${db.id}.`, fix: create });
  }
  for (const kv of config.kv_namespaces ?? []) {
    if (kv.id && f.remote?.kv && !f.remote.kv.some((r) => r.id === kv.id))
      problems.push({
        problem: `KV ${kv.binding}: your account has no namespace ${kv.id}.`,
        fix: `npx wrangler kv namespace create ${kv.binding}   then put the id it prints in ${configFile}'s [[kv_namespaces]] binding = "${kv.binding}"`,
      });
  }
  for (const r2 of config.r2_buckets ?? []) {
    if (r2.bucket_name && f.remote?.r2 && !f.remote.r2.includes(r2.bucket_name))
      problems.push({
        problem: `R2 ${r2.binding}: your account has no bucket ${r2.bucket_name}.`,
        fix: `npx wrangler r2 bucket create ${r2.bucket_name}`,
      });
  }
  // A mount whose URL the deployed Worker refuses works under npm run dev (MCP_DEV=on) and nowhere else.
  for (const refusal of f.mountRefusals ?? [])
    problems.push({
      problem: `${refusal} A deployed Worker refuses it, so the mount's tools would fail.`,
      fix: "Mount it by an https URL of a public host, or by a service binding (url: (env) => env.BINDING); plain http and local addresses work under npm run dev only (docs/mount.md)",
    });
  // A feature's object and the engine's flags live in the fork's config, where no upgrade reaches.
  const setup = engineSetupProblems(f.features, config, configFile);
  problems.push(...setup.bindings, ...setup.flags);
  return problems;
}

/**
 * What a dry run (or an offline deploy) could not learn, and so did not judge: said, so that a clean
 * dry run is not taken for a clean deploy.
 * @param {Facts} f
 * @returns {string[]}
 */
export function unchecked(f) {
  const out = [];
  if (f.loggedIn === undefined) out.push("whether wrangler is logged in (npx wrangler whoami)");
  if (f.secrets === undefined) out.push(`whether the Worker has its ${SECRET} secret (npx wrangler secret list)`);
  if (f.app === undefined) out.push("the app's definitions and scopes (src/server.ts did not load in Node; npm test checks it in workerd)");
  for (const db of f.d1)
    if (db.id && !f.remote?.d1)
      out.push(`whether D1 database ${db.id} (${db.binding}) exists in your account, and which migrations it has`);
  for (const kv of f.config.kv_namespaces ?? [])
    if (kv.id && !f.remote?.kv) out.push(`whether KV namespace ${kv.id} (${kv.binding}) exists in your account`);
  for (const r2 of f.config.r2_buckets ?? [])
    if (r2.bucket_name && !f.remote?.r2) out.push(`whether R2 bucket ${r2.bucket_name} (${r2.binding}) exists in your account`);
  return out;
}

/** What `wrangler deploy` creates by itself: KV and R2 bindings declared without an id or bucket. */
export function provisioned(config) {
  return [
    ...(config.kv_namespaces ?? []).filter((kv) => !kv.id).map((kv) => `KV namespace for ${kv.binding}`),
    ...(config.r2_buckets ?? []).filter((r2) => !r2.bucket_name).map((r2) => `R2 bucket for ${r2.binding}`),
  ];
}
