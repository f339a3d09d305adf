// Why: the doctor is pointed at servers nobody vouches for, so what they answer must not reach the
// terminal raw (a control sequence retitles the window, clears the screen or writes the clipboard) nor
// be read whole (a 256 MiB answer). This is a small MCP-shaped server on 127.0.0.1 with one hostile or
// refusing behaviour per mode, for the doctor's e2e.
import { serveNode } from "./peers/serve.mjs";

/** ESC ] 0 (window title), ESC [ 2J (clear screen), OSC 52 (clipboard write), BEL, CR, C1 CSI, a bidi override. */
export const HOSTILE_TEXT = "\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;cHduZWQ=\u0007\rgone\u009b31m\u202eevil";

const HUGE_BYTES = 256 << 20;
const CHUNK = Buffer.alloc(64 << 10, " ");

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  try {
    return JSON.parse(Buffer.concat(chunks).toString() || "null");
  } catch {
    return null;
  }
}

const NOTE_TOOL = { name: "write_note", title: "Write a note", inputSchema: { type: "object" } };

/**
 * A 2025-11-25 server without sessions: initialize, tools/list with `tools` (one by default), resources/read
 * from `views` (uri → its `_meta`, read as an MCP Apps view), tools/call as `call` answers.
 * @param {(req: any, res: any, msg: any) => unknown} call
 * @param {{ tools?: Record<string, unknown>[], views?: Record<string, unknown> }} [options]
 */
function statelessMcp(call, { tools = [NOTE_TOOL], views = {} } = {}) {
  return async (req, res) => {
    if (req.method !== "POST") return json(res, 405, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed" } });
    const msg = await readJson(req);
    if (!msg || typeof msg !== "object")
      return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    if (msg.id === undefined) return res.writeHead(202).end();
    if (req.headers["mcp-protocol-version"] === "2026-07-28")
      return json(res, 400, { jsonrpc: "2.0", id: msg.id, error: { code: -32000, message: "Unsupported protocol version" } });
    if (msg.method === "initialize")
      return json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, ...(Object.keys(views).length ? { resources: {} } : {}) },
          serverInfo: { name: "hostile", version: "1.0.0" },
        },
      });
    if (msg.method === "tools/list")
      return json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: { tools },
      });
    const view = msg.method === "resources/read" ? views[msg.params?.uri] : undefined;
    if (view)
      return json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: {
          contents: [{ uri: msg.params.uri, mimeType: "text/html;profile=mcp-app", text: "<!doctype html><p>view</p>", _meta: view }],
        },
      });
    if (msg.method === "tools/call") return call(req, res, msg);
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  };
}

/** A tool whose declared output needs 2,000 rows of at least 32 characters: about 80,000 characters at its least. */
const EXPORT_TOOL = {
  name: "export_rows",
  title: "Export every row",
  inputSchema: { type: "object" },
  outputSchema: {
    type: "object",
    required: ["rows"],
    properties: {
      rows: {
        type: "array",
        minItems: 2000,
        items: { type: "object", required: ["id"], properties: { id: { type: "string", minLength: 32 } } },
      },
    },
  },
};
/** A tool whose output has no bound (information, not a fault), and one bounded well within the hosts' limit. */
const OPEN_TOOL = {
  name: "search",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { hits: { type: "array" } } },
};
const SMALL_TOOL = {
  name: "ping",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", additionalProperties: false, properties: { ok: { type: "boolean" } } },
};
const viewTool = (name, uri) => ({ name, inputSchema: { type: "object" }, _meta: { ui: { resourceUri: uri }, "ui/resourceUri": uri } });
/** Claude's domain for https://elsewhere.example/mcp (a view made for another server's URL). */
export const ELSEWHERE_DOMAIN = "e9c3973fd8f0554d05a78511abc1ee8f.claudemcpcontent.com";

const MODES = {
  /**
   * Declarations a host cannot honour: a tool whose output cannot fit the hosts' limit, a view whose
   * domain is not Claude's form (and whose CSP names a host, not an origin), and one whose domain Claude
   * derives from another URL.
   */
  misdeclared: statelessMcp(() => undefined, {
    tools: [
      EXPORT_TOOL,
      OPEN_TOOL,
      SMALL_TOOL,
      viewTool("chart", "ui://misdeclared/chart.html"),
      viewTool("map", "ui://misdeclared/map.html"),
    ],
    views: {
      "ui://misdeclared/chart.html": { ui: { domain: "https://chart.example.com", csp: { connectDomains: ["api.example.com"] } } },
      "ui://misdeclared/map.html": { ui: { domain: ELSEWHERE_DOMAIN } },
    },
  }),
  /** Every request is refused with a JSON-RPC error whose message is control sequences. */
  escapes: (req, res) => json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32600, message: HOSTILE_TEXT } }),
  /** Every request gets a 200 JSON answer of 256 MiB, made as it is sent; the largest part sent is recorded. */
  huge: (_req, res, seen) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(HUGE_BYTES) });
    let sent = 0;
    const more = () => {
      while (sent < HUGE_BYTES) {
        sent += CHUNK.length;
        seen.largest = Math.max(seen.largest, sent);
        if (!res.write(CHUNK)) return res.once("drain", more);
      }
      res.end();
    };
    res.on("close", () => res.removeAllListeners("drain"));
    more();
  },
  /** A healthy stateless server whose one tool needs a scope the token lacks (RFC 6750 §3.1). */
  "scope-403": statelessMcp((req, res, msg) =>
    json(
      res,
      403,
      { jsonrpc: "2.0", id: msg.id, error: { code: -32003, message: "Insufficient scope" } },
      {
        "www-authenticate": `Bearer error="insufficient_scope", scope="notes:write", resource_metadata="http://${req.headers.host}/.well-known/oauth-protected-resource/mcp"`,
      },
    ),
  ),
};

/** Starts the server in `mode`; returns its origin, stop() and what it saw (`largest`: bytes of the longest answer sent). */
export async function startHostileServer(mode) {
  const handle = MODES[mode];
  if (!handle) throw new Error(`no hostile mode ${mode}`);
  const seen = { largest: 0 };
  const server = await serveNode((req, res) => {
    if (!req.url.startsWith("/mcp")) return json(res, 404, { error: "not found" });
    return handle(req, res, seen);
  });
  return { ...server, seen };
}
