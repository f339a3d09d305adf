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
 * A 2025 session's GET stream is a socket here too, opened by the Worker that
 * holds the stream (hub-sessions.ts): a publish is one row of the shard's
 * session log, stored before the publisher has its answer, and one frame per
 * socket sent after it. A client whose stream was down (the Worker or the
 * shard restarted, its connection dropped) gets the rows it missed when it
 * resumes with Last-Event-ID; no session object is called.
 */
import { DurableObject } from "./durable-object";
import { readConfig } from "../config";
import type { Env } from "../env";
import { coversUri } from "../mcp/guards";
import {
  EVENT_NOTIFICATION,
  HUB_READY,
  HUB_SEQ_HEADER,
  TASK_NOTIFICATION,
  type HubListener,
  type HubNotification,
  type HubSessionFrame,
  type HubShardRpc,
  type ListenRefusal,
} from "./contracts";
import { inSpan } from "../mcp/tracing";
import { tracerFor } from "../reporting";
import { notificationFrame } from "./frames";
import { HubSessionLog, SESSION_SOCKET_TAG, isSessionSocket, sessionFrameOf, sessionWants, type SessionSocket } from "./hub-sessions";
import { acceptSocket, closeFromPeer } from "./sockets";

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
    case EVENT_NOTIFICATION: {
      // A stream's argument that the emit's match names must equal it; one it left out filters nothing.
      const e = filter.event;
      return (
        e !== undefined &&
        e.name === n.params?.name &&
        Object.entries(n.match ?? {}).every(([k, v]) => !Object.hasOwn(e.args, k) || e.args[k] === v)
      );
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

/**
 * Socket tags: the client a listen socket belongs to, and the bytes of the filter it was admitted with.
 * An events/stream socket (`kind=events`) carries its own client tag: its streams and filter bytes are
 * counted apart from the client's `subscriptions/listen` streams, so neither kind can use up the other's bound.
 */
const clientTag = (client: string, kind: string | null = null) => (kind === "events" ? `events:${client}` : `client:${client}`);
const BYTES_TAG = "bytes:";

/** A listen socket's attachment: its filter, or the key of the filter in storage; a 2025 GET stream's: its session. */
type Attachment = HubListener | { stored: string } | SessionSocket;

function storedKey(ws: WebSocket): string | undefined {
  const a = ws.deserializeAttachment() as Attachment | null;
  return a && "stored" in a ? a.stored : undefined;
}

export class McpHub extends DurableObject<Env> implements HubShardRpc {
  /**
   * Each socket's filter once read in this instance, so a publish decodes no attachment and reads no
   * row. Stored filters (up to 512 KiB each at the listen caps) are kept only while they add up to
   * STORED_CACHE_CHARS; past that they are read from SQLite at each publish, so memory stays bounded.
   */
  private readonly socketFilters = new WeakMap<WebSocket, HubListener>();
  private readonly storedSizes = new Map<string, number>();
  private storedChars = 0;
  /** The 2025 GET streams' sockets once read in this instance, and whose they are. */
  private readonly seats = new WeakMap<WebSocket, SessionSocket>();
  /** Notifications accepted and not sent yet, in publish order, with the sockets each goes to. */
  private readonly outbox: { frame: string; sockets: WebSocket[] }[] = [];
  /** Sockets of the oldest notification in the outbox already sent to. */
  private sent = 0;
  private schemaReady = false;
  private readonly sessionLog = new HubSessionLog(
    () => this.ctx.storage.sql,
    () => readConfig(this.env).sessionIdleMs,
  );

  /** The tables, created on first use: a shard nobody registered with keeps no storage. */
  private get sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.schemaReady) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, subs TEXT NOT NULL);" +
          "CREATE TABLE IF NOT EXISTS listen_filters (key TEXT PRIMARY KEY, filter TEXT NOT NULL)",
      );
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
   * will be at most `bytes` long, under the Worker's MAX_LISTEN_STREAMS (`streams`; MAX_EVENT_STREAMS
   * for an events/stream, `kind=events`, counted apart) and MAX_LISTEN_FILTER_BYTES (`budget`). Every stream of a client comes to this shard, so its sockets
   * here are all of them: over either bound it is refused with 429. Count and bytes live in the
   * socket's tags, which survive hibernation, and a socket that closes stops counting by itself.
   */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const url = new URL(request.url);
    const params = url.searchParams;
    if (url.pathname === "/session") return this.sessionSocket(params);
    const client = params.get("client") ?? "";
    const [bytes, streams, budget] = ["bytes", "streams", "budget"].map((k) => Number(params.get(k)));
    if (!client || ![bytes, streams, budget].every((n) => Number.isSafeInteger(n) && n! >= 0))
      return new Response("a listen socket names its client, its filter's bytes and the client's bounds", { status: 400 });
    const tag = clientTag(client, params.get("kind"));
    const held = this.ctx.getWebSockets(tag);
    const refuse = (why: ListenRefusal) => new Response(why, { status: 429 });
    if (held.length >= streams!) return refuse("streams");
    if (held.reduce((sum, ws) => sum + this.filterBytes(ws), bytes!) > budget!) return refuse("filter-bytes");
    return acceptSocket(this.ctx, [tag, `${BYTES_TAG}${bytes}`])[1];
  }

  /**
   * A 2025 GET stream's socket for `session` (whose principal is `principal`): from now on
   * (`after` -1), or replaying the rows after `after` first. Only the Worker reaches this object,
   * and only for a stream the session admitted, so the session's stream limit bounds these sockets.
   * The answer's HUB_SEQ_HEADER is the client's place in the log as of this socket's first frame.
   */
  private sessionSocket(params: URLSearchParams): Response {
    const seat = { session: params.get("session") ?? "", principal: params.get("principal") ?? "" };
    const after = Number(params.get("after"));
    if (!seat.session || !Number.isSafeInteger(after) || after < -1)
      return new Response("a session socket names its session and its place in the log", { status: 400 });
    const at = after >= 0 ? after : this.sessionLog.head();
    const [server, response] = acceptSocket(this.ctx, [SESSION_SOCKET_TAG], { [HUB_SEQ_HEADER]: String(at) });
    server.serializeAttachment(seat);
    this.seats.set(server, seat);
    // The replay and the socket's joining happen in one turn: every later publish includes it. (A
    // resuming stream has had its replay from missedBy: this covers only what came in between.)
    if (after >= 0) for (const frame of this.framesFor(seat, after)) server.send(JSON.stringify(frame));
    return response;
  }

  async missedBy(seat: SessionSocket, after: number): Promise<{ frames: HubSessionFrame[]; head: number }> {
    return { frames: this.framesFor(seat, after), head: Math.max(after, this.sessionLog.head()) };
  }

  /** The rows of the session log after `after` that are for this session, as its socket gets them. */
  private framesFor(seat: SessionSocket, after: number): HubSessionFrame[] {
    const subscriptions = this.subscriptions();
    const frames: HubSessionFrame[] = [];
    for (const { seq, n } of this.sessionLog.after(after)) if (sessionWants(n, seat, subscriptions)) frames.push(sessionFrameOf(seq, n));
    return frames;
  }

  /** Each registered session's resource subscriptions, read once when first asked. */
  private subscriptions(): (session: string) => string[] {
    let subs: Map<string, string[]> | undefined;
    return (session) => {
      subs ??= new Map(
        this.sql
          .exec<{ id: string; subs: string }>("SELECT id, subs FROM sessions")
          .toArray()
          .map((r) => [r.id, JSON.parse(r.subs) as string[]]),
      );
      return subs.get(session) ?? [];
    };
  }

  /** The filter bytes a socket was admitted with. */
  private filterBytes(ws: WebSocket): number {
    const tag = this.ctx.getTags(ws).find((t) => t.startsWith(BYTES_TAG));
    return tag ? Number(tag.slice(BYTES_TAG.length)) : 0;
  }

  /** The only frame a listener sends is its filter (with its principal), no longer than it was admitted with. */
  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // A 2025 GET stream's socket only receives.
    if (typeof message !== "string" || this.seatOf(ws)) return;
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

  /** The session a 2025 GET stream's socket feeds; undefined for a listen socket. */
  private seatOf(ws: WebSocket): SessionSocket | undefined {
    let seat = this.seats.get(ws);
    if (seat === undefined && !this.socketFilters.has(ws)) {
      const a = ws.deserializeAttachment() as Attachment | null;
      if (isSessionSocket(a)) this.seats.set(ws, (seat = a));
    }
    return seat;
  }

  /** A listen socket's filter; null before its filter frame, and for a 2025 GET stream's socket. */
  private filterOf(ws: WebSocket): HubListener | null {
    const cached = this.socketFilters.get(ws);
    if (cached !== undefined) return cached;
    if (this.seatOf(ws)) return null;
    const a = ws.deserializeAttachment() as Exclude<Attachment, SessionSocket> | null;
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

  /** Accepts a notification and answers how many listen streams and 2025 GET streams it goes to; the sends follow. */
  publish(n: HubNotification): Promise<number> {
    // The span of this shard's part of a notification: how many streams it goes to.
    return inSpan(tracerFor(readConfig(this.env)), n.method, async (span) => {
      const deliveries = this.accept(n);
      span?.setAttributes({ "mcp.hub.deliveries": deliveries });
      return deliveries;
    });
  }

  private accept(n: HubNotification): number {
    // Who gets it is decided now: every listener acknowledged before this call is among the sockets.
    const listeners: WebSocket[] = [];
    const seats: [WebSocket, SessionSocket][] = [];
    for (const ws of this.ctx.getWebSockets()) {
      const filter = this.filterOf(ws);
      if (filter !== null) {
        if (wants(filter, n)) listeners.push(ws);
        continue;
      }
      const seat = this.seatOf(ws);
      if (seat) seats.push([ws, seat]);
    }
    this.send(listeners, () => notificationFrame(n));
    // Task notifications and event occurrences are for listen and event streams only (2025 sessions have neither extension).
    if (n.method === TASK_NOTIFICATION || n.method === EVENT_NOTIFICATION || !this.hasSessions()) return listeners.length;
    // Stored even when no stream is connected: a client that resumes gets it from the log.
    const seq = this.sessionLog.append(n, Date.now());
    const subscriptions = this.subscriptions();
    const streams = seats.filter(([, seat]) => sessionWants(n, seat, subscriptions)).map(([ws]) => ws);
    this.send(streams, () => JSON.stringify(sessionFrameOf(seq, n)));
    return listeners.length + streams.length;
  }

  private hasSessions(): boolean {
    return this.sql.exec("SELECT 1 FROM sessions LIMIT 1").toArray().length > 0;
  }

  /** Queues one frame for these sockets, sent after this call's answer: the publisher does not wait for the sends. */
  private send(sockets: WebSocket[], frame: () => string): void {
    if (sockets.length === 0) return;
    this.outbox.push({ frame: frame(), sockets });
    if (this.outbox.length === 1) setTimeout(() => this.drain(), 0);
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

  /** An alarm an earlier version set for its sessions' outbox, which this one does without. */
  async alarm(): Promise<void> {
    this.ctx.storage.sql.exec("DROP TABLE IF EXISTS session_outbox");
  }
}
