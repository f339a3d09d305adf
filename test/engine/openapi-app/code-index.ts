/** The Worker entry of the GitHub import behind Code Mode (wrangler.code.toml, with its LOADER binding). */
import { createMcpWorker } from "../../../src/mcp";
import { codeApp } from "./surface-apps";

const worker = createMcpWorker(codeApp);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
