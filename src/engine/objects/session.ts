/**
 * One 2025-11-25 session: a Durable Object with SQLite storage (see
 * session-store.ts). The Worker calls its RPC methods for each POST, GET and
 * DELETE, and pipes its streams to the client over hibernatable WebSockets,
 * so an idle session sleeps while its client holds an SSE stream open.
 * A session that holds no state (no stream, pending request, subscription,
 * log level or task) stores nothing and has no alarm: each request brings its
 * sealed id, which says what initialize negotiated. The first state it holds
 * stores the session; from then on one alarm serves idle expiry,
 * pending-request deadlines and log trimming (session-alarm.ts holds its rule).
 * The session's row and its parts are one SessionState (session-state.ts);
 * this class is what the Worker talks to: RPC, the pipe sockets, the alarm
 * handler, the count of its client's live sessions.
 */
import { noted } from "../mcp/quirks";
import { restoredCaller } from "../mcp/auth";
import { DurableObject } from "./durable-object";
import { readConfig, type Config } from "../config";
import type { Env } from "../env";
import type { AppDefinition } from "../mcp/app";
import { ErrorCode } from "../mcp/errors";
import { errorResponse, notification, type JsonRpcRequest, type Message } from "../mcp/jsonrpc";
import { compileApp, type Registry } from "../mcp/registry";
import { primesStreams, sessionVersion } from "../mcp/revisions/2025-11-25";
import { hubStub, sessionName, sessionShard } from "./addresses";
import {
  SESSION_NOT_FOUND,
  type SessionRequester,
  type HubSeat,
  type SessionAnswer,
  type SessionRpc,
  type SessionStart,
} from "./contracts";
import { endCall, type Call } from "./session-calls";
import { onNotification, onRequest, onResponse, type SessionHost } from "./session-messages";
import { refuse, tooManySessions, tooManyStreams } from "./session-refusals";
import type { SessionTasks } from "./session-tasks";
import type { TaskView } from "../mcp/tasks";
import { LiveSessionsStore } from "./live-sessions-store";
import { parseEventId, type SessionRow, type SessionStore } from "./session-store";
import { acceptSocket, closeFromPeer } from "./sockets";
import { endFrame, eventFrame, sendFrame, type StreamLog } from "./stream-log";
import { SessionEnded, SessionState } from "./session-state";
import { LiveSeat } from "./live-seat";

/** How long a client has to answer the server's ping; answering is immediate for a live client. */
const PING_TIMEOUT_MS = 30_000;

// A function, not a constant: nothing runs at start-up that a request can do later.
const noSession = () => refuse("unknown-session", null, SESSION_NOT_FOUND);

/** A step the session's end overtook (it was awaiting a seat, the hub) is answered as the ended session is: 404. */
const unlessEnded = (step: Promise<SessionAnswer>) =>
  step.catch((err) => {
    if (err instanceof SessionEnded) return noSession();
    throw err;
  });

/**
 * A GET stream replaced by a newer one is closed with this `retry:`: its client reconnects (and can
 * resume what it missed with Last-Event-ID while the replay window lasts).
 */
const REPLACED_GET_RETRY_MS = 1000;

abstract class SessionObject extends DurableObject<Env> implements SessionHost, SessionRpc {
  protected abstract readonly app: AppDefinition<any>;
  abstract readonly tasks?: SessionTasks;
  /** The session's row and the parts that keep it (store, stream log, alarm). */
  private readonly state: SessionState;
  readonly store: SessionStore;
  readonly log: StreamLog;
  config: Config;
  readonly running = new Map<string, Call>();
  private loaded?: Promise<SessionRow | undefined>;
  /** Set when this session ended while its sealed id still opens: its requests are 404. */
  private endedUntil?: number;
  /** When this object is a client's index of live sessions rather than a session. */
  private readonly live: LiveSessionsStore;
  /** Its place among its client's live sessions (SESSION_MAX_LIVE). */
  readonly seat: LiveSeat;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.state = new SessionState(
      ctx.storage,
      (stream) => ctx.getWebSockets(stream),
      () => this.config,
      () => this.holdingState(),
    );
    ({ store: this.store, log: this.log } = this.state);
    this.live = new LiveSessionsStore(ctx.storage.sql);
    this.seat = new LiveSeat(env, () => this.config, this.state);
  }

  get session(): SessionRow {
    return this.state.session;
  }
  set session(row: SessionRow) {
    this.state.session = row;
  }

  get bindings(): Env {
    return this.env;
  }

  get reg(): Registry {
    return compileApp(this.app);
  }

  next(): number {
    return this.state.next();
  }

  save(): Promise<void> {
    return this.state.save();
  }

  /** Just before the session first holds state (its first stream, pending request or stored setting). */
  private holdingState(): void {
    this.seat.force();
    this.loaded = Promise.resolve(this.session);
  }

  get ended(): boolean {
    return this.state.ended;
  }

  /** The hub learns of the session when it can first receive a notification: its first GET stream. */
  private async register(): Promise<void> {
    if (this.session.registered !== false) return;
    const hub = hubStub(this.env, this.session.hubShard);
    await hub.register(this.session.id, this.session.subscriptions);
    // Ended while the hub took it: the end found nothing registered yet, so the row is taken back here.
    if (this.ended) {
      await hub.unregister(this.session.id);
      throw new SessionEnded();
    }
    this.session.registered = true;
    await this.store.putSession(this.session);
  }

  private rowOf(args: SessionStart): SessionRow {
    return {
      id: args.sessionId,
      protocolVersion: args.protocolVersion,
      clientCapabilities: args.clientCapabilities,
      clientInfo: args.clientInfo,
      principal: args.principal,
      clientKey: args.clientKey,
      subscriptions: [],
      createdAt: args.createdAt,
      lastSeenAt: Date.now(),
      counter: 1,
      hubShard: sessionShard(args.sessionId, this.config.hubShards),
      registered: false,
    };
  }

  // ── RPC surface used by the Worker ───────────────────────────────────────
  async initialize(args: SessionStart, maxLive?: number): Promise<SessionAnswer> {
    this.session = this.rowOf(args);
    this.seat.maxLive = maxLive;
    if (!(await this.seat.admit())) return tooManySessions(null, this.seat.cap);
    this.state.materialize();
    return { kind: "accepted" };
  }

  /**
   * Loads the stored session row once per instance (none while the session holds no state); a new
   * instance first ends calls the last one left running.
   */
  private async load(): Promise<SessionRow | undefined> {
    this.loaded ??= this.store.load().then(({ row, endedUntil }) => {
      this.endedUntil = endedUntil;
      if (row) {
        this.session = row;
        this.recoverOrphans();
      }
      return row;
    });
    return this.loaded;
  }

  /**
   * A call that was running (not waiting for input) when the object went away (a deploy, a crash)
   * cannot resume: its stream gets an error the client can act on, instead of waiting forever.
   */
  private recoverOrphans(): void {
    for (const { stream, requestId } of this.store.orphanedStreams()) {
      endCall(
        this,
        stream,
        errorResponse(requestId, {
          code: ErrorCode.InternalError,
          message: "The server restarted while this request was running; send it again",
        }),
      );
    }
  }

  /**
   * Loads the session and checks the caller may use it: null when it may, otherwise the refusal
   * (404 for no such session for this principal, 400 for a version header other than the
   * negotiated one — only the session knows what was negotiated, only the edge sees the header).
   */
  private async authorize({ principal, protocolVersion, seal, maxLive, strictHeaders }: SessionRequester): Promise<SessionAnswer | null> {
    this.seat.maxLive = maxLive;
    let row = await this.load();
    // The end mark wins over a row a step racing the end may have stored.
    if (this.endedUntil !== undefined || this.ended) return noSession();
    if (!row) {
      // Nothing stored: the session is what its sealed id says, unless it has ended.
      if (!seal) return noSession();
      if (this.session?.id !== seal.sessionId) this.session = this.rowOf(seal);
      row = this.session;
    } else if (row.principal !== principal || (seal?.sessionId ?? sessionName(row.id)) !== row.id) {
      // A sealed session opens only with its whole id, its seal checked at the edge: never by its name part.
      return noSession();
    }
    const now = Date.now();
    // A plain id has no seal to expire (the edge refuses a sealed one at this age): its session ends here.
    if (now >= row.createdAt + this.config.sessionMaxMs) {
      await this.endSession();
      return noSession();
    }
    if (sessionVersion(protocolVersion, row.protocolVersion, !strictHeaders) === "refused") {
      return refuse(
        "invalid",
        null,
        `Bad Request: MCP-Protocol-Version "${protocolVersion}" is not this session's negotiated version (${row.protocolVersion}); send that one or none`,
      );
    }
    // One write a minute at most keeps the idle clock honest without a write per request.
    if (!this.store.ready) row.lastSeenAt = now;
    else if (now - row.lastSeenAt > 60_000) {
      row.lastSeenAt = now;
      await this.store.putSession(row);
    }
    return null;
  }

  handle(args: SessionRequester & { message: Message; traceparent?: string }): Promise<SessionAnswer> {
    return unlessEnded(this.serve(args));
  }

  private async serve(args: SessionRequester & { message: Message; traceparent?: string }): Promise<SessionAnswer> {
    const refused = await this.authorize(args);
    if (refused) return refused;
    const { message } = args;
    if (message.kind === "notification") return onNotification(this, message.message.method, message.message.params ?? {});
    const caller = args.caller ?? restoredCaller(args.principal, undefined, args.clientKey ?? "");
    if (message.kind === "response") return onResponse(this, message.message, caller);
    // A newer revision's header, served at the negotiated one, is counted with the Worker's quirks.
    const newer = args.protocolVersion !== undefined && args.protocolVersion !== this.session!.protocolVersion;
    const quirks = newer ? noted(args.quirks, "version-newer") : args.quirks;
    return onRequest(this, message.message, caller, args.traceparent, quirks);
  }

  openGet(args: SessionRequester & { lastEventId?: string }): Promise<SessionAnswer> {
    return unlessEnded(this.openStream(args));
  }

  private async openStream(args: SessionRequester & { lastEventId?: string }): Promise<SessionAnswer> {
    const refused = await this.authorize(args);
    if (refused) return refused;
    if (args.lastEventId === undefined) {
      // Checked before the new stream replaces the open GET stream, which must keep its notifications.
      // Admitted first: nothing awaits between the stream limit's check and the stream's opening.
      if (!(await this.seat.admit())) return tooManySessions(null, this.seat.cap);
      if (this.atStreamLimit()) return tooManyStreams(null);
      const stream = this.log.open("get", this.next());
      await this.register();
      // The newest GET stream carries session-level messages. An older one is closed like a finished
      // POST stream: its client is told to reconnect, and can replay what it missed during the window.
      for (const old of this.store.otherGetStreams(stream)) this.log.close(old, REPLACED_GET_RETRY_MS);
      this.store.dropStreamsClosedBefore(Date.now() - this.config.streamReplayMs);
      return { kind: "stream", stream, after: -1, hub: this.hubSeat(-1) };
    }
    const parsed = parseEventId(args.lastEventId);
    // A stream past its window is refused even if the alarm has not dropped it yet.
    if (!parsed || !this.store.isReplayable(parsed.stream, Date.now() - this.config.streamReplayMs)) {
      return refuse("invalid", null, "Unknown Last-Event-ID: that stream is not in this session's log (it may have expired)");
    }
    const resumed = { kind: "stream", stream: parsed.stream, after: parsed.seq } as const;
    return this.store.kindOf(parsed.stream) === "get" ? { ...resumed, hub: this.hubSeat(parsed.hub ?? -1) } : resumed;
  }

  /**
   * Where a GET stream takes the session's notifications from: the hub shard it joined, which sends
   * them to the stream's Worker itself (no call to this object), from `after` in the shard's log.
   */
  private hubSeat(after: number): HubSeat {
    return { shard: this.session.hubShard ?? 0, session: this.session.id, principal: this.session.principal, after };
  }

  async terminate(caller: SessionRequester): Promise<SessionAnswer> {
    const refused = await this.authorize(caller);
    if (refused) return refused;
    await this.endSession();
    return { kind: "accepted" };
  }

  /**
   * Server-to-client `ping` (for a cron or a keep-alive policy of yours): sent on the newest GET
   * stream and stored as pending like any server request. The client's answer is taken like any
   * other; a ping still unanswered at its deadline means the client is gone, and the alarm ends that
   * stream's connections (a live client reconnects with GET and Last-Event-ID), which frees its slot.
   */
  async pingClient(): Promise<boolean> {
    if (!(await this.load())) return false;
    const stream = this.store.latestGetStream();
    if (!stream || this.store.isClosed(stream)) return false;
    const rpcId = `s${this.next().toString(36)}`;
    this.store.addPending({ rpcId, stream, key: "ping", method: "ping", deadline: Date.now() + PING_TIMEOUT_MS });
    this.log.append(stream, { jsonrpc: "2.0", id: rpcId, method: "ping" });
    return true;
  }

  async taskUpdated(task: TaskView): Promise<void> {
    if (await this.load()) await this.tasks?.onTaskUpdated(this, task);
  }

  async taskExpired(taskId: string): Promise<void> {
    if (await this.load()) await this.tasks?.onTaskExpired(this, taskId);
  }

  /** A task's progress or log message goes where session-level messages go: the newest GET stream. */
  async taskMessage(message: { method: string; params?: Record<string, unknown> }): Promise<void> {
    if (!(await this.load())) return;
    const stream = this.store.latestGetStream();
    if (stream) this.log.append(stream, notification(message.method, message.params));
  }

  // ── a client's index of live sessions ───────────────────────────────────
  async admitLive(sessionId: string, cap: number, expiresAt: number, force: boolean): Promise<boolean> {
    return this.live.admit(sessionId, cap, expiresAt, force, Date.now());
  }

  async releaseLive(sessionId: string): Promise<void> {
    if (this.live.release(sessionId)) await this.ctx.storage.deleteAll();
  }

  // ── the pipe: a WebSocket per client connection to a stream ─────────────
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const stream = url.searchParams.get("stream") ?? "";
    const after = Number(url.searchParams.get("after") ?? "-1");
    const kind = request.headers.get("Upgrade") === "websocket" && (await this.load()) ? this.store.kindOf(stream) : undefined;
    if (kind === undefined) return new Response("no such stream", { status: 404 });
    // A POST stream's first connection carries the answer of a call already admitted: never refuse it.
    const firstOfPost = after < 0 && kind === "post";
    if (!firstOfPost && this.atStreamLimit()) return new Response("too many open streams", { status: 429 });
    const [server, response] = acceptSocket(this.ctx, [stream]);
    // Replay and registration happen in one synchronous turn, so no event can fall between them.
    if (after < 0 && primesStreams(this.session.protocolVersion)) server.send(JSON.stringify(eventFrame(stream, 0, "")));
    for (const e of this.store.eventsAfter(stream, Math.max(after, 0))) server.send(JSON.stringify(eventFrame(stream, e.seq, e.data)));
    const retry = this.log.takeRetry(stream);
    if (retry !== undefined || (this.store.isClosed(stream) && !this.store.hasCall(stream))) {
      // Nothing more will come on this connection: close it, so it does not count as an open stream.
      sendFrame([server], endFrame(retry));
    }
    return response;
  }

  atStreamLimit(): boolean {
    return this.ctx.getWebSockets().length >= this.config.maxStreamsPerSession;
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    closeFromPeer(ws, code);
  }

  // ── the alarm: expiry, deadlines, trimming ───────────────────────────────
  async alarm(): Promise<void> {
    const row = await this.load();
    const now = Date.now();
    // An ended session's mark goes when its id stops opening, not before.
    if (!row && this.endedUntil !== undefined && now < this.endedUntil) return this.ctx.storage.setAlarm(this.endedUntil);
    if (!row) return this.store.destroy();
    if (now >= row.lastSeenAt + this.config.sessionIdleMs) return this.endSession();
    this.state.alarm.fired();
    for (const stream of new Set(this.store.takeExpiredPings(now))) this.log.disconnect(stream);
    for (const stream of this.store.expiredCalls(now)) {
      const call = this.store.getCall(stream);
      const id = call ? (JSON.parse(call.request) as JsonRpcRequest).id : null;
      endCall(
        this,
        stream,
        errorResponse(id, { code: ErrorCode.InternalError, message: "Timed out waiting for the client to answer a server request" }),
      );
    }
    this.store.dropStreamsClosedBefore(now - this.config.streamReplayMs);
    this.store.trimClosed(this.config.closedLogMaxBytes);
  }

  private async endSession(): Promise<void> {
    this.state.ended = true;
    for (const call of this.running.values()) call.abort.abort();
    sendFrame(this.ctx.getWebSockets(), endFrame(), "session ended");
    await this.seat.release();
    if (this.store.ready) {
      if (this.session.registered !== false) await hubStub(this.env, this.session.hubShard).unregister(this.session.id);
      await this.tasks?.discardSessionTasks(this);
      await this.store.destroy();
    }
    // A sealed id would open the session again from nothing: it stays refused while the id lives.
    const until = this.session.createdAt + this.config.sessionMaxMs;
    if (this.session.id.includes(".") && until > Date.now()) await this.store.markEnded(until);
    this.loaded = undefined;
  }
}

/** The session class for an app; `createMcpWorker(app)` gives it to the Worker entry. */
export function sessionObjectFor(app: AppDefinition<any>, tasks?: SessionTasks) {
  return class McpSession extends SessionObject {
    protected readonly app = app;
    readonly tasks = tasks;
  };
}
