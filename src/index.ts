/**
 * The Worker entry: the app in src/server.ts served on /mcp, and the Durable
 * Object classes wrangler.toml binds. A fork does not edit this file.
 */
import app from "./server";
import { createMcpWorker, jwtAuth } from "./mcp";

// `jwt` lets AUTH_MODE=jwt check OAuth access tokens (README → Security); a server that never uses
// JWT auth may drop it, and its bundle is about 4.6 KiB gzip smaller.
const worker = createMcpWorker(app, { jwt: jwtAuth });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
