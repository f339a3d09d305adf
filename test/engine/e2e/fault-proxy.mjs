// Why: the doctor's faults live in front of the Worker (a zone's bot rule, a rewritten Host, a slow or
// wrong authorization server, a redirect, stripped CORS headers, a layer that loses sessions or their
// ids, a page of another app on the path, a stalled metadata endpoint, a rate limit), where
// `wrangler dev` cannot put them. This is a small HTTP proxy on 127.0.0.1 that forwards to a server and
// reproduces one such fault, so the doctor can be run against each.
import http from "node:http";
import { freePort } from "./server.mjs";

const EDGE_BLOCK_PAGE = `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>
<h1>Sorry, you have been blocked</h1><p>You are unable to access this site.</p>
<div class="cf-error-details">Cloudflare Ray ID: <strong>8f00doctor0000</strong></div></body></html>`;

const readAll = (stream) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    stream.on("data", (c) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });

/**
 * The faults, each a function of the request that either answers it itself (returns true) or changes
 * how it is forwarded: `forward.host` (the Host sent on), `forward.delayMs`, `forward.rewrite(body, res)`
 * for the answer's body, `forward.dropHeaders` (a pattern of answer headers removed).
 */
const FAULT_MODES = {
  healthy: () => false,
  "agent-blocked": (req, res) => {
    if (!/Claude-User/.test(req.headers["user-agent"] ?? "")) return false;
    res.writeHead(403, {
      server: "cloudflare",
      "cf-mitigated": "challenge",
      "cf-ray": "8f00doctor0000-LHR",
      "content-type": "text/html; charset=UTF-8",
    });
    res.end(EDGE_BLOCK_PAGE);
    return true;
  },
  "edge-challenge": (_req, res) => {
    res.writeHead(403, { server: "cloudflare", "cf-mitigated": "challenge", "content-type": "text/html; charset=UTF-8" });
    res.end("<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>challenge-platform</body></html>");
    return true;
  },
  "access-login": (req, res) => {
    if (!req.url.startsWith("/mcp")) return false;
    res.writeHead(302, { location: "https://team.cloudflareaccess.com/cdn-cgi/access/login/mcp.example.com?redirect_url=%2Fmcp" });
    res.end();
    return true;
  },
  "host-not-allowed": (_req, _res, forward) => ((forward.host = "mcp.example.com"), false),
  "slow-discovery": (req, _res, forward, { delayMs }) => (req.url.startsWith("/.well-known/") && (forward.delayMs = delayMs), false),
  "token-needs-resource": (req, res, forward) => {
    if (req.method !== "POST" || !req.url.startsWith("/oauth/token")) return false;
    if (new URLSearchParams(forward.body.toString()).has("resource")) return false;
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_target", error_description: "The resource parameter is required" }));
    return true;
  },
  "other-resource": (req, _res, forward) => {
    if (req.url.startsWith("/.well-known/oauth-protected-resource"))
      forward.rewrite = (body) => {
        const json = JSON.parse(body.toString());
        return Buffer.from(JSON.stringify({ ...json, resource: "https://other.example.com/mcp" }));
      };
    return false;
  },
  "redirect-mcp": (req, res) => {
    if (!req.url.startsWith("/mcp") || req.url.startsWith("/mcp/")) return false;
    res.writeHead(308, { location: "/mcp/" });
    res.end();
    return true;
  },
  "cors-stripped": (_req, _res, forward) => ((forward.dropHeaders = /^access-control-/i), false),
  // Another app answers POST /mcp (a site, a catch-all route) with a page.
  "html-page": (req, res) => {
    if (!req.url.startsWith("/mcp")) return false;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!DOCTYPE html><html><head><title>Welcome</title></head><body>Our new site is coming soon.</body></html>");
    return true;
  },
  // A layer that drops the Mcp-Session-Id header from answers (a Transform Rule, a proxy's header list).
  "session-id-dropped": (_req, _res, forward) => ((forward.dropHeaders = /^mcp-session-id$/i), false),
  // Protected-resource metadata that never answers (a cold or hung authorization layer).
  "metadata-stall": (req) => req.url.startsWith("/.well-known/oauth-protected-resource"),
  // The server's own session rate limit (a Worker's 429, no edge signature) refusing every initialize.
  "sessions-limited": (req, res, forward) => {
    if (req.method !== "POST" || !/"method"\s*:\s*"initialize"/.test(forward.body.toString())) return false;
    res.writeHead(429, { "content-type": "application/json", "retry-after": "60" });
    res.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32600, message: "Too Many Requests: too many new sessions (MCP_SESSION_RATE_LIMIT); retry after 60 seconds" },
      }),
    );
    return true;
  },
  "sessions-404": (req, res) => {
    if (!req.headers["mcp-session-id"]) return false;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Session not found" } }));
    return true;
  },
};

/** Starts a proxy to `target` (an origin) reproducing `mode`; returns its origin, stop() and `counts` (initialize requests seen). */
export async function startFaultProxy(target, mode, { delayMs = 0 } = {}) {
  const fault = FAULT_MODES[mode];
  if (!fault) throw new Error(`no fault mode ${mode}`);
  const to = new URL(target);
  const counts = { initialize: 0 };
  const server = http.createServer(async (req, res) => {
    try {
      const forward = { body: await readAll(req), host: req.headers.host };
      // Sessions opened through the proxy, for the tests that count what one doctor run costs a server.
      if (req.method === "POST" && /"method"\s*:\s*"initialize"/.test(forward.body.toString())) counts.initialize++;
      if (fault(req, res, forward, { delayMs })) return;
      if (forward.delayMs) await new Promise((r) => setTimeout(r, forward.delayMs));
      const sent = { ...req.headers, host: forward.host };
      if (forward.rewrite) delete sent["accept-encoding"]; // a body to rewrite must come back uncompressed
      const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: sent }, async (up) => {
        const headers = Object.fromEntries(Object.entries(up.headers).filter(([k]) => !forward.dropHeaders?.test(k)));
        if (!forward.rewrite) {
          res.writeHead(up.statusCode, headers);
          up.pipe(res);
          return;
        }
        let body;
        try {
          body = forward.rewrite(await readAll(up));
        } catch (err) {
          res.writeHead(502);
          res.end(`the proxy could not rewrite the answer: ${err}`);
          return;
        }
        delete headers["content-length"];
        delete headers["content-encoding"];
        res.writeHead(up.statusCode, { ...headers, "content-length": body.length });
        res.end(body);
      });
      upstream.on("error", (err) => (res.headersSent ? res.destroy(err) : (res.writeHead(502), res.end(String(err)))));
      res.on("close", () => upstream.destroy());
      upstream.end(forward.body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
  const port = await freePort();
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(port, "127.0.0.1", resolve)));
  return {
    origin: `http://127.0.0.1:${port}`,
    counts,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
