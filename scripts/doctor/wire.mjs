// Why: a few checks must see the raw HTTP answer to a first request (a status, a header, an edge page)
// where the MCP client would only throw; these are those first requests as a hosted client sends them.
import { MCP_POST } from "./http.mjs";

const CLIENT_INFO = { name: "mcp-worker-template doctor", version: "0.1.0" };

/** 2026-07-28 `server/discover`, with the headers that revision requires. */
export const discoverRequest = (headers = {}) => ({
  method: "POST",
  headers: { ...MCP_POST, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover", ...headers },
  body: {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
      },
    },
  },
});

/** 2025-11-25 `initialize`: the first request of Claude's and ChatGPT's connectors today. */
export const initializeRequest = (headers = {}) => ({
  method: "POST",
  headers: { ...MCP_POST, ...headers },
  body: {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO },
  },
});

/** 2025-11-25 `tools/list` as a client that does not echo the session id sends it. */
export const sessionlessToolsList = (headers = {}) => ({
  method: "POST",
  headers: { ...MCP_POST, "MCP-Protocol-Version": "2025-11-25", ...headers },
  body: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
});

/** Ends a 2025 session the doctor opened with a raw initialize (a session it opens, it deletes). */
export const deleteSession = (sessionId, headers = {}) => ({
  method: "DELETE",
  headers: { "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sessionId, ...headers },
});
