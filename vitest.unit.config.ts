// The engine's unit tests: pure rules run in Node, without workerd (test/engine/unit/). What needs the
// runtime (Durable Objects, bindings, /mcp) is in test/engine/integration/, run by vitest.engine.config.ts.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The platform module the engine imports its tracer from, as Node has it: no tracer.
  resolve: { alias: { "cloudflare:workers": fileURLToPath(new URL("./test/engine/unit/cloudflare-workers.ts", import.meta.url)) } },
  test: {
    include: ["test/engine/unit/**/*.test.ts"],
    environment: "node",
  },
});
