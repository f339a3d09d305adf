/**
 * CORS for browser clients. The allow-list names every header either
 * revision sends, because a 2026 request with a header missing here fails
 * its preflight before the server ever sees it.
 */

const ALLOW_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "mcp-protocol-version",
  "mcp-session-id",
  "mcp-method",
  "mcp-name",
  "last-event-id",
];
const EXPOSE_HEADERS = "Mcp-Session-Id, WWW-Authenticate, Retry-After";
const ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";

/** Mcp-Param-<Name> headers are open-ended, so they are allowed by prefix. */
const isAllowedHeader = (h: string) => ALLOW_HEADERS.includes(h) || h.startsWith("mcp-param-");

export function preflight(request: Request, origin: string | null): Response {
  const requested = (request.headers.get("Access-Control-Request-Headers") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const allowed = [...new Set([...ALLOW_HEADERS, ...requested.filter(isAllowedHeader)])];
  const headers: Record<string, string> = {
    "Access-Control-Allow-Methods": ALLOW_METHODS,
    "Access-Control-Allow-Headers": allowed.join(", "),
    "Access-Control-Expose-Headers": EXPOSE_HEADERS,
    "Access-Control-Max-Age": "86400",
    Vary: "Origin",
  };
  if (origin) headers["Access-Control-Allow-Origin"] = origin;
  return new Response(null, { status: 204, headers });
}

/** Adds the CORS answer headers to a response for an allowed browser origin. */
export function withCors(response: Response, origin: string | null): Response {
  if (!origin) return response;
  // 101 (WebSocket) responses cannot be rebuilt; /mcp never returns one.
  const out = new Response(response.body, response);
  out.headers.set("Access-Control-Allow-Origin", origin);
  out.headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
  out.headers.append("Vary", "Origin");
  return out;
}
