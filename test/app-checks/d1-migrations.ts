/**
 * Setup for your tests (vitest.config.ts `setupFiles`): every D1 binding of wrangler.toml gets its
 * migrations/ applied before a test file runs, so a test reads and writes your tables as
 * `npm run dev` and the deployed Worker have them. Applied migrations are recorded in the
 * database's migrations table, as wrangler does, and skipped the next time.
 */
import { applyD1Migrations, env } from "cloudflare:test";
import type { D1Migration } from "cloudflare:test";

/** What vitest.config.ts read from wrangler.toml and the migrations folders, by binding. */
type MigrationsByBinding = Record<string, { table: string; migrations: D1Migration[] }>;

const bindings = env as unknown as Record<string, D1Database> & { TEST_D1_MIGRATIONS?: MigrationsByBinding };
for (const [binding, { table, migrations }] of Object.entries(bindings.TEST_D1_MIGRATIONS ?? {})) {
  const db = bindings[binding];
  if (db) await applyD1Migrations(db, migrations, table);
}
