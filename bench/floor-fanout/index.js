// The listen fan-out floor: the least a Worker can do to fan one notification out to many SSE
// streams through hub Durable Objects. Each POST /mcp opens a stream: the Worker joins one of
// HUB_SHARDS hub objects over a hibernatable WebSocket and answers with an SSE response it writes
// each frame of that socket to. POST /mcp/publish hands a frame to every shard, and each sends it
// to all its sockets once it has answered. No filter, principal, per-client limit, subscription id,
// keep-alive, log or resumption: only the sockets and the writes, behind the same platform parts as
// the engine test app (Static Assets first, one rate-limit call a request), so the engine's listen
// fan-out reads against what the platform's parts cost alone.
import { DurableObject } from "cloudflare:workers";

const encoder = new TextEncoder();
const SLICE = 16;
const ACK = JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: {} });

export class FloorHub extends DurableObject {
  async fetch() {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Sends after answering, SLICE sockets a turn, as the engine's hub does: frames sent in one turn
   * leave together after it, so slices let the first streams have theirs while the rest are sent.
   * That is the quickest way to many sockets found here, so the floor uses it too.
   */
  publish(frame) {
    const sockets = this.ctx.getWebSockets();
    const slice = (from) => {
      for (const ws of sockets.slice(from, from + SLICE)) ws.send(frame);
      if (from + SLICE < sockets.length) setTimeout(() => slice(from + SLICE), 0);
    };
    setTimeout(() => slice(0), 0);
    return sockets.length;
  }
}

const shards = (env) => Number(env.HUB_SHARDS ?? 8);
const hub = (env, i) => env.FLOOR_HUB.get(env.FLOOR_HUB.idFromName(`shard-${i}`));

/** The shard of a client: a hash of its address, as the engine places a client's streams. */
function shardOf(request, env) {
  const key = request.headers.get("CF-Connecting-IP") ?? "";
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return h % shards(env);
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST") return new Response("POST only", { status: 405 });
    const { success } = await env.MCP_RATE_LIMIT.limit({ key: request.headers.get("CF-Connecting-IP") ?? "local" });
    if (!success) return new Response("too many requests", { status: 429 });
    if (pathname === "/mcp/publish") {
      const frame = await request.text();
      const started = Date.now();
      const counts = await Promise.all(Array.from({ length: shards(env) }, (_, i) => hub(env, i).publish(frame)));
      return Response.json({ sent: counts.reduce((a, b) => a + b, 0), publishMs: Date.now() - started });
    }
    const ws = (await hub(env, shardOf(request, env)).fetch("https://hub/listen", { headers: { Upgrade: "websocket" } })).webSocket;
    ws.accept();
    // A readable stream fed by synchronous enqueues: the cheapest way found here to write SSE.
    let controller;
    const body = new ReadableStream({ start: (c) => void (controller = c), cancel: () => ws.close() });
    const event = (data) => controller.enqueue(encoder.encode(`event: message\ndata: ${data}\n\n`));
    ws.addEventListener("message", (e) => event(e.data));
    ws.addEventListener("close", () => controller.close());
    event(ACK);
    return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
  },
};
