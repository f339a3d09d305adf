/**
 * A fixture app whose tool calls another MCP server through the engine's
 * client, from inside the Worker: the e2e test points UPSTREAM_MCP_URL at the
 * conformance fixture under its own `wrangler dev`.
 */
import * as v from "valibot";
import { McpClient } from "../../../src/engine/client";
import { defineApp, defineTool } from "../../../src/mcp";

const upstreamUrl = (env: unknown) => (env as { UPSTREAM_MCP_URL?: string }).UPSTREAM_MCP_URL ?? "";

export const relay = defineTool({
  name: "relay",
  description: "Calls a tool on the upstream MCP server and returns its text, with the revision spoken.",
  input: v.object({ tool: v.optional(v.string(), "test_simple_text") }),
  handler: async ({ tool }, ctx) => {
    const client = await McpClient.connect(upstreamUrl(ctx.env), { clientInfo: { name: "client-app-relay", version: "0.1.0" } });
    try {
      const result = await client.callTool(tool, {}, { signal: ctx.signal });
      const text = result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
      return `${client.protocolVersion}: ${text}`;
    } finally {
      await client.close();
    }
  },
});

export default defineApp({
  info: { name: "client-app", version: "0.1.0" },
  tools: [relay],
});
