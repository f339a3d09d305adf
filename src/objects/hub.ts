/**
 * A notification hub shard. HUB_SHARDS of them share the listeners (addresses.ts
 * places them); a publish reaches every shard, and each shard reaches the
 * `subscriptions/listen` streams and the 2025 sessions it holds.
 *
 * Listeners connect over hibernatable WebSockets: the Worker holds the
 * client's SSE response and this object only holds the socket, so it can be
 * evicted between notifications without dropping anyone. Each socket's
 * filter lives in its attachment, which survives hibernation; a filter too
 * large for an attachment lives in the shard's storage under a key the
 * attachment holds.
 *
 * A shard answers `publish` as soon as it knows who gets the notification, and
 * sends right after, DRAIN_BATCH sockets per turn: the publisher waits for one
 * call per shard, never for the deliveries (an object with work pending is not
 * evicted, and the sends keep publish order on every socket). The frame is built
 * once per publish (frames.ts); each listen stream only adds its subscription id.
 *
 * 2025 sessions are objects of their own, so reaching one is a call (hub-relay.ts
 * makes them, through relay objects of this class when they are many). A
 * shard answers such a publish once the notification and its sessions are one
 * row of its outbox, with an alarm set: the sends follow, one notification after
 * the other, and the row goes when every session has it. A shard evicted
 * mid-way finishes at its alarm, and a session that could not be reached is
 * tried again, so a session may get a notification twice but never misses one.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { coversUri } from "../mcp/guards";
import { HUB_READY, TASK_NOTIFICATION, type HubListener, type ListenRefusal, type HubNotification, type HubRelayRpc, type HubShardRpc } from "./contracts";
import { notificationFrame } from "./frames";
import { relayToSessions } from "./hub-relay";
import { closeFromPeer } from "./sockets";

function wants(filter: HubListener, n: HubNotification): boolean {
  if (n.principal !== undefined && (filter.principal ?? "") !== n.principal) return false;
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
    case TASK_NOTIFICATION: {
      const taskId = n.params?.taskId;
      return typeof taskId === "string" && (filter.taskIds ?? []).includes(taskId);
    }
    default:
      return false;
  }
}

/**
 * A socket attachment holds at most 2,048 bytes once serialized; filters whose JSON is longer than
 * this (many or long resource URIs or task ids) are stored in SQLite instead, leaving room for the encoding.
 */
const INLINE_FILTER_CHARS = 960;

/** How long a shard waits before it sends what is left of its outbox again (after an eviction, or to a session that failed). */
const REDELIVER_MS = 2_000;

/** Sends of one notification to a session that fails before it is given up (the session is gone). */
const MAX_ATTEMPTS = 5;

/**
 * Listen sockets a shard sends to in one turn before it yields. Frames sent in one turn leave
 * together after it, so a shard that sent to all its listeners at once would hold every frame until
 * the last was queued; in slices, the first streams get theirs while the rest are still being sent
 * (under `wrangler dev`, where everything shares one thread, this halves the median delivery time),
 * and a filter frame or another publish arriving meanwhile waits for one slice, not for all of them.
 */
export const DRAIN_BATCH = 16;

/** Characters of stored filters one shard keeps in memory (about 16 MB of its isolate's 128 MB). */
const STORED_CACHE_CHARS = 8 * 1024 * 1024;

/** Socket tags: the client a listen socket belongs to, and the bytes of the filter it was admitted with. */
const clientTag = (client: string) => `client:${client}`;
const BYTES_TAG = "bytes:";

/** A socket's attachment: its filter, or the key of the filter in storage. */
type Attachment = HubListener | { stored: string };

function storedKey(ws: WebSocket): string | undefined {
  const a = ws.deserializeAttachment() as Attachment | null;
  return a && "stored" in a ? a.stored : undefined;
}

export class McpHub extends DurableObject<Env> implements HubShardRpc, HubRelayRpc {
  /**
   * Each socket's filter once read in this instance, so a publish decodes no attachment and reads no
   * row. Stored filters (up to 512 KiB each at the listen caps) are kept only while they add up to
   * STORED_CACHE_CHARS; past that they are read from SQLite at each publish, so memory stays bounded.
   */
  private readonly socketFilters = new WeakMap<WebSocket, HubListener>();
  private readonly storedSizes = new Map<string, number>();
  private storedChars = 0;
  /** Notifications accepted and not sent yet, in publish order, with the sockets each goes to. */
  private readonly outbox: { frame: string; sockets: WebSocket[] }[] = [];
  /** Sockets of the oldest notification in the outbox already sent to. */
  private sent = 0;
  /** The sessions' deliveries from the outbox, one at a time, so each session gets them in order. */
  private sessionsDone: Promise<unknown> = Promise.resolve();
  private schemaReady = false;

  /** The tables, created on first use: a relay never uses them, so it keeps no storage. */
  private get sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.schemaReady) {
      sql.exec(`
        CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, subs TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS listen_filters (key TEXT PRIMARY KEY, filter TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS session_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, notification TEXT NOT NULL, ids TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0);
      `);
      this.schemaReady = true;
    }
    return sql;
  }

  async register(sessionId: string, subscriptions: string[]): Promise<void> {
    this.sql.exec("INSERT OR REPLACE INTO sessions (id, subs) VALUES (?, ?)", sessionId, JSON.stringify(subscriptions));
  }

  async unregister(sessionId: string): Promise<void> {
    this.sql.exec("DELETE FROM sessions WHERE id = ?", sessionId);
  }

  /**
   * A new listen socket for `client` (a tag from addresses.ts `listenerPlace`), whose filter frame
   * will be at most `bytes` long, under the Worker's MAX_LISTEN_STREAMS (`streams`) and
   * MAX_LISTEN_FILTER_BYTES (`budget`). Every stream of a client comes to this shard, so its sockets
   * here are all of them: over either bound it is refused with 429. Count and bytes live in the
   * socket's tags, which survive hibernation, and a socket that closes stops counting by itself.
   */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const params = new URL(request.url).searchParams;
    const client = params.get("client") ?? "";
    const [bytes, streams, budget] = ["bytes", "streams", "budget"].map((k) => Number(params.get(k)));
    if (!client || ![bytes, streams, budget].every((n) => Number.isSafeInteger(n) && n! >= 0))
      return new Response("a listen socket names its client, its filter's bytes and the client's bounds", { status: 400 });
    const held = this.ctx.getWebSockets(clientTag(client));
    const refuse = (why: ListenRefusal) => new Response(why, { status: 429 });
    if (held.length >= streams!) return refuse("streams");
    if (held.reduce((sum, ws) => sum + this.filterBytes(ws), bytes!) > budget!) return refuse("filter-bytes");
    const [peer, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [clientTag(client), `${BYTES_TAG}${bytes}`]);
    return new Response(null, { status: 101, webSocket: peer });
  }

  /** The filter bytes a socket was admitted with. */
  private filterBytes(ws: WebSocket): number {
    const tag = this.ctx.getTags(ws).find((t) => t.startsWith(BYTES_TAG));
    return tag ? Number(tag.slice(BYTES_TAG.length)) : 0;
  }

  /** The only frame a listener sends is its filter (with its principal), no longer than it was admitted with. */
  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") return;
    // A string's UTF-16 length is never more than its UTF-8 bytes.
    if (message.length > this.filterBytes(ws)) return ws.close(1008, "filter larger than admitted");
    try {
      const filter = JSON.parse(message) as HubListener;
      let inline = message.length <= INLINE_FILTER_CHARS;
      if (inline) {
        try {
          ws.serializeAttachment(filter);
        } catch {
          inline = false;
        }
      }
      if (!inline) {
        this.socketFilters.delete(ws);
        ws.serializeAttachment(this.storeFilter(message));
        this.keepStored(ws, storedKey(ws)!, filter, message.length);
      } else this.socketFilters.set(ws, filter);
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

  private storeFilter(json: string): Attachment {
    const key = crypto.randomUUID();
    const sql = this.sql;
    // Filters of sockets that went away without a close event (a restart) go when a new one comes.
    const live = new Set(this.ctx.getWebSockets().flatMap((ws) => storedKey(ws) ?? []));
    for (const { key: old } of sql.exec<{ key: string }>("SELECT key FROM listen_filters").toArray()) {
      if (!live.has(old)) sql.exec("DELETE FROM listen_filters WHERE key = ?", old);
    }
    sql.exec("INSERT INTO listen_filters (key, filter) VALUES (?, ?)", key, json);
    return { stored: key };
  }

  /** Caches a stored filter for its socket while the cache has room. */
  private keepStored(ws: WebSocket, key: string, filter: HubListener, chars: number): void {
    if (this.storedChars + chars > STORED_CACHE_CHARS) return;
    this.storedChars += chars;
    this.storedSizes.set(key, chars);
    this.socketFilters.set(ws, filter);
  }

  private forget(ws: WebSocket): void {
    const key = storedKey(ws);
    if (key === undefined) return;
    this.storedChars -= this.storedSizes.get(key) ?? 0;
    this.storedSizes.delete(key);
    this.sql.exec("DELETE FROM listen_filters WHERE key = ?", key);
  }

  private filterOf(ws: WebSocket): HubListener | null {
    const cached = this.socketFilters.get(ws);
    if (cached !== undefined) return cached;
    const a = ws.deserializeAttachment() as Attachment | null;
    // No attachment yet: the filter frame has not come (nothing to cache).
    if (!a) return null;
    if (!("stored" in a)) {
      this.socketFilters.set(ws, a);
      return a;
    }
    const row = this.sql.exec<{ filter: string }>("SELECT filter FROM listen_filters WHERE key = ?", a.stored).toArray()[0];
    if (!row) return null;
    const filter = JSON.parse(row.filter) as HubListener;
    if (!this.storedSizes.has(a.stored)) this.keepStored(ws, a.stored, filter, row.filter.length);
    return filter;
  }

  /** Accepts a notification and answers how many listeners and sessions it goes to; the sends follow. */
  async publish(n: HubNotification): Promise<number> {
    // Who gets it is decided now: every listener acknowledged before this call is among the sockets.
    const sockets = this.ctx.getWebSockets().filter((ws) => {
      const filter = this.filterOf(ws);
      return filter !== null && wants(filter, n);
    });
    if (sockets.length > 0) {
      this.outbox.push({ frame: notificationFrame(n), sockets });
      // After this call's answer: the publisher does not wait for the sends.
      if (this.outbox.length === 1) setTimeout(() => this.drain(), 0);
    }
    // Task notifications are for listen streams only (2025 sessions have no tasks extension).
    if (n.method === TASK_NOTIFICATION) return sockets.length;
    // 2025 sessions: list changes reach all of them; resource updates only their subscribers.
    const sessions = this.sql.exec<{ id: string; subs: string }>("SELECT id, subs FROM sessions").toArray();
    // (A principal's notifications are sorted by each session, which knows its principal.)
    const uri = String(n.params?.uri ?? "");
    const targets =
      n.method === "notifications/resources/updated" ? sessions.filter((s) => (JSON.parse(s.subs) as string[]).some((sub) => coversUri(sub, uri))) : sessions;
    if (targets.length > 0) {
      this.sql.exec("INSERT INTO session_outbox (notification, ids) VALUES (?, ?)", JSON.stringify(n), JSON.stringify(targets.map((s) => s.id)));
      await this.ctx.storage.setAlarm(Date.now() + REDELIVER_MS);
      this.sendToSessions();
    }
    return sockets.length + targets.length;
  }

  /** Sends every accepted notification, oldest first, DRAIN_BATCH sockets per turn. */
  private drain(): void {
    let budget = DRAIN_BATCH;
    for (let next = this.outbox[0]; next; next = this.outbox[0]) {
      const { frame, sockets } = next;
      const end = Math.min(sockets.length, this.sent + budget);
      budget -= end - this.sent;
      for (; this.sent < end; this.sent++) {
        try {
          sockets[this.sent]!.send(frame);
        } catch {
          // a socket closing under us; its close handler cleans up
        }
      }
      if (this.sent < sockets.length) {
        setTimeout(() => this.drain(), 0);
        return;
      }
      this.outbox.shift();
      this.sent = 0;
    }
  }

  /** Sends the outbox to its sessions, oldest first; what fails stays for the alarm. */
  private sendToSessions(): Promise<unknown> {
    this.sessionsDone = this.sessionsDone.then(() => this.drainOutbox()).catch((err) => console.error("hub: a session delivery failed:", err));
    return this.sessionsDone;
  }

  private async drainOutbox(): Promise<void> {
    const sql = this.sql;
    for (;;) {
      const row = sql.exec<{ seq: number; notification: string; ids: string; attempts: number }>("SELECT * FROM session_outbox ORDER BY seq LIMIT 1").toArray()[0];
      if (!row) return this.ctx.storage.deleteAlarm();
      const failed = await this.relay(JSON.parse(row.ids) as string[], JSON.parse(row.notification) as HubNotification);
      if (failed.length === 0 || row.attempts + 1 >= MAX_ATTEMPTS) {
        if (failed.length > 0) console.error(`hub: ${failed.length} sessions could not be reached ${MAX_ATTEMPTS} times; their notification is dropped`);
        sql.exec("DELETE FROM session_outbox WHERE seq = ?", row.seq);
        continue;
      }
      // The later notifications wait too, so no session gets them out of order.
      sql.exec("UPDATE session_outbox SET ids = ?, attempts = attempts + 1 WHERE seq = ?", JSON.stringify(failed), row.seq);
      return this.ctx.storage.setAlarm(Date.now() + REDELIVER_MS);
    }
  }

  /** What an eviction or a failed session left in the outbox. */
  async alarm(): Promise<void> {
    await this.sendToSessions();
  }

  /** The relay role (hub-relay.ts): delivers `n` to these sessions, and answers those it could not reach. */
  relay(sessionIds: string[], n: HubNotification): Promise<string[]> {
    return relayToSessions(this.env, this.ctx.id, sessionIds, n);
  }
}
