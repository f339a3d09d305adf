/** One tool and neither extension: the bundle must carry none of the extensions' code. */
import { createMcpWorker, defineApp } from "../../../src/mcp";
import { convert, info } from "./tool";

const worker = createMcpWorker(defineApp({ info, tools: [convert()] }));
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
