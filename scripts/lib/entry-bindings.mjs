// Why: the OAuth entry (wrangler.oauth.toml) serves the same app as wrangler.toml, so it needs the
// same bindings: a fork that adds a D1 database, an R2 bucket or a rate limit to wrangler.toml and
// not to the OAuth config gets tools that fail with an internal error there. `npm run dev:oauth` and
// `npm run deploy:oauth` compare the two as wrangler reads them and name each binding the entry
// lacks, with the block to copy; the entry's own additions (OAUTH_KV, its vars) are not asked of
// wrangler.toml.

/** Each kind of binding a Worker's code reads by name: the config key, and the field naming it. */
const KINDS = [
  ["d1_databases", "binding"],
  ["r2_buckets", "binding"],
  ["kv_namespaces", "binding"],
  ["ratelimits", "name"],
  ["services", "binding"],
  ["analytics_engine_datasets", "binding"],
  ["vectorize", "binding"],
  ["hyperdrive", "binding"],
  ["workflows", "binding"],
  ["queues.producers", "binding"],
  ["durable_objects.bindings", "name"],
];

/** Settings that belong to one entry: the default entry's auth (the OAuth entry authenticates itself). */
const ENTRY_OWN_VARS = /^(AUTH_|MCP_AUTH_TOKEN$|OAUTH_)/;

const at = (config, key) => key.split(".").reduce((o, k) => o?.[k], config) ?? [];

/**
 * The bindings and vars `base` (wrangler.toml as wrangler reads it) has that `entry` (the OAuth
 * config) lacks, each as a line naming it and where to copy it from.
 * @returns {string[]}
 */
export function missingBindings(base, entry, baseFile = "wrangler.toml", entryFile = "wrangler.oauth.toml") {
  const out = [];
  for (const [key, field] of KINDS) {
    const have = new Set(at(entry, key).map((b) => b[field]));
    for (const b of at(base, key))
      if (!have.has(b[field])) out.push(`[[${key}]] ${field} = "${b[field]}": in ${baseFile}, not in ${entryFile}; copy its block there`);
  }
  for (const [k, v] of Object.entries(base.vars ?? {}))
    if (!ENTRY_OWN_VARS.test(k) && !(k in (entry.vars ?? {})))
      out.push(`[vars] ${k} = ${JSON.stringify(v)}: in ${baseFile}, not in ${entryFile}; copy it there`);
  return out;
}
