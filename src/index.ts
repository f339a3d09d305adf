/**
 * The Worker entry: the app in src/server.ts served on /mcp, your own routes beside it (itty-router),
 * and the Durable Object classes wrangler.toml binds. A fork adds its routes here and leaves the rest.
 */
import { Router } from "itty-router";
import app from "./server";
import { createMcpWorker, jwtAuth } from "./mcp";

// `jwt` lets AUTH_MODE=jwt check OAuth access tokens (README → Security). It brings `jose`, about
// 6.6 KiB gzip: a Worker built without it is that much smaller and refuses AUTH_MODE=jwt.
const mcp = createMcpWorker(app, { jwt: jwtAuth });
export const { McpHub, McpSession, McpTask } = mcp;

// Routes are tried in order; the first that returns a Response answers.
const router = Router()
  // A health check for uptime monitors and load balancers: it does not touch the MCP engine.
  .get("/health", () => Response.json({ ok: true }))
  // Add your own routes here (a webhook, a status page…), before the MCP endpoint's.
  // Last: `mcp.fetch` is the engine's `handle` (/mcp and its OAuth metadata paths) with a 404 for
  // any other path. A Worker with no route of its own can `export default mcp` instead.
  .all("*", mcp.fetch);

export default router;
