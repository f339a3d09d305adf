/** Bench-only: convert_temperature behind a bearer token, with declared scopes checked (see app.ts). */
import { createMcpWorker } from "../../src/mcp";
import { scopedApp, verifyToken } from "./app";

const worker = createMcpWorker(scopedApp, { verifyToken });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
