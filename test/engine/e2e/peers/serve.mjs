// Why: the third-party servers the doctor is tried against are written for different hosts: node:http
// handlers (the official SDK 1.x) and Web-standard `(Request) => Response` handlers (SDK v2, tmcp,
// mcp-handler). This serves either on 127.0.0.1 at a free port, with a stop() that ends every connection.
import http from "node:http";
import { freePort } from "../server.mjs";

/** Serves a node:http request listener; returns its origin and stop(). */
export async function serveNode(listener) {
  const server = http.createServer(listener);
  const port = await freePort();
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(port, "127.0.0.1", resolve)));
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Serves a Web-standard fetch handler (null or undefined answers 404) through node:http. */
export function serveFetch(handler) {
  return serveNode(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
        signal: controller.signal,
      });
      const response = (await handler(request)) ?? new Response("Not found", { status: 404 });
      res.writeHead(response.status, [...response.headers].flat());
      if (!response.body) return res.end();
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
}
