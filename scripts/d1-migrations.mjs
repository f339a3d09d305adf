// Why: a fork's D1 tables come from its migrations/ folder, and a table that was never created shows
// up only as "no such table" in the server log behind an "internal error". The same list of D1
// bindings (read from the wrangler config, as wrangler reads it) drives every place they must be
// applied: locally before `npm run dev` (scripts/dev.mjs), in the fork's tests (vitest.config.ts and
// test/setup/d1-migrations.ts) and remotely before `npm run deploy` sends the Worker out
// (scripts/deploy.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** A config declares D1 bindings only if it has a [[d1_databases]] table (of its own or an env's). */
const DECLARES_D1 = /^\s*\[\[\s*(?:env\.[\w-]+\.)?d1_databases\s*\]\]/m;

/**
 * The D1 bindings of a wrangler config: binding, database name and id, and the migrations folder
 * (`migrations_dir`, "migrations" beside the config by default) with its .sql files, if any.
 * @returns {Promise<{binding: string, name?: string, id?: string, table: string, dir: string, files: string[]}[]>}
 */
export async function d1Databases(root, configFile = "wrangler.toml") {
  const file = path.resolve(root, configFile);
  // Reading a config through wrangler costs about 2 s: only a config with D1 pays it.
  if (!DECLARES_D1.test(readFileSync(file, "utf8"))) return [];
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: file }, { hideWarnings: true });
  return (config.d1_databases ?? []).map((d) => {
    const dir = path.resolve(path.dirname(file), d.migrations_dir ?? "migrations");
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sql")).sort() : [];
    return { binding: d.binding, name: d.database_name, id: d.database_id, table: d.migrations_table ?? "d1_migrations", dir, files };
  });
}

/** The command that applies a binding's migrations, locally or to the deployed database. */
export const migrationsCommand = (binding, configFile, where) => ["wrangler", "d1", "migrations", "apply", binding, where, "--config", configFile];

/**
 * Applies every D1 binding's migrations to the local state `wrangler dev` uses (`--persist-to`
 * when it is given one). Returns false, after wrangler said why, if one of them failed.
 */
export async function applyLocalMigrations(root, configFile, persistTo) {
  for (const db of await d1Databases(root, configFile)) {
    if (!db.files.length) continue;
    const [cmd, ...args] = migrationsCommand(db.binding, configFile, "--local");
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
