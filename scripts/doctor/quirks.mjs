// Why: hosted clients send request shapes the spec does not allow, and a server that refuses them
// leaves the client showing "connected" while every call fails. These are those shapes as the public
// threads recorded them, in one place: the engine's tests (test/engine/integration/hosted-quirks.test.ts)
// prove the template serves each, and the doctor (scripts/doctor/checks/quirks.mjs) replays each
// against a deployment. src/engine/http/quirks.ts serves them (STRICT_HEADERS=on refuses them).

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/**
 * Each quirk: `id` (as the server's log line counts it, src/engine/http/quirks.ts), the `client` that
 * sends it, the public `threads` it was recorded in, what it `sends`, and on each lane it happens on
 * (`modern`: a 2026-07-28 request; `legacy`: a request in a 2025-11-25 session) the headers that
 * differ from a well-formed request (null: the header is not sent) and the `accepts` form of answer;
 * `accept`: what any server must do to serve it (the doctor's fix leads with it).
 */
export const QUIRKS = [
  {
    id: "version-other",
    client: "Claude",
    threads: ["claude-code #93290"],
    sends: `a ${MODERN} body (_meta protocol version ${MODERN}) with MCP-Protocol-Version: ${LEGACY}`,
    accept: `serve the request by the revision its body names (_meta protocol version ${MODERN}) when the header names another known one`,
    modern: { headers: { "MCP-Protocol-Version": LEGACY } },
  },
  {
    id: "version-newer",
    client: "Claude",
    threads: ["claude-code #92835", "SparkyFitness #2155"],
    sends: `MCP-Protocol-Version: ${MODERN} on a session that negotiated ${LEGACY}`,
    accept: "serve a session's requests by the version it negotiated when the header names a newer known one",
    legacy: { headers: { "MCP-Protocol-Version": MODERN } },
  },
  {
    id: "version-repeated",
    client: "Claude through a proxy",
    threads: ["lowdefy #2345", "openwork #3944"],
    sends: "the MCP-Protocol-Version header twice, comma-joined by a proxy",
    accept: "read a header repeated with one value (`v, v`) as that value",
    modern: { headers: { "MCP-Protocol-Version": `${MODERN}, ${MODERN}` } },
    legacy: { headers: { "MCP-Protocol-Version": `${LEGACY}, ${LEGACY}` } },
  },
  {
    id: "accept-json",
    client: "Claude Code",
    threads: ["claude-code #45368", "OB1 #33"],
    sends: "Accept: application/json (without text/event-stream)",
    accept: "answer with JSON when Accept names application/json alone",
    modern: { headers: { Accept: "application/json" }, accepts: "json" },
    legacy: { headers: { Accept: "application/json" }, accepts: "json" },
  },
  {
    id: "accept-sse",
    client: "Composio",
    threads: ["composio #2152"],
    sends: "Accept: text/event-stream (without application/json)",
    accept: "answer with an SSE stream when Accept names text/event-stream alone",
    modern: { headers: { Accept: "text/event-stream" }, accepts: "sse" },
    legacy: { headers: { Accept: "text/event-stream" }, accepts: "sse" },
  },
  {
    id: "accept-none",
    client: "clients built on a bare HTTP library",
    threads: ["issue 43 (seen in the trackers above, no thread of its own)"],
    sends: "no Accept header",
    accept: "answer with JSON when the request has no Accept header",
    modern: { headers: { Accept: null } },
    legacy: { headers: { Accept: null } },
  },
];

/** The (quirk, lane) pairs: each is one request. */
export const QUIRK_CASES = QUIRKS.flatMap((quirk) => ["modern", "legacy"].filter((lane) => quirk[lane]).map((lane) => ({ quirk, lane })));

const CLIENT_INFO = { name: "mcp-quirk-replay", version: "1.0.0" };

/** The headers of a well-formed POST of `method` on `lane`, with the quirk's changes applied. */
function headersOf(lane, method, changes = {}, sessionId) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (lane === "modern") Object.assign(headers, { "MCP-Protocol-Version": MODERN, "Mcp-Method": method });
  else Object.assign(headers, { "MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": sessionId });
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  return headers;
}

/**
 * The fetch arguments of one quirk's request to the MCP endpoint `url`: a tools/list, as the hosted
 * client sends it. `sessionId`: the 2025-11-25 session a legacy case runs in (initializeRequest opens one).
 * `extraHeaders` go on first (a User-Agent, an Authorization).
 * @param {{ quirk: any, lane: string }} c
 * @param {string} url
 * @param {{ sessionId?: string, id?: number, extraHeaders?: Record<string, string> }} [options]
 */
export function quirkRequest({ quirk, lane }, url, { sessionId, id = 1, extraHeaders = {} } = {}) {
  const params =
    lane === "modern"
      ? {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          },
        }
      : {};
  return [
    url,
    {
      method: "POST",
      headers: { ...extraHeaders, ...headersOf(lane, "tools/list", quirk[lane].headers, sessionId) },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params }),
    },
  ];
}

/** The fetch arguments of a 2025-11-25 initialize, to open the session the legacy cases run in. */
export const initializeRequest = (url, extraHeaders = {}) => [
  url,
  {
    method: "POST",
    headers: { ...extraHeaders, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO },
    }),
  },
];

/**
 * Whether an answer served the quirk: 200, in a form the request's Accept takes (JSON for `json`,
 * SSE for `sse`), with a JSON-RPC result. Returns undefined when it did, else what went wrong.
 * `answer`: { status, contentType, text }.
 */
export function quirkProblem({ quirk, lane }, { status, contentType = "", text = "" }) {
  const accepts = quirk[lane].accepts;
  const sse = contentType.includes("text/event-stream");
  let body;
  try {
    body = JSON.parse(sse ? (text.split(/\r?\n/).find((l) => l.startsWith("data:") && l.slice(5).trim()) ?? "").slice(5) : text);
  } catch {
    body = undefined;
  }
  const said = body?.error ? `, JSON-RPC ${body.error.code}: ${body.error.message}` : "";
  if (status !== 200) return `answered HTTP ${status}${said}`;
  if (accepts === "json" && !contentType.includes("application/json"))
    return `answered ${contentType || "no Content-Type"}, which a client accepting only application/json cannot read`;
  if (accepts === "sse" && !sse)
    return `answered ${contentType || "no Content-Type"}, which a client accepting only text/event-stream cannot read`;
  if (!body?.result) return `answered no JSON-RPC result${said}`;
  return undefined;
}
