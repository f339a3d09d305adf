// Why: the doctor's faults live in front of the Worker (a zone's bot rule, a rewritten Host, a slow or
// wrong authorization server, a redirect, stripped CORS headers, a layer that loses sessions), where
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
    res.writeHead(403, { server: "cloudflare", "cf-mitigated": "challenge", "cf-ray": "8f00doctor0000-LHR", "content-type": "text/html; charset=UTF-8" });
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
  "sessions-404": (req, res) => {
    if (!req.headers["mcp-session-id"]) return false;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Session not found" } }));
    return true;
  },
};

/** Starts a proxy to `target` (an origin) reproducing `mode`; returns its origin and stop(). */
export async function startFaultProxy(target, mode, { delayMs = 0 } = {}) {
  const fault = FAULT_MODES[mode];
  if (!fault) throw new Error(`no fault mode ${mode}`);
  const to = new URL(target);
  const server = http.createServer(async (req, res) => {
    try {
      const forward = { body: await readAll(req), host: req.headers.host };
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
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
