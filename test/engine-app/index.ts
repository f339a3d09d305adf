/** The Worker entry of the engine's test app (vitest, e2e, load and bench). */
import { createMcpWorker } from "../../src/mcp";
import app from "./app";
import edgeApp from "./edge-app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;

/** The 2025 session class of the edge-case fixture app (bound as MCP_SESSION_EDGE; see edge-app.ts). */
export const EdgeSession = createMcpWorker(edgeApp).McpSession;
