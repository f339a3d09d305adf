/**
 * The notification hub: one Durable Object every listener registers with,
 * so one `notify` from any isolate reaches every open `subscriptions/listen`
 * stream and every 2025 session.
 *
 * Listeners connect over hibernatable WebSockets: the Worker holds the
 * client's SSE response and this object only holds the socket, so it can be
 * evicted between notifications without dropping anyone. Each socket's
 * filter lives in its attachment, which survives hibernation.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { coversUri } from "../mcp/guards";
import { sessionStub } from "./addresses";
import { HUB_READY, type HubFilter, type HubNotification, type HubRpc } from "./contracts";
import { closeFromPeer } from "./sockets";

function wants(filter: HubFilter, n: HubNotification): boolean {
  switch (n.method) {
    case "notifications/tools/list_changed":
      return filter.toolsListChanged === true;
    case "notifications/prompts/list_changed":
      return filter.promptsListChanged === true;
    case "notifications/resources/list_changed":
      return filter.resourcesListChanged === true;
    case "notifications/resources/updated": {
      const uri = String(n.params?.uri ?? "");
      return (filter.resourceSubscriptions ?? []).some((s) => coversUri(s, uri));
    }
    default:
      return false;
  }
}

export class McpHub extends DurableObject<Env> implements HubRpc {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, subs TEXT NOT NULL)");
  }

  async register(sessionId: string, subscriptions: string[]): Promise<void> {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO sessions (id, subs) VALUES (?, ?)", sessionId, JSON.stringify(subscriptions));
  }

  async unregister(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM sessions WHERE id = ?", sessionId);
  }

  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The only frame a listener sends is its filter. */
  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") return;
    try {
      ws.serializeAttachment(JSON.parse(message) as HubFilter);
      ws.send(HUB_READY);
    } catch {
      ws.close(1008, "invalid filter");
    }
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    closeFromPeer(ws, code);
  }

  async publish(n: HubNotification): Promise<number> {
    const frame = JSON.stringify(n);
    // 2025 sessions: list changes reach all of them; resource updates only their subscribers.
    const sessions = this.ctx.storage.sql.exec<{ id: string; subs: string }>("SELECT id, subs FROM sessions").toArray();
    const targets = sessions.filter((s) => n.method !== "notifications/resources/updated" || wants({ resourceSubscriptions: JSON.parse(s.subs) }, n));
    await Promise.allSettled(targets.map((s) => sessionStub(this.env, s.id).deliver(n)));
    let delivered = targets.length;
    for (const ws of this.ctx.getWebSockets()) {
      const filter = ws.deserializeAttachment() as HubFilter | null;
      if (!filter || !wants(filter, n)) continue;
      try {
        ws.send(frame);
        delivered++;
      } catch {
        // a socket closing under us; its close handler cleans up
      }
    }
    return delivered;
  }
}
