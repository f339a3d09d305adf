/** The Worker entry of the GitHub import fixture (wrangler.toml beside it). */
import { createMcpWorker } from "../../../src/mcp";
import app from "./github-app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
