// The engine's unit tests: pure rules run in Node, without workerd (test/unit/). What needs the
// runtime (Durable Objects, bindings, /mcp) is in test/integration/, run by vitest.engine.config.ts.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
  },
});
