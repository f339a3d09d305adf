import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The engine's own integration tests (`npm run test:all`; one file: `npx vitest run -c
// vitest.engine.config.ts test/engine/integration/<file>`). They run inside workerd against the engine
// test app's wrangler config, so they exercise the same bindings, Durable Objects and flags as
// `wrangler dev`, and never the example app a fork replaces.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./test/engine/app/wrangler.toml" },
      // The engine app's entry and the classes only the tests bind (MCP_SESSION_SCOPED, MCP_TASK_SCOPED… below).
      main: "./test/engine/app/vitest-index.ts",
      // OAUTH_KV: the opt-in OAuth entry (src/engine/oauth/) keeps its clients, grants and tokens there.
      miniflare: {
        bindings: { MCP_STATE_SECRET: "test-secret-for-vitest-only" },
        kvNamespaces: ["OAUTH_KV"],
        // The mount fixture app's upstream: the engine test app itself, through a service binding.
        serviceBindings: { MOUNT_UPSTREAM: "mcp-engine-test-app" },
        // Code Mode's sandboxes (test/engine/code-mode/): Dynamic Workers from a Worker Loader.
        workerLoaders: { LOADER: {} },
        durableObjects: {
          MCP_SESSION_SCOPED: { className: "ScopedSession", useSQLite: true },
          MCP_TASK_SCOPED: { className: "ScopedTask", useSQLite: true },
          // The OAuth entry's single-use marks (src/engine/oauth/once.ts).
          OAUTH_ONCE: { className: "OAuthOnce", useSQLite: true },
          // The events test app's (test/engine/app/events-app.ts).
          MCP_EVENTS: { className: "EventsObject", useSQLite: true },
          // The user-state fixture app's (user-state-app.ts): its sessions, tasks and each principal's state.
          MCP_SESSION_USER: { className: "UserStateSession", useSQLite: true },
          MCP_TASK_USER: { className: "UserStateTask", useSQLite: true },
          MCP_USER: { className: "McpUser", useSQLite: true },
          // The result-budget fixture app's sessions, tasks and kept results (results-app.ts).
          MCP_SESSION_RESULTS: { className: "ResultsSession", useSQLite: true },
          MCP_TASK_RESULTS: { className: "ResultsTask", useSQLite: true },
          // The mount fixture app's sessions (mount-app.ts).
          MCP_SESSION_MOUNT: { className: "MountSession", useSQLite: true },
          // The Code Mode fixture app's sessions (test/engine/code-mode/app.ts).
          MCP_SESSION_CODE: { className: "CodeModeSession", useSQLite: true },
          // The tool-search fixture app's sessions (surface-app.ts).
          MCP_SESSION_SURFACE: { className: "SurfaceSession", useSQLite: true },
        },
      },
    }),
  ],
  test: {
    include: ["test/engine/integration/**/*.test.ts"],
    retry: 0,
    // A hang guard, not a speed check: the 300-run fuzz properties and the cap tests take seconds on a
    // loaded 2-core machine, and vitest's 5 s default would fail them for the machine's load.
    testTimeout: 30_000,
  },
});
