// Why: the official TypeScript SDK 1.x, the server most MCP deployments run, as its documentation wires
// Streamable HTTP on node:http: stateful (a transport per session, found by Mcp-Session-Id) and
// stateless (a server and transport per request). The doctor must find no fault in either.
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { serveNode } from "./serve.mjs";

export const SDK1_VERSION = "1.32.2";

function makeServer() {
  const server = new McpServer({ name: "peer-sdk1", version: "1.0.0" });
  server.registerTool(
    "echo_time",
    {
      title: "Echo the time",
      description: "Says what time it is.",
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    },
    async () => ({ content: [{ type: "text", text: new Date().toISOString() }] }),
  );
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

/** Stateful: initialize opens a session; its transport answers every later request that names it. */
export function startSdk1Stateful() {
  const sessions = new Map();
  return serveNode(async (req, res) => {
    if (!req.url.startsWith("/mcp")) return res.writeHead(404).end();
    try {
      const body = req.method === "POST" ? await readJson(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        if (id || req.method !== "POST" || body?.method !== "initialize") {
          res.writeHead(id ? 404 : 400, { "content-type": "application/json" });
          return res.end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: null,
              error: { code: -32000, message: id ? "Session not found" : "Bad Request: no valid session ID" },
            }),
          );
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            sessions.set(sid, transport);
          },
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: String(err?.message ?? err) } }));
    }
  });
}

/** Stateless: every request gets a fresh server and transport, and no session id. */
export function startSdk1Stateless() {
  return serveNode(async (req, res) => {
    if (!req.url.startsWith("/mcp")) return res.writeHead(404).end();
    if (req.method !== "POST") {
      res.writeHead(405, { "content-type": "application/json", allow: "POST" });
      return res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed." } }));
    }
    try {
      const body = await readJson(req);
      const server = makeServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => (transport.close(), server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: String(err?.message ?? err) } }));
    }
  });
}
