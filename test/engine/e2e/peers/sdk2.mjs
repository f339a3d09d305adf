// Why: the official SDK v2 (`@modelcontextprotocol/server` 2.x) and `mcp-handler` (Vercel's adapter on
// it) serve 2026-07-28 natively and 2025 requests statelessly from one Web-standard handler, the way
// their READMEs mount it; tmcp is the other TypeScript server library, on its own HTTP transport.
// The doctor must find no fault in any.
import { McpServer as V2Server, createMcpHandler as v2Handler } from "@modelcontextprotocol/server";
import { ValibotJsonSchemaAdapter } from "@tmcp/adapter-valibot";
import { HttpTransport } from "@tmcp/transport-http";
import { createMcpHandler as vercelHandler } from "mcp-handler";
import { McpServer as TmcpServer } from "tmcp";
import { serveFetch } from "./serve.mjs";

export const SDK2_VERSION = "2.4.0";
export const MCP_HANDLER_VERSION = "2.4.0";
export const TMCP_VERSION = "1.20.0 (@tmcp/transport-http 0.9.0)";

const TOOL = {
  title: "Echo the time",
  description: "Says what time it is.",
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
};
/** @returns {Promise<{ content: { type: "text", text: string }[] }>} */
const now = async () => ({ content: [{ type: "text", text: new Date().toISOString() }] });
const onMcp = (handler) => (request) => (new URL(request.url).pathname === "/mcp" ? handler(request) : undefined);

export function startSdk2() {
  const handler = v2Handler(() => {
    const server = new V2Server({ name: "peer-sdk2", version: "1.0.0" });
    server.registerTool("echo_time", TOOL, now);
    return server;
  });
  return serveFetch(onMcp((request) => handler.fetch(request)));
}

export function startMcpHandler() {
  const handler = vercelHandler((server) => server.registerTool("echo_time", TOOL, now));
  return serveFetch(onMcp(handler));
}

export function startTmcp() {
  const server = new TmcpServer(
    { name: "peer-tmcp", version: "1.0.0", description: "a peer for the doctor's tests" },
    { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } },
  );
  server.tool({ name: "echo_time", ...TOOL }, now);
  const transport = new HttpTransport(server, { path: "/mcp", allowedOrigins: true });
  return serveFetch((request) => transport.respond(request));
}
