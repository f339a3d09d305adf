/**
 * The Worker entry: the app in src/server.ts served on /mcp, and the Durable
 * Object classes wrangler.toml binds. A fork does not edit this file.
 */
import app from "./server";
import { createMcpWorker, jwtAuth } from "./mcp";

// `jwt` lets AUTH_MODE=jwt check OAuth access tokens (README → Security). It brings `jose`, about
// 6.6 KiB gzip: a Worker built without it is that much smaller and refuses AUTH_MODE=jwt.
const worker = createMcpWorker(app, { jwt: jwtAuth });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
