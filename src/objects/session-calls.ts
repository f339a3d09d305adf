/**
 * Running a 2025-11-25 request inside its session object.
 *
 * A request is answered with plain JSON unless it produces a message before
 * its result (a notification, or a server-to-client request); at that moment
 * it gets a stream: an event log in storage that the Worker relays to the
 * client as SSE. A handler that needs input stores the call and its pending
 * requests, and the session runs it again when the answers arrive, so a tool
 * waiting on a user survives the object being evicted.
 */
import type { Config, Env } from "../config";
import type { HandlerContext } from "../mcp/context";
import { LEGACY_METHODS, dispatch } from "../mcp/dispatch";
import { encodeLegacyError, toMcpError } from "../mcp/encode";
import { ErrorCode } from "../mcp/errors";
import { Input, InputRequired } from "../mcp/input";
import { errorResponse, notification, resultResponse, type JsonRpcRequest } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { LOG_LEVELS } from "../mcp/types";
import { createNotifier } from "../http/notify";
import { eventId, type SessionRow, type SessionStore } from "./session-store";

/** What the session object sends a connected relay socket. */
export type StreamFrame = { e: string; d: string } | { end: true; retry?: number };

export interface CallHost {
  store: SessionStore;
  session: SessionRow;
  reg: Registry;
  bindings: Env;
  config: Config;
  /** Next value of a per-session counter (stream and request ids). */
  next(): number;
  push(stream: string, frame: StreamFrame): void;
  scheduleAlarm(): Promise<void>;
}

/** Clients before 2025-11-25 choke on an event with empty data, so they get no priming event. */
export const wantsPriming = (version: string) => version >= "2025-11-25";

export class Execution {
  readonly abort = new AbortController();
  cancelled = false;
  private markOpened!: () => void;
  /** Resolves when the request turns into a stream. */
  readonly opened = new Promise<void>((resolve) => (this.markOpened = resolve));

  constructor(
    private readonly host: CallHost,
    readonly request: JsonRpcRequest,
    public stream?: string,
  ) {}

  /** The request's stream, opened (with its priming event) on first use. */
  ensureStream(): string {
    if (!this.stream) {
      // Seq 0 is the priming event; the relay sends it when the client connects (see session.ts).
      this.stream = this.host.store.openStream("post", this.host.next(), this.request.id);
      this.markOpened();
    }
    return this.stream;
  }

  /** Appends a message to the request's stream and sends it to a connected client. */
  emit(message: object): void {
    if (this.cancelled) return;
    const stream = this.ensureStream();
    const data = JSON.stringify(message);
    const seq = this.host.store.append(stream, data, { maxEvents: this.host.config.eventLogMaxEvents, maxBytes: this.host.config.eventLogMaxBytes });
    this.host.push(stream, { e: eventId(stream, seq), d: data });
  }

  /** Writes the response as the stream's last event and ends it. */
  finish(response: object): void {
    if (this.cancelled || !this.stream) return;
    this.emit(response);
    this.end();
  }

  end(): void {
    if (!this.stream) return;
    this.host.store.closeStream(this.stream, Date.now());
    this.host.store.deleteCall(this.stream);
    this.host.push(this.stream, { end: true });
  }
}

/** Runs the handler once; returns the JSON-RPC response, or undefined while waiting for client input. */
export async function runOnce(
  host: CallHost,
  exec: Execution,
  answers: Record<string, unknown>,
  state: unknown,
): Promise<object | undefined> {
  const { request } = exec;
  const params = request.params ?? {};
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const progressToken = meta.progressToken as string | number | undefined;
  let lastProgress = -Infinity;
  const minLevel = host.session.logLevel ? LOG_LEVELS.indexOf(host.session.logLevel) : 0;

  const ctx: HandlerContext = {
    era: "legacy",
    protocolVersion: host.session.protocolVersion,
    clientCapabilities: host.session.clientCapabilities,
    clientInfo: host.session.clientInfo,
    signal: exec.abort.signal,
    progress(progress, total, message) {
      if (progressToken === undefined || !(progress > lastProgress)) return;
      lastProgress = progress;
      exec.emit(notification("notifications/progress", { progressToken, progress, total, message }));
    },
    log(level, data, logger) {
      if (LOG_LEVELS.indexOf(level) < minLevel) return;
      exec.emit(notification("notifications/message", logger ? { level, logger, data } : { level, data }));
    },
    input: new Input(answers, state as never, host.session.clientCapabilities),
    notify: createNotifier(host.bindings),
    closeStream(retryMs = 1000) {
      const stream = exec.ensureStream();
      host.push(stream, { end: true, retry: retryMs });
    },
    env: host.bindings,
    principal: host.session.principal || undefined,
  };

  try {
    const result = await dispatch(LEGACY_METHODS, host.reg, request.method, params, ctx);
    return resultResponse(request.id, result);
  } catch (err) {
    if (err instanceof InputRequired) {
      const count = Object.keys(err.requests).length;
      if (host.store.pendingCount() + count > host.config.maxPendingPerSession) {
        return errorResponse(request.id, { code: ErrorCode.InternalError, message: "Too many server requests are waiting for answers in this session (MAX_PENDING_PER_SESSION)" });
      }
      await askClient(host, exec, err, answers);
      return undefined;
    }
    return errorResponse(request.id, encodeLegacyError(toMcpError(err)));
  }
}

/** Stores the call and sends its input requests to the client as real JSON-RPC requests on its stream. */
async function askClient(host: CallHost, exec: Execution, signal: InputRequired, answers: Record<string, unknown>): Promise<void> {
  const stream = exec.ensureStream();
  host.store.putCall({ stream, request: JSON.stringify(exec.request), answers, state: signal.state });
  const deadline = Date.now() + host.config.pendingRequestMs;
  for (const [key, req] of Object.entries(signal.requests)) {
    const rpcId = `s${host.next().toString(36)}`;
    host.store.addPending({ rpcId, stream, key, method: req.method, deadline });
    exec.emit({ jsonrpc: "2.0", id: rpcId, method: req.method, params: req.params ?? {} });
  }
  await host.scheduleAlarm();
}
