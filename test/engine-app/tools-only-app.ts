/**
 * A fixture app with tools only: no prompt, resource, template or completer. The methods of those
 * come with their definitions, so this app's bundle has none of them, and it must answer them as
 * any app without the capability does (-32601). Its 2025 sessions live in their own class
 * (ToolsOnlySession, bound as MCP_SESSION_TOOLS_ONLY).
 */
import { defineApp, defineTool } from "../../src/mcp";

export default defineApp({ info: { name: "tools-only", version: "0.0.0" }, tools: [defineTool({ name: "ping", handler: () => "pong" })] });
