/** The same tool with an MCP Apps view (its HTML a Static Asset, outside the bundle). */
import { createMcpWorker, defineApp, defineView } from "../../../src/mcp";
import { convert, info } from "./tool";

const view = defineView({ uri: "ui://convert/view.html", name: "convert_view", asset: "/views/probe.html" });
const worker = createMcpWorker(defineApp({ info, tools: [convert(view)] }));
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
