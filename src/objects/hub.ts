/**
 * The notification hub: one Durable Object every listener registers with,
 * so one `notify` from any isolate reaches every open `subscriptions/listen`
 * stream and every 2025 session.
 *
 * Listeners connect over hibernatable WebSockets: the Worker holds the
 * client's SSE response and this object only holds the socket, so it can be
 * evicted between notifications without dropping anyone. Each socket's
 * filter lives in its attachment, which survives hibernation; a filter too
 * large for an attachment lives in the hub's storage under a key the
 * attachment holds.
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

/**
 * A socket attachment holds at most 2,048 bytes once serialized; filters whose JSON is longer than
 * this (many or long resource URIs) are stored in SQLite instead, leaving room for the encoding.
 */
const INLINE_FILTER_CHARS = 960;

/** A socket's attachment: its filter, or the key of the filter in storage. */
type Attachment = HubFilter | { stored: string };

function storedKey(ws: WebSocket): string | undefined {
  const a = ws.deserializeAttachment() as Attachment | null;
  return a && "stored" in a ? a.stored : undefined;
}

export class McpHub extends DurableObject<Env> implements HubRpc {
  /** Stored filters already read, by key (lost with the instance, read again on demand). */
  private readonly filters = new Map<string, HubFilter>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, subs TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS listen_filters (key TEXT PRIMARY KEY, filter TEXT NOT NULL);
    `);
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
      const filter = JSON.parse(message) as HubFilter;
      let inline = message.length <= INLINE_FILTER_CHARS;
      if (inline) {
        try {
          ws.serializeAttachment(filter);
        } catch {
          inline = false;
        }
      }
      if (!inline) ws.serializeAttachment(this.storeFilter(filter, message));
      ws.send(HUB_READY);
    } catch {
      ws.close(1008, "invalid filter");
    }
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.forget(ws);
    closeFromPeer(ws, code);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.forget(ws);
  }

  private storeFilter(filter: HubFilter, json: string): Attachment {
    const key = crypto.randomUUID();
    const sql = this.ctx.storage.sql;
    // Filters of sockets that went away without a close event (a restart) go when a new one comes.
    const live = new Set(this.ctx.getWebSockets().flatMap((ws) => storedKey(ws) ?? []));
    for (const { key: old } of sql.exec<{ key: string }>("SELECT key FROM listen_filters").toArray()) {
      if (!live.has(old)) sql.exec("DELETE FROM listen_filters WHERE key = ?", old);
    }
    sql.exec("INSERT INTO listen_filters (key, filter) VALUES (?, ?)", key, json);
    this.filters.set(key, filter);
    return { stored: key };
  }

  private forget(ws: WebSocket): void {
    const key = storedKey(ws);
    if (key === undefined) return;
    this.filters.delete(key);
    this.ctx.storage.sql.exec("DELETE FROM listen_filters WHERE key = ?", key);
  }

  private filterOf(ws: WebSocket): HubFilter | null {
    const a = ws.deserializeAttachment() as Attachment | null;
    if (!a || !("stored" in a)) return a;
    let filter = this.filters.get(a.stored);
    if (!filter) {
      const row = this.ctx.storage.sql.exec<{ filter: string }>("SELECT filter FROM listen_filters WHERE key = ?", a.stored).toArray()[0];
      if (!row) return null;
      filter = JSON.parse(row.filter) as HubFilter;
      this.filters.set(a.stored, filter);
    }
    return filter;
  }

  async publish(n: HubNotification): Promise<number> {
    const frame = JSON.stringify(n);
    // 2025 sessions: list changes reach all of them; resource updates only their subscribers.
    const sessions = this.ctx.storage.sql.exec<{ id: string; subs: string }>("SELECT id, subs FROM sessions").toArray();
    const targets = sessions.filter((s) => n.method !== "notifications/resources/updated" || wants({ resourceSubscriptions: JSON.parse(s.subs) }, n));
    await Promise.allSettled(targets.map((s) => sessionStub(this.env, s.id).deliver(n)));
    let delivered = targets.length;
    for (const ws of this.ctx.getWebSockets()) {
      const filter = this.filterOf(ws);
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
