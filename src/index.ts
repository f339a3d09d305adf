/**
 * The Worker entry: the app in src/server.ts served on /mcp, your own routes beside it (itty-router),
 * and the Durable Object classes wrangler.toml binds. A fork adds its routes here and leaves the rest.
 */
import { IttyRouter } from "itty-router";
import app from "./server";
import { createMcpWorker, jwtAuth } from "./mcp";

// `jwt` lets AUTH_MODE=jwt check OAuth access tokens (docs/security.md). It brings `jose`, about
// 6.6 KiB gzip: a Worker built without it is that much smaller and refuses AUTH_MODE=jwt.
const mcp = createMcpWorker(app, { jwt: jwtAuth });
export const { McpHub, McpSession, McpTask } = mcp;

// Your routes: tried in order, the first that returns a Response answers.
const router = IttyRouter()
  // A health check for uptime monitors and load balancers: it does not touch the MCP engine.
  .get("/health", () => Response.json({ ok: true }))
  // Add your own routes here (a webhook, a status page…).
  // Any other path: the engine's 404, which names the MCP endpoint.
  .all("*", mcp.fetch);

export default {
  // The MCP endpoint (/mcp and its OAuth metadata paths) first, through the engine's `handle`, which
  // answers only those: a request to it pays nothing for the router. A Worker with no route of its
  // own can `export default mcp` instead.
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return (await mcp.handle(request, env, ctx)) ?? router.fetch(request, env, ctx);
  },
};
