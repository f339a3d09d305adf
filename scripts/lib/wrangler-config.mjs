// Why: `npm run dev` and `npm run deploy` check, migrate and judge a wrangler config before handing
// their arguments to wrangler, and they must judge the one wrangler will use: the file named by
// `--config`/`--config=`/`-c` (TOML, JSON or JSONC), else the one wrangler finds itself
// (wrangler.json, wrangler.jsonc, then wrangler.toml), with `--env`/`-e`'s environment applied
// (an environment's D1, KV and R2 bindings are its own, not the top level's). Both scripts read it
// here, through wrangler's own reader, so neither can drift from what wrangler deploys.
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The value of a flag given as `--flag value` or `--flag=value`, under any of its names.
 * @param {string[]} argv
 * @param {...string} names e.g. "--config", "-c"
 */
export function flagValue(argv, ...names) {
  for (let i = 0; i < argv.length; i++) {
    for (const name of names) {
      if (argv[i] === name && i + 1 < argv.length) return argv[i + 1];
      if (argv[i].startsWith(`${name}=`)) return argv[i].slice(name.length + 1);
    }
  }
  return undefined;
}

/** The config files wrangler looks for when none is named, in its order. */
const DEFAULT_CONFIGS = ["wrangler.json", "wrangler.jsonc", "wrangler.toml"];

/**
 * @typedef {{ configFile: string, env?: string }} Target  the config file (relative to the project) and environment
 */

/**
 * Which config and environment a wrangler command given `argv` uses.
 * @param {string} root the project folder (where wrangler runs)
 * @param {string[]} argv the arguments passed on to wrangler
 * @returns {Target}
 */
export function wranglerTarget(root, argv) {
  const named = flagValue(argv, "--config", "-c");
  const configFile = named ?? DEFAULT_CONFIGS.find((f) => existsSync(path.join(root, f))) ?? "wrangler.toml";
  const env = flagValue(argv, "--env", "-e") || undefined;
  return env ? { configFile, env } : { configFile };
}

/** The flags that point another wrangler command (migrations, secrets) at the same config and environment. */
export const targetFlags = (target) => ["--config", target.configFile, ...(target.env ? ["--env", target.env] : [])];

/** How a message names the target: "wrangler.toml", or "wrangler.toml (env staging)". */
export const targetName = (target) => (target.env ? `${target.configFile} (env ${target.env})` : target.configFile);

/**
 * The config as wrangler reads it for this target: environment applied, validated, any format.
 * Importing wrangler costs about 2 s.
 * @param {string} root
 * @param {Target} target
 */
export async function readWranglerConfig(root, target) {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: path.resolve(root, target.configFile), env: target.env }, { hideWarnings: true });
}
