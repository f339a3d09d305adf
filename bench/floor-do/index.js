// The session-lane floor: the cheapest path a 2025-11-25 request inside a session can take on
// Workers. The Worker forwards each request to the Durable Object its session header names and
// returns what that object answers (a fixed JSON-RPC-shaped body), so the MCP session lane's CPU
// per request reads against the cost of the Worker → Durable Object → Worker hop alone.
import { DurableObject } from "cloudflare:workers";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

export class FloorObject extends DurableObject {
  async fetch(request) {
    await request.arrayBuffer();
    return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  }
}

export default {
  fetch(request, env) {
    const name = request.headers.get("Mcp-Session-Id") ?? "default";
    return env.FLOOR_OBJECT.get(env.FLOOR_OBJECT.idFromName(name)).fetch(request);
  },
};
