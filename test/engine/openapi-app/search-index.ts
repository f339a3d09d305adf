/** The Worker entry of the GitHub import behind tool search (wrangler.search.toml). */
import { createMcpWorker } from "../../../src/mcp";
import { searchApp } from "./surface-apps";

const worker = createMcpWorker(searchApp);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
