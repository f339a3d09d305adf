/** The Worker entry of the conformance fixture app (`npm run dev:conformance`). */
import { createMcpWorker } from "../../src/mcp";
import app from "./app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
