/** The Worker entry of the engine's test app (vitest, e2e, load and bench). */
import { createMcpWorker } from "../../src/mcp";
import app from "./app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession } = worker;
export default worker;
