/**
 * The engine tests' Worker entry (vitest.engine.config.ts): the engine test app's, plus session
 * classes only the tests bind, kept out of the entry whose bundle the budget measures.
 */
import { createMcpWorker } from "../../src/mcp";
import scopedApp from "./scoped-engine-app";

export * from "./index";
export { default } from "./index";

/** The 2025 session class of the scoped engine app (bound as MCP_SESSION_SCOPED). */
export const ScopedSession = createMcpWorker(scopedApp).McpSession;
