// Why: every `wrangler dev` row goes through wrangler's own proxy, which caps requests/s on this
// machine (the bare floor reaches only about 1.4× the peers). These servers run each built Worker
// straight from workerd with Miniflare's API (wrangler's own copy, so no dependency of ours): the
// bundle `wrangler deploy --dry-run` emits, with the bindings its wrangler.toml declares (Durable
// Objects, rate limits, vars) as wrangler itself converts them, on 127.0.0.1 and a free port.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { workerdChildren } from "./procstat.mjs";
import { build, loadMiniflare } from "./startup.mjs";

/**
 * The engine as the template's defaults serve it. Rate limits and Static Assets unbound, as the
 * direct phase serves it (Miniflare simulates both inside the measured workerd, where on Cloudflare
 * the platform runs them). No Analytics Engine dataset: the template's wrangler.toml leaves
 * MCP_METRICS commented out and the floors write the log line alone, while the engine test app
 * binds it for its tests (a point a call, about 4% of this call's CPU here).
 */
export const AT_DEFAULTS = { ratelimits: {}, assets: undefined, analyticsEngineDatasets: {} };

function wranglerApi() {
  return createRequire(path.join(ROOT, "package.json"))("wrangler");
}

/**
 * Builds `config` into `outdir` (unless `prebuilt`, a build() of it as configured, is given) and
 * serves the bundle with Miniflare. `vars` replace some of the
 * config's vars; other overrides replace Miniflare options (`ratelimits: {}` unbinds the rate
 * limits). Returns { url, origin, pids (the workerd serving it), stop }.
 * @param {string} config
 * @param {string} outdir
 * @param {{ vars?: Record<string, string>, [option: string]: any }} [options]
 * @param {any} [prebuilt]
 */
export async function startDirect(config, outdir, { vars = {}, ...overrides } = {}, prebuilt) {
  const abs = path.join(ROOT, config);
  const built = prebuilt ?? (await build(abs, outdir));
  const { Miniflare, convertV4MiniflareOptions } = loadMiniflare();
  const { workerOptions } = wranglerApi().unstable_getMiniflareWorkerOptions(abs);
  const options = {
    ...workerOptions,
    name: "bench-direct",
    rootPath: undefined,
    modulesRules: undefined,
    modulesRoot: built.dir,
    // The main module first: it is the Worker's entry.
    modules: [built.main, ...built.files.filter((f) => f !== built.main)].map((f) => ({ type: "ESModule", path: path.join(built.dir, f) })),
    bindings: { ...workerOptions.bindings, MCP_STATE_SECRET: randomBytes(32).toString("hex"), ...vars },
    port: 0,
    host: "127.0.0.1",
    handleStructuredLogs: () => {},
    ...overrides,
  };
  const before = new Set(workerdChildren());
  const mf = new Miniflare(convertV4MiniflareOptions ? convertV4MiniflareOptions(options) : options);
  const url = await mf.ready;
  const pids = workerdChildren().filter((p) => !before.has(p));
  return {
    origin: url.origin,
    url: new URL("/mcp", url).href,
    pids,
    mf,
    stop: () => mf.dispose(),
  };
}
