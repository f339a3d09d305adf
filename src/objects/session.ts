/**
 * One 2025-11-25 session: a Durable Object with SQLite storage (see
 * session-store.ts). The Worker calls its RPC methods for each POST, GET and
 * DELETE, and relays its streams to the client over hibernatable WebSockets,
 * so an idle session sleeps while its client holds an SSE stream open.
 * One alarm serves idle expiry, pending-request deadlines and log trimming.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig, type Config, type Env } from "../config";
import type { AppDefinition } from "../mcp/app";
import { encodeLegacyError } from "../mcp/encode";
import { ErrorCode, McpError, invalidParams } from "../mcp/errors";
import { checkInputResponse } from "../mcp/input";
import { errorResponse, resultResponse, type JsonRpcRequest, type Message } from "../mcp/jsonrpc";
import { compileApp, type Registry } from "../mcp/registry";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type LogLevel } from "../mcp/types";
import { hubStub } from "../http/notify";
import { resourceExists } from "../mcp/methods/resources";
import type { HubNotification } from "./hub";
import { Execution, runOnce, wantsPriming, type CallHost, type StreamFrame } from "./session-calls";
import { SessionStore, eventId, parseEventId, type SessionRow } from "./session-store";

/** What the Worker turns into an HTTP answer. */
export type LegacyAnswer =
  | { status: number; json?: object }
  | { status: 200; stream: string; after: number };

const NO_SESSION: LegacyAnswer = { status: 404, json: errorResponse(null, { code: ErrorCode.InvalidRequest, message: "Session not found; send initialize again" }) };

export abstract class SessionObject extends DurableObject<Env> implements CallHost {
  protected abstract readonly app: AppDefinition;
  readonly store: SessionStore;
  readonly config: Config;
  session!: SessionRow;
  private running = new Map<string, Execution>();
  /** Streams whose next relay connection is to be closed at once with this retry delay (polling). */
  private closeNext = new Map<string, number>();
  private loaded?: Promise<SessionRow | undefined>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SessionStore(ctx.storage.sql, ctx.storage);
    this.config = readConfig(env);
  }

  get bindings(): Env {
    return this.env;
  }

  get reg(): Registry {
    return compileApp(this.app);
  }

  // ── CallHost ─────────────────────────────────────────────────────────────
  next(): number {
    const n = (this.session as SessionRow & { counter?: number }).counter ?? 1;
    (this.session as SessionRow & { counter?: number }).counter = n + 1;
    void this.store.putSession(this.session);
    return n;
  }

  push(stream: string, frame: StreamFrame): void {
    const text = JSON.stringify(frame);
    const sockets = this.ctx.getWebSockets(stream);
    // A deliberate close before the client has connected applies to its first connection.
    if ("retry" in frame && frame.retry !== undefined && sockets.length === 0) this.closeNext.set(stream, frame.retry);
    for (const ws of sockets) {
      try {
        ws.send(text);
        if ("end" in frame) ws.close(1000, "stream ended");
      } catch {
        // the relay is gone; the event is in the log for a Last-Event-ID resume
      }
    }
  }

  async scheduleAlarm(): Promise<void> {
    const s = this.session;
    const candidates = [
      s.lastSeenAt + this.config.sessionIdleMs,
      this.store.earliestDeadline(),
      (this.store.earliestClosedAt() ?? Infinity) + this.config.streamReplayMs,
    ].filter((t): t is number => t !== undefined && Number.isFinite(t));
    const at = Math.min(...candidates);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at || current < Date.now()) await this.ctx.storage.setAlarm(at);
  }

  // ── RPC surface used by the Worker ───────────────────────────────────────
  async initialize(args: {
    sessionId: string;
    principal: string;
    protocolVersion: string;
    clientCapabilities: ClientCapabilities;
    clientInfo?: Implementation;
  }): Promise<void> {
    const now = Date.now();
    this.session = {
      id: args.sessionId,
      protocolVersion: args.protocolVersion,
      clientCapabilities: args.clientCapabilities,
      clientInfo: args.clientInfo,
      principal: args.principal,
      subscriptions: [],
      initialized: false,
      createdAt: now,
      lastSeenAt: now,
    };
    await this.store.putSession(this.session);
    this.loaded = Promise.resolve(this.session);
    await hubStub(this.env).register(args.sessionId, []);
    await this.scheduleAlarm();
  }

  /** Loads the session row and checks the caller may use it; false = answer 404. */
  private async open(principal: string): Promise<boolean> {
    this.loaded ??= this.store.getSession();
    const row = await this.loaded;
    if (!row || row.principal !== principal) return false;
    this.session = row;
    const now = Date.now();
    // One write a minute at most keeps the idle clock honest without a write per request.
    if (now - row.lastSeenAt > 60_000) {
      row.lastSeenAt = now;
      await this.store.putSession(row);
      await this.scheduleAlarm();
    }
    return true;
  }

  async handle(args: { message: Message; principal: string }): Promise<LegacyAnswer> {
    if (!(await this.open(args.principal))) return NO_SESSION;
    const { message } = args;
    if (message.kind === "notification") return this.onNotification(message.message.method, message.message.params ?? {});
    if (message.kind === "response") return this.onResponse(message.message);
    return this.onRequest(message.message);
  }

  async openGet(args: { principal: string; lastEventId?: string }): Promise<LegacyAnswer> {
    if (!(await this.open(args.principal))) return NO_SESSION;
    if (args.lastEventId === undefined) {
      const stream = this.store.openStream("get", this.next());
      this.store.dropStreamsClosedBefore(Date.now() - this.config.streamReplayMs);
      return { status: 200, stream, after: -1 };
    }
    const parsed = parseEventId(args.lastEventId);
    if (!parsed || !this.store.streamExists(parsed.stream)) {
      return { status: 400, json: errorResponse(null, { code: ErrorCode.InvalidRequest, message: "Unknown Last-Event-ID: that stream is not in this session's log (it may have expired)" }) };
    }
    return { status: 200, stream: parsed.stream, after: parsed.seq };
  }

  async terminate(principal: string): Promise<boolean> {
    if (!(await this.open(principal))) return false;
    await this.endSession();
    return true;
  }

  /** A notification published through the hub: session-level messages go on the newest GET stream. */
  async deliver(n: HubNotification): Promise<void> {
    if (!(await this.open((await this.store.getSession())?.principal ?? ""))) return;
    if (n.method === "notifications/resources/updated") {
      const uri = String(n.params?.uri ?? "");
      if (!this.session.subscriptions.some((s) => uri === s || uri.startsWith(s.endsWith("/") ? s : `${s}/`))) return;
    }
    const stream = this.store.latestGetStream();
    if (!stream) return;
    const data = JSON.stringify(n.params ? { jsonrpc: "2.0", method: n.method, params: n.params } : { jsonrpc: "2.0", method: n.method });
    const seq = this.store.append(stream, data, { maxEvents: this.config.eventLogMaxEvents, maxBytes: this.config.eventLogMaxBytes });
    this.push(stream, { e: eventId(stream, seq), d: data });
  }

  // ── the relay: a WebSocket per client connection to a stream ─────────────
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const stream = url.searchParams.get("stream") ?? "";
    const after = Number(url.searchParams.get("after") ?? "-1");
    if (request.headers.get("Upgrade") !== "websocket" || !this.store.streamExists(stream)) return new Response("no such stream", { status: 404 });
    if (this.ctx.getWebSockets().length >= this.config.maxStreamsPerSession) return new Response("too many open streams", { status: 429 });
    this.session ??= (await this.store.getSession())!;
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [stream]);
    // Replay and registration happen in one synchronous turn, so no event can fall between them.
    if (after < 0 && this.session && wantsPriming(this.session.protocolVersion)) server.send(JSON.stringify({ e: eventId(stream, 0), d: "" }));
    for (const e of this.store.eventsAfter(stream, Math.max(after, 0))) server.send(JSON.stringify({ e: eventId(stream, e.seq), d: e.data }));
    const retry = this.closeNext.get(stream);
    this.closeNext.delete(stream);
    if (retry !== undefined) server.send(JSON.stringify({ end: true, retry }));
    else if (this.store.isClosed(stream) && !this.store.hasCall(stream)) server.send(JSON.stringify({ end: true }));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }

  // ── the alarm: expiry, deadlines, trimming ───────────────────────────────
  async alarm(): Promise<void> {
    const row = await this.store.getSession();
    if (!row) return this.store.destroy();
    this.session = row;
    const now = Date.now();
    if (now >= row.lastSeenAt + this.config.sessionIdleMs) return this.endSession();
    for (const stream of this.store.expiredCalls(now)) {
      const call = this.store.getCall(stream);
      const id = call ? (JSON.parse(call.request) as JsonRpcRequest).id : null;
      const exec = new Execution(this, { jsonrpc: "2.0", id: id ?? 0, method: "" }, stream);
      exec.finish(errorResponse(id, { code: ErrorCode.InternalError, message: "Timed out waiting for the client to answer a server request" }));
    }
    this.store.dropStreamsClosedBefore(now - this.config.streamReplayMs);
    await this.scheduleAlarm();
  }

  private async endSession(): Promise<void> {
    for (const exec of this.running.values()) exec.abort.abort();
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(JSON.stringify({ end: true }));
        ws.close(1000, "session ended");
      } catch {
        // already closed
      }
    }
    await hubStub(this.env).unregister(this.session.id);
    await this.store.destroy();
    this.loaded = undefined;
  }

  // ── messages ─────────────────────────────────────────────────────────────
  private async onNotification(method: string, params: Record<string, unknown>): Promise<LegacyAnswer> {
    if (method === "notifications/initialized" && !this.session.initialized) {
      this.session.initialized = true;
      await this.store.putSession(this.session);
    } else if (method === "notifications/cancelled") {
      this.cancel(params.requestId);
    }
    return { status: 202 };
  }

  private cancel(requestId: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const exec = this.running.get(JSON.stringify(requestId));
    if (exec) {
      exec.cancelled = true;
      exec.abort.abort();
      exec.end();
      this.running.delete(JSON.stringify(requestId));
      return;
    }
    // A call waiting for input after an eviction has no handler in memory, only its stored record.
    const stream = this.store.findCallByRequestId(requestId);
    if (stream) new Execution(this, { jsonrpc: "2.0", id: requestId, method: "" }, stream).end();
  }

  /** The client's answer to one of our requests, arriving as its own POST. */
  private async onResponse(msg: { id: string | number | null; result?: unknown; error?: unknown }): Promise<LegacyAnswer> {
    const pending = typeof msg.id === "string" ? this.store.takePending(msg.id) : undefined;
    if (!pending) return { status: 400, json: errorResponse(null, { code: ErrorCode.InvalidRequest, message: `No pending server request has id ${JSON.stringify(msg.id)}` }) };
    const call = this.store.getCall(pending.stream);
    if (!call) return { status: 202 };
    const request = JSON.parse(call.request) as JsonRpcRequest;
    const exec = new Execution(this, request, pending.stream);
    if (msg.error !== undefined) {
      const e = msg.error as { message?: string };
      exec.finish(errorResponse(request.id, { code: ErrorCode.InternalError, message: `The client answered ${pending.method} with an error: ${e.message ?? "unknown"}` }));
      return { status: 202 };
    }
    try {
      checkInputResponse(pending.key, pending.method, msg.result);
    } catch (err) {
      this.store.addPending(pending);
      return { status: 400, json: errorResponse(null, (err as McpError).toJSON()) };
    }
    call.answers[pending.key] = msg.result;
    this.store.putCall(call);
    // Run the handler again once every answer of this round is in.
    if (this.store.pendingCount(pending.stream) === 0) {
      this.track(exec);
      void runOnce(this, exec, call.answers, call.state).then((response) => {
        this.untrack(exec);
        if (response) exec.finish(response);
      });
    }
    return { status: 202 };
  }

  private async onRequest(req: JsonRpcRequest): Promise<LegacyAnswer> {
    const params = req.params ?? {};
    const ok = (result: object = {}): LegacyAnswer => ({ status: 200, json: resultResponse(req.id, result) });
    const fail = (err: McpError, status = 200): LegacyAnswer => ({ status, json: errorResponse(req.id, encodeLegacyError(err)) });
    switch (req.method) {
      case "initialize":
        return fail(new McpError(ErrorCode.InvalidRequest, "This session is already initialized"), 400);
      case "ping":
        return ok();
      case "logging/setLevel": {
        if (!LOG_LEVELS.includes(params.level as LogLevel)) return fail(invalidParams(`Invalid log level: ${String(params.level)}`));
        this.session.logLevel = params.level as LogLevel;
        await this.store.putSession(this.session);
        return ok();
      }
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.subscribe(req, params.uri);
    }

    const exec = new Execution(this, req);
    this.track(exec);
    const done = runOnce(this, exec, {}, undefined).then((response) => {
      this.untrack(exec);
      if (response && exec.stream) exec.finish(response);
      return response;
    });
    const first = await Promise.race([done, exec.opened.then(() => null)]);
    if (first && !exec.stream) return { status: 200, json: first };
    return { status: 200, stream: exec.stream!, after: -1 };
  }

  private async subscribe(req: JsonRpcRequest, uri: unknown): Promise<LegacyAnswer> {
    if (!this.reg.capabilities.resources?.subscribe) return { status: 200, json: errorResponse(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` }) };
    if (typeof uri !== "string") return { status: 200, json: errorResponse(req.id, invalidParams(`${req.method} needs params.uri`).toJSON()) };
    if (!resourceExists(this.reg, uri)) return { status: 200, json: errorResponse(req.id, { code: ErrorCode.ResourceNotFoundLegacy, message: `Resource not found: ${uri}`, data: { uri } }) };
    const subs = new Set(this.session.subscriptions);
    if (req.method === "resources/subscribe") subs.add(uri);
    else subs.delete(uri);
    this.session.subscriptions = [...subs];
    await this.store.putSession(this.session);
    await hubStub(this.env).register(this.session.id, this.session.subscriptions);
    return { status: 200, json: resultResponse(req.id, {}) };
  }

  private track(exec: Execution) {
    this.running.set(JSON.stringify(exec.request.id), exec);
  }
  private untrack(exec: Execution) {
    this.running.delete(JSON.stringify(exec.request.id));
  }
}

/** The session class for an app: `export class McpSession extends sessionObjectFor(app) {}`. */
export function sessionObjectFor(app: AppDefinition) {
  return class extends SessionObject {
    protected readonly app = app;
  };
}
