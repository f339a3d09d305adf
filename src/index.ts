/**
 * The Worker entry: the app in src/server.ts served on /mcp, and the Durable
 * Object classes wrangler.toml binds. A fork does not edit this file.
 */
import app from "./server";
import { createMcpWorker } from "./mcp";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
