/** The Worker entry of the client fixture app (test/engine/e2e/client-own.mjs). */
import { createMcpWorker } from "../../../src/mcp";
import app from "./app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
