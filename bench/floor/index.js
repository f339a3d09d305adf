// The floor: the cheapest Worker wrangler dev can serve, answering every request with a
// fixed JSON-RPC-shaped body. Its requests/s is the ceiling any /mcp handler can reach here.
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

export default {
  fetch() {
    return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  },
};
