// Bench peer: the example server's convert_temperature tool on the official MCP TypeScript
// SDK v2 (`@modelcontextprotocol/server`), served by its `createMcpHandler` as a Worker, with
// the Host/Origin checks its documentation puts in front of a bare fetch handler.
import {
  McpServer,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { z } from "zod";

const toCelsius = (value: number, unit: string) =>
  unit === "celsius" ? value : unit === "fahrenheit" ? ((value - 32) * 5) / 9 : value - 273.15;
const round2 = (n: number) => Math.round(n * 100) / 100;

function createServer() {
  const server = new McpServer({ name: "bench-peer-official", version: "0.1.0" });
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
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp") return new Response("Not found", { status: 404 });
    const rejected =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    return rejected ?? handler.fetch(request);
  },
};
