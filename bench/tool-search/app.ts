/**
 * Bench-only: GitHub's REST API as tools (github-tools.json, which bench/tool-search.mjs writes from
 * @octokit/openapi before it builds this), behind `toolSearch()`. Each tool answers at once with its
 * name and arguments, so what is measured is the engine's path: a direct `tools/call` of a tool
 * against the same call made through `call_tool`.
 */
import { createMcpWorker, defineApp, defineTool, toolSearch } from "../../src/mcp";
import tools from "./github-tools.json";

const app = defineApp({
  info: { name: "bench-tool-search", version: "0" },
  tools: (tools as { name: string; title?: string; description?: string; inputSchema: Record<string, unknown> }[]).map((t) =>
    defineTool({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      handler: (args) => ({ content: [{ type: "text" as const, text: "ok" }], structuredContent: { operation: t.name, arguments: args } }),
    }),
  ),
  surface: toolSearch(),
});

const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
