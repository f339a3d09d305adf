/**
 * A fixture app with tools only (one of the engine app's): no prompt, resource, template or
 * completer. The methods of those come with their definitions, so this app's bundle would have none
 * of them, and it must answer them as any app without the capability does (-32601). Its 2025
 * sessions live in their own class (ToolsOnlySession, bound as MCP_SESSION_TOOLS_ONLY).
 */
import { defineApp } from "../../../src/mcp";
import { rollDice } from "./app";

export default defineApp({ info: { name: "tools-only", version: "0.0.0" }, tools: [rollDice] });
