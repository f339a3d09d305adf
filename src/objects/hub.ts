/**
 * The notification hub: one Durable Object every listener registers with,
 * so one `notify` from any isolate reaches every open `subscriptions/listen`
 * stream (and, later, every 2025 session).
 *
 * Listeners connect over hibernatable WebSockets: the Worker holds the
 * client's SSE response and this object only holds the socket, so it can be
 * evicted between notifications without dropping anyone. Each socket's
 * filter lives in its attachment, which survives hibernation.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config";

/** What a listener wants, as honoured by the Worker (already narrowed to server capabilities). */
export interface HubFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

export interface HubNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** The frame the hub sends once a listener's filter is stored: notifications published after it will arrive. */
export const HUB_READY = "ready";

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
      // An update of a sub-resource reaches the subscriber of its parent URI too.
      return (filter.resourceSubscriptions ?? []).some((s) => uri === s || uri.startsWith(s.endsWith("/") ? s : `${s}/`));
    }
    default:
      return false;
  }
}

export class McpHub extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, subs TEXT NOT NULL)");
  }

  /** A 2025 session joins (or updates its resource subscriptions). */
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
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
    } catch {
      // already closed
    }
  }

  /** Sends a notification to every listener and session that asked for it; returns how many got it. */
  async publish(n: HubNotification): Promise<number> {
    const frame = JSON.stringify(n);
    let delivered = 0;
    // 2025 sessions: list changes reach all of them; resource updates only their subscribers.
    const sessions = this.ctx.storage.sql.exec<{ id: string; subs: string }>("SELECT id, subs FROM sessions").toArray();
    const targets = sessions.filter((s) => n.method !== "notifications/resources/updated" || wants({ resourceSubscriptions: JSON.parse(s.subs) }, n));
    await Promise.allSettled(targets.map((s) => this.env.MCP_SESSION.get(this.env.MCP_SESSION.idFromName(s.id)).deliver(n)));
    delivered += targets.length;
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

  /** Open listener sockets (for tests and the README's scale notes). */
  async listenerCount(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }
}
