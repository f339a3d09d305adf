// Why: a fork's D1 tables come from its migrations/ folder, and a table that was never created shows
// up only as "no such table" in the server log behind an "internal error". The same list of D1
// bindings (read from the wrangler config, as wrangler reads it) drives every place they must be
// applied: locally before `npm run dev` (scripts/dev.mjs), in the fork's tests (vitest.config.ts and
// test/setup/d1-migrations.ts) and remotely before `npm run deploy` sends the Worker out
// (scripts/deploy.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readWranglerConfig, targetFlags } from "./lib/wrangler-config.mjs";

/**
 * A config can declare D1 bindings only if it names d1_databases somewhere (at the top level or in
 * an environment, in TOML or JSON): reading a config through wrangler costs about 2 s, and only such
 * a config pays it.
 */
const MENTIONS_D1 = /d1_databases/;

/**
 * The D1 bindings of a wrangler config, as wrangler reads it for the target (its environment's own
 * when `env` is set): binding, database name and id, and the migrations folder (`migrations_dir`,
 * "migrations" beside the config by default) with its .sql files, if any.
 * @param {string} root
 * @param {import("./lib/wrangler-config.mjs").Target | string} target a Target, or a config file (no environment)
 * @param {{ d1_databases?: object[] }} [config] the config already read for this target, if it was
 * @returns {Promise<{binding: string, name?: string, id?: string, table: string, dir: string, files: string[]}[]>}
 */
export async function d1Databases(root, target = "wrangler.toml", config) {
  const t = typeof target === "string" ? { configFile: target } : target;
  const file = path.resolve(root, t.configFile);
  if (!config && !MENTIONS_D1.test(readFileSync(file, "utf8"))) return [];
  const read = config ?? (await readWranglerConfig(root, t));
  return (read.d1_databases ?? []).map((d) => {
    const dir = path.resolve(path.dirname(file), d.migrations_dir ?? "migrations");
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith(".sql"))
          .sort()
      : [];
    return { binding: d.binding, name: d.database_name, id: d.database_id, table: d.migrations_table ?? "d1_migrations", dir, files };
  });
}

/** The command that applies a binding's migrations, locally or to the deployed database, for the same config and environment. */
export const migrationsCommand = (binding, target, where) => [
  "wrangler",
  "d1",
  "migrations",
  "apply",
  binding,
  where,
  ...targetFlags(target),
];

/**
 * Applies every D1 binding's migrations to the local state `wrangler dev` uses (`--persist-to`
 * when it is given one). Returns false, after wrangler said why, if one of them failed.
 * @param {string} root
 * @param {import("./lib/wrangler-config.mjs").Target} target
 * @param {string} [persistTo]
 */
export async function applyLocalMigrations(root, target, persistTo) {
  for (const db of await d1Databases(root, target)) {
    if (!db.files.length) continue;
    const [cmd, ...args] = migrationsCommand(db.binding, target, "--local");
    if (persistTo) args.push("--persist-to", persistTo);
    console.log(`D1 ${db.binding}: applying ${path.relative(root, db.dir) || "."}/ locally (${cmd} ${args.join(" ")})`);
    // stdin not a TTY: wrangler applies without asking, as it does in CI.
    const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) {
      console.error(`\nD1 ${db.binding}: the local migrations failed (above); fix the .sql file and start again.\n`);
      return false;
    }
  }
  return true;
}
