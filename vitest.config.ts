import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Integration tests run inside workerd against the engine test app's wrangler config, so they
// exercise the same bindings, Durable Objects and flags as `wrangler dev`.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./test/engine-app/wrangler.toml" },
      // OAUTH_KV: the opt-in OAuth entry (src/oauth/) keeps its clients, grants and tokens there.
      miniflare: { bindings: { MCP_STATE_SECRET: "test-secret-for-vitest-only" }, kvNamespaces: ["OAUTH_KV"] },
    }),
  ],
  test: {
    // The engine's tests, and the app's own tests (test/server.test.ts, in-process through testClient).
    include: ["test/integration/**/*.test.ts", "test/server.test.ts"],
    retry: 0,
    // A hang guard, not a speed check: the 300-run fuzz properties and the cap tests take seconds on a
    // loaded 2-core machine, and vitest's 5 s default would fail them for the machine's load.
    testTimeout: 30_000,
  },
});
