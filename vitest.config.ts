import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { d1Databases } from "./scripts/d1-migrations.mjs";
import { ENGINE_TEST_FOLDERS } from "./scripts/test-folders.mjs";

/** The migrations/ of every D1 binding in wrangler.toml, applied by test/app-checks/d1-migrations.ts. */
const d1Migrations = Object.fromEntries(
  await Promise.all(
    (await d1Databases(".", "wrangler.toml"))
      .filter((db) => db.files.length > 0)
      .map(async (db) => [db.binding, { table: db.table, migrations: await readD1Migrations(db.dir) }]),
  ),
);

/**
 * Your tests (`npm test`, `npm run test:watch`, `npx vitest run test/<file>`): every `*.test.ts`
 * under test/ outside the engine's own folders, inside workerd with the bindings of your
 * wrangler.toml (KV, D1, R2, queues, vars), so `env` from "cloudflare:test" is your local KV.
 * A D1 binding's migrations/ are applied before each test file (test/app-checks/d1-migrations.ts).
 * test/app-checks/ comes with the template: it checks and serves whatever src/server.ts defines.
 * The engine's own suite has its own config (vitest.engine.config.ts, `npm run test:all`).
 */
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          // The secret that seals 2026-07-28 input rounds; tests get their own, never .dev.vars' or production's.
          MCP_STATE_SECRET: "test-secret-for-vitest-only",
          // The app checks call as a dev token when .dev.vars turns authentication on (test/app-checks/caller.ts).
          MCP_DEV_TOKEN_KEY: "dev-token-key-for-vitest-only",
          TEST_D1_MIGRATIONS: d1Migrations,
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ENGINE_TEST_FOLDERS.map((folder) => `test/${folder}/**`),
    setupFiles: ["./test/app-checks/d1-migrations.ts"],
    retry: 0,
    testTimeout: 30_000,
  },
});
