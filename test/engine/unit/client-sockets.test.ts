/**
 * The client (src/engine/client) against hostile servers on real sockets on 127.0.0.1, with Node's own
 * fetch: what only a real connection shows (a reset mid-answer, a redirect fetch would follow).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { McpClient } from "../../../src/engine/client";

const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
const servers: Server[] = [];

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    const decoder = new TextDecoder();
    let body = "";
    req.on("data", (c) => (body += decoder.decode(c, { stream: true })));
    req.on("end", () => handle(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r)).catch(() => {});
});

const reply = (res: ServerResponse, id: unknown, result: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(200, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
};

describe("client on real sockets", () => {
  it("2025-11-25: an answer whose connection is reset mid-call comes back with GET and Last-Event-ID", async () => {
    const resumes: (string | undefined)[] = [];
    let callId: unknown;
    const url = await serve((req, res, body) => {
      if (req.method === "GET") {
        const last = req.headers["last-event-id"] as string | undefined;
        resumes.push(last);
        if (!last) return void res.writeHead(405).end();
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        return void res.end(
          `id: e2\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [{ type: "text", text: "resumed" }] } })}\n\n`,
        );
      }
      if (req.method === "DELETE") return void res.writeHead(200).end();
      const m = JSON.parse(body) as { id?: number; method?: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === "initialize")
        return reply(
          res,
          m.id,
          { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: { name: "reset", version: "1" } },
          { "Mcp-Session-Id": "s1" },
        );
      callId = m.id;
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(
        `retry: 10\nid: e1\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } })}\n\n`,
      );
      // A connection reset, not a clean end of the stream.
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
    const client = await McpClient.connect(url, { protocol: LEGACY, sessionStream: false, limits: { minRetryMs: 1 } });
    try {
      await expect(client.callTool("slow")).resolves.toMatchObject({ content: [{ type: "text", text: "resumed" }] });
      expect(resumes).toEqual(["e1"]);
    } finally {
      await client.close();
    }
  });

  it("a connection closed before any answer fails the call once, naming the socket's reason; the POST is not resent", async () => {
    let calls = 0;
    const url = await serve((_req, res, body) => {
      const m = JSON.parse(body) as { id: number; method: string };
      if (m.method !== "tools/call")
        return reply(res, m.id, {
          resultType: "complete",
          supportedVersions: [MODERN],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: "public",
        });
      calls++;
      res.socket?.destroy();
    });
    const client = await McpClient.connect(url, { protocol: MODERN });
    const err = await client.callTool("anything", {}).catch((e: unknown) => e);
    // Node's fetch says only "fetch failed"; the part a user can act on is the socket's reason in `cause`.
    expect(String(err)).toMatch(/Could not reach .*: fetch failed \(other side closed, UND_ERR_SOCKET\)/);
    // The server may have acted on a POST it never answered, so the client does not send it again.
    expect(calls).toBe(1);
  });

  it("a 307 to another origin is not followed: the body and the app's headers stay with the server they were meant for", async () => {
    const elsewhere: { headers: IncomingMessage["headers"]; body: string }[] = [];
    const other = await serve((req, res, body) => {
      elsewhere.push({ headers: req.headers, body });
      res.writeHead(500).end();
    });
    const url = await serve((_req, res) => void res.writeHead(307, { Location: other }).end());
    const err = await McpClient.connect(url, { protocol: MODERN, headers: { "X-Api-Key": "secret-key" } }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/redirected to another origin/);
    expect(elsewhere).toEqual([]);
  });

  it("a 307 within the same origin is followed, body and headers included", async () => {
    const seen: string[] = [];
    const url = await serve((req, res, body) => {
      if (req.url === "/mcp") return void res.writeHead(307, { Location: "/moved" }).end();
      seen.push(String(req.headers["x-api-key"]));
      const m = JSON.parse(body) as { id: number };
      reply(res, m.id, { resultType: "complete", supportedVersions: [MODERN], capabilities: {}, ttlMs: 0, cacheScope: "public" });
    });
    const client = await McpClient.connect(url, { protocol: MODERN, headers: { "X-Api-Key": "secret-key" } });
    expect(client.protocolVersion).toBe(MODERN);
    expect(seen).toEqual(["secret-key"]);
  });
});
