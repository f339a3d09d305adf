/**
 * Bench-only: a gateway that serves the bench upstream's convert_temperature (bench/scoped/plain.ts)
 * as `up_convert_temperature`, behind the same bearer token, so bench/mount.mjs reads a mounted call
 * against the same call made directly upstream. UPSTREAM_MCP is given by the bench; MCP_DEV=on lets
 * the mount reach its http loopback address, as under `npm run dev`.
 */
import { createMcpWorker, defineApp, mountServer } from "../../src/mcp";
import { verifyToken } from "../scoped/app";

type Env = { UPSTREAM_MCP: string };

const app = defineApp<Env>({
  info: { name: "bench-mount", version: "0" },
  mounts: [
    mountServer<Env>({
      prefix: "up",
      url: (env) => env.UPSTREAM_MCP,
      // The mount's own credential upstream (the caller's token is never forwarded).
      headers: () => ({ Authorization: "Bearer bench-token" }),
    }),
  ],
});

const worker = createMcpWorker(app, { verifyToken });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
