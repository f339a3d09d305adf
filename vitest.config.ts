import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { ENGINE_TEST_FOLDERS } from "./scripts/test-folders.mjs";

/**
 * Your tests (`npm test`, `npm run test:watch`, `npx vitest run test/<file>`): every `*.test.ts`
 * under test/ outside the engine's own folders, inside workerd with the bindings of your
 * wrangler.toml (KV, D1, R2, queues, vars), so `env` from "cloudflare:test" is your local KV.
 * test/app-checks/ comes with the template: it checks and serves whatever src/server.ts defines.
 * The engine's own suite has its own config (vitest.engine.config.ts, `npm run test:all`).
 */
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // The secret that seals 2026-07-28 input rounds; tests get their own, never .dev.vars' or production's.
      miniflare: { bindings: { MCP_STATE_SECRET: "test-secret-for-vitest-only" } },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ENGINE_TEST_FOLDERS.map((folder) => `test/${folder}/**`),
    retry: 0,
    testTimeout: 30_000,
  },
});
