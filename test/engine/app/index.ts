/** The Worker entry of the engine's test app (vitest, e2e, load and bench). */
import { createMcpWorker } from "../../../src/mcp";
import app from "./app";
import edgeApp from "./edge-app";
import toolsOnlyApp from "./tools-only-app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;

/** The 2025 session class of the edge-case fixture app (bound as MCP_SESSION_EDGE; see edge-app.ts). */
export const EdgeSession = createMcpWorker(edgeApp).McpSession;

/** The 2025 session class of the tools-only fixture app (bound as MCP_SESSION_TOOLS_ONLY; see tools-only-app.ts). */
export const ToolsOnlySession = createMcpWorker(toolsOnlyApp).McpSession;
