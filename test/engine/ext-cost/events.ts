/** The same tool beside one event type (MCP Events): what `events([...])` and `emit` add. */
import * as v from "valibot";
import { createMcpWorker, defineApp, defineEvent, events } from "../../../src/mcp";
import { convert, info } from "./tool";

const converted = defineEvent({ name: "converted", payload: v.object({ value: v.number() }), delivery: ["webhook"] });
const worker = createMcpWorker(defineApp({ info, tools: [convert()], extensions: [events([converted])] }));
export const { McpHub, McpSession, McpTask, McpEvents } = worker;
export default worker;
