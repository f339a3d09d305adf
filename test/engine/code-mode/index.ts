/** The Worker entry of the Code Mode fixture app (bench/code-mode.mjs, `wrangler dev` by hand). */
import { createMcpWorker } from "../../../src/mcp";
import app from "./app";

const worker = createMcpWorker(app);
export const { McpHub, McpSession } = worker;
export default worker;
