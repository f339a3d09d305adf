/**
 * The Worker entry: the example app through the /mcp edge, and the Durable
 * Object classes wrangler.toml binds (the notification hub, and one session
 * object per 2025-11-25 session).
 */
import app from "./server";
import { sessionObjectFor } from "./objects/session";
import { createMcpWorker } from "./worker";

export { McpHub } from "./objects/hub";
export class McpSession extends sessionObjectFor(app) {}
export default createMcpWorker(app);
