// The session-lane floor with a log line: the Worker → Durable Object → Worker hop of bench/floor-do,
// and the object writes one JSON log line of the same fields and length as the 2025-11-25
// tools/call's request line, which the engine writes from the session's object. Against this, the
// session lane's Worker CPU per call shows what the engine's own code costs apart from the hop and
// the one line per request that LOG_REQUESTS=all (the default) writes.
import { DurableObject } from "cloudflare:workers";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

export class FloorObject extends DurableObject {
  async fetch(request) {
    const started = Date.now();
    await request.arrayBuffer();
    // The engine's line names the session by a 16-hex-digit hash.
    const session = this.ctx.id.toString().slice(0, 16);
    console.log(
      JSON.stringify({
        mcp: "request",
        revision: "2025-11-25",
        lane: "legacy",
        method: "tools/call",
        name: "convert_temperature",
        outcome: "result",
        durationMs: Date.now() - started,
        session,
      }),
    );
    return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  }
}

export default {
  fetch(request, env) {
    const name = request.headers.get("Mcp-Session-Id") ?? "default";
    return env.FLOOR_OBJECT.get(env.FLOOR_OBJECT.idFromName(name)).fetch(request);
  },
};
