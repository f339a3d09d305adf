// The template's Worker entry before itty-router (src/index.ts as it was): the engine's own
// comparisons for /mcp and its metadata, nothing else. bench/router-entry.mjs measures src/index.ts
// against it.
import app from "../../src/server";
import { createMcpWorker, jwtAuth } from "../../src/mcp";

const worker = createMcpWorker(app, { jwt: jwtAuth });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
