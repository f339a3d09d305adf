/**
 * The Worker entry: the example app through the /mcp edge, and the Durable
 * Object classes wrangler.toml binds.
 */
import app from "./server";
import { createMcpWorker } from "./worker";

export { McpHub } from "./objects/hub";
export default createMcpWorker(app);
