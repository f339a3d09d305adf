// Why: a first deploy of a fork fails, or worse goes out broken, for reasons a script can see
// beforehand: not logged in, the template's Worker name or rate-limit ids, no MCP_STATE_SECRET, a D1
// database that does not exist yet or whose tables were never created. `npm run deploy`
// (scripts/deploy.mjs) gathers what it can learn from wrangler and this judges it, so that every
// missing step is named at once with the exact command that does it.

/** What the template ships with: a fork deploys under its own name and ids. */
export const TEMPLATE_NAMES = new Set(["mcp-worker-template", "mcp-worker-template-oauth"]);
export const TEMPLATE_NAMESPACE_IDS = new Set(["1001", "1002"]);
export const SECRET = "MCP_STATE_SECRET";

/**
 * @typedef {{ binding: string, name?: string, id?: string, files: string[] }} D1
 * @typedef {{
 *   configFile: string,
 *   config: { name?: string, ratelimits?: { name: string, namespace_id: string | number }[],
 *             kv_namespaces?: { binding: string, id?: string }[], r2_buckets?: { binding: string, bucket_name?: string }[] },
 *   d1: D1[],
 *   loggedIn: boolean | undefined,
 *   secrets?: string[] | "no-worker",
 *   remote?: { d1?: { name: string, uuid: string }[], kv?: { id: string }[], r2?: string[] },
 *   randomId: () => number,
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
  if (f.loggedIn === false) problems.push({ problem: "wrangler is not logged in to a Cloudflare account.", fix: "npx wrangler login        (or set CLOUDFLARE_API_TOKEN)" });
  if (!config.name || TEMPLATE_NAMES.has(config.name))
    problems.push({ problem: `${configFile} still names the Worker "${config.name ?? ""}", the template's name.`, fix: `In ${configFile} set your Worker's name, e.g.  name = "my-mcp-server"   (its URL is https://<name>.<your subdomain>.workers.dev/mcp)` });
  const shared = (config.ratelimits ?? []).filter((r) => TEMPLATE_NAMESPACE_IDS.has(String(r.namespace_id)));
  if (shared.length)
    problems.push({
      problem: `${configFile} still has the template's rate-limit namespace ids (${shared.map((r) => `${r.name} = ${r.namespace_id}`).join(", ")}); each must be unique in your account, or every Worker using it shares its counters.`,
      fix: `In ${configFile} pick your own, e.g. these random ones: ${shared.map((r) => `${r.name}: namespace_id = "${f.randomId()}"`).join(", ")}`,
    });
  if (f.secrets === "no-worker" || (Array.isArray(f.secrets) && !f.secrets.includes(SECRET)))
    problems.push({ problem: `The Worker has no ${SECRET}: 2026-07-28 tools that ask the user for input would fail.`, fix: `openssl rand -hex 32 | npx wrangler secret put ${SECRET} --config ${configFile}` });

  for (const db of f.d1) {
    const name = db.name ?? db.binding.toLowerCase();
    const create = `npx wrangler d1 create ${name}   then put the database_id it prints in ${configFile}'s [[d1_databases]] binding = "${db.binding}"`;
    if (!db.id) problems.push({ problem: `D1 ${db.binding} has no database_id.`, fix: create });
    else if (f.remote?.d1 && !f.remote.d1.some((r) => r.uuid === db.id)) problems.push({ problem: `D1 ${db.binding}: your account has no database ${db.id}.`, fix: create });
  }
  for (const kv of config.kv_namespaces ?? []) {
    if (kv.id && f.remote?.kv && !f.remote.kv.some((r) => r.id === kv.id))
      problems.push({ problem: `KV ${kv.binding}: your account has no namespace ${kv.id}.`, fix: `npx wrangler kv namespace create ${kv.binding}   then put the id it prints in ${configFile}'s [[kv_namespaces]] binding = "${kv.binding}"` });
  }
  for (const r2 of config.r2_buckets ?? []) {
    if (r2.bucket_name && f.remote?.r2 && !f.remote.r2.includes(r2.bucket_name))
      problems.push({ problem: `R2 ${r2.binding}: your account has no bucket ${r2.bucket_name}.`, fix: `npx wrangler r2 bucket create ${r2.bucket_name}` });
  }
  return problems;
}

/** What `wrangler deploy` creates by itself: KV and R2 bindings declared without an id or bucket. */
export function provisioned(config) {
  return [
    ...(config.kv_namespaces ?? []).filter((kv) => !kv.id).map((kv) => `KV namespace for ${kv.binding}`),
    ...(config.r2_buckets ?? []).filter((r2) => !r2.bucket_name).map((r2) => `R2 bucket for ${r2.binding}`),
  ];
}
