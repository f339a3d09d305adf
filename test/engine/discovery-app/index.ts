/** The Worker entry of the discovery fixture app (wrangler.toml beside it): the engine test app with `discovery()`. */
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/discovery-app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
