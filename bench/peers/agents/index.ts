// Bench peer: the example server's convert_temperature tool served by Cloudflare `agents`'
// stateless `createMcpHandler` (agents/mcp/server) over an MCP SDK v2 McpServer, as its
// documentation shows (handler created once at module scope, called per request).
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { z } from "zod";

const toCelsius = (value: number, unit: string) =>
  unit === "celsius" ? value : unit === "fahrenheit" ? ((value - 32) * 5) / 9 : value - 273.15;
const round2 = (n: number) => Math.round(n * 100) / 100;

function createServer() {
  const server = new McpServer({ name: "bench-peer-agents", version: "0.1.0" });
  server.registerTool(
    "convert_temperature",
    {
      title: "Convert a temperature",
      description: "Converts a temperature between Celsius, Fahrenheit and Kelvin.",
      annotations: { readOnlyHint: true, openWorldHint: false },
      inputSchema: z.object({
        value: z.number().describe("The temperature to convert"),
        from: z.enum(["celsius", "fahrenheit", "kelvin"]).describe("The unit of value"),
      }),
      outputSchema: z.object({ celsius: z.number(), fahrenheit: z.number(), kelvin: z.number() }),
    },
    async ({ value, from }) => {
      const c = toCelsius(value, from);
      if (c < -273.15) return { content: [{ type: "text", text: "That is below absolute zero." }], isError: true };
      const out = { celsius: round2(c), fahrenheit: round2((c * 9) / 5 + 32), kelvin: round2(c + 273.15) };
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  return server;
}

const handler = createMcpHandler(createServer);

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext) {
    return handler(request, env, ctx);
  },
};
