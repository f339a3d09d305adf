/** Bench-only: convert_temperature behind a bearer token, without declared scopes (see app.ts). */
import { createMcpWorker } from "../../src/mcp";
import { plainApp, verifyToken } from "./app";

const worker = createMcpWorker(plainApp, { verifyToken });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
