/**
 * Running a 2025-11-25 request inside its session object.
 *
 * A request is answered with plain JSON unless it emits a message before its
 * result (a notification, or a server-to-client request); at that moment it
 * gets a stream in the session's log, which the Worker pipes to the client as SSE. A
 * handler that needs input stores the call and its pending requests, and the
 * session runs it again when the answers arrive, so a tool waiting on a user
 * survives the object being evicted.
 */
import type { Quirks } from "../mcp/quirks";
import type { Caller } from "../mcp/auth";
import type { Config } from "../config";
import type { Env } from "../env";
import { ErrorCode, McpError, type JsonRpcErrorObject } from "../mcp/errors";
import { execute } from "../mcp/execute";
import type { InputRequired } from "../mcp/input";
import { checkProgressToken, errorResponse, notification, resultResponse, type JsonRpcRequest } from "../mcp/jsonrpc";
import { LazyStream } from "../mcp/lazy-stream";
import type { Registry } from "../mcp/registry";
import { LEGACY } from "../mcp/revisions";
import type { Json } from "../mcp/types";
import { readTrace, type TraceContext } from "../mcp/telemetry";
import { reportingFor } from "../reporting";
import { createNotifier } from "./addresses";
import type { SessionAnswer } from "./contracts";
import type { LiveSeat } from "./live-seat";
import type { SessionState } from "./session-state";

/** What the rules of a session's calls work on: its state (row, store, log; session-state.ts) and its app. */
export interface CallHost extends Pick<SessionState, "store" | "log" | "session" | "next" | "save"> {
  reg: Registry;
  bindings: Env;
  config: Config;
  /** Its place among its client's live sessions: `admit` before the first state the client asks for. */
  readonly seat: Pick<LiveSeat, "admit" | "cap" | "counted">;
}

/** A request running in this instance: what cancels it, and its stream, opened on first use. */
export class Call {
  readonly abort = new AbortController();
  readonly out: LazyStream<string>;
  /**
   * A stream makes the session hold state, so in a session not yet counted (SESSION_MAX_LIVE) the
   * first one waits for the session's seat. What needs the stream meanwhile is chained on the seat,
   * to run in order once it is taken, or never: a call over the cap answers without its messages.
   */
  seat?: Promise<boolean>;
  /** Set when the call had to ask the client something over the cap: it ends with no answer, and its request gets that refusal. */
  askedOverCap = false;

  constructor(
    private readonly host: CallHost,
    readonly request: JsonRpcRequest,
    /** Who sent the request that runs the handler (ctx.caller, ctx.auth). */
    readonly caller: Caller,
    stream?: string,
    /** The client's trace context: on the call's log line and on the requests the call sends the client. */
    readonly trace: TraceContext = {},
    /** The hosted-client quirks served in the request (http/quirks.ts), for its log line. */
    readonly quirks?: Quirks,
  ) {
    this.out = new LazyStream(
      () => host.log.open("post", host.next(), request.id),
      (s, message) => host.log.append(s, message),
      this.abort.signal,
      stream,
    );
  }

  /** Whether the session may hold this call's stream (false over the cap); asks its client's index once, if it must. */
  admit(): Promise<boolean> {
    // A failure to ask (or the session ending meanwhile) sends nothing, as a refusal does.
    return (this.seat ??=
      this.out.stream !== undefined || this.host.seat.counted() ? Promise.resolve(true) : this.host.seat.admit().catch(() => false));
  }

  /** Runs a step that needs the call's stream, once the session may hold it (dropped if it may not). */
  private withStream(step: () => void): void {
    if (!this.seat && (this.out.stream !== undefined || this.host.seat.counted())) return step();
    this.seat = this.admit().then((ok) => (ok && step(), ok));
  }

  // A request whose Accept takes only JSON (http/quirks.ts) is sent no notifications, so its answer stays JSON.
  readonly emit = (message: object): void => void (this.quirks?.includes("accept-json") || this.withStream(() => this.out.emit(message)));

  /** Closes the call's stream (the client polls with Last-Event-ID); a call without one has nothing to close. */
  readonly closeStream = (retryMs: number): void => this.withStream(() => this.host.log.disconnect(this.out.ensure(), retryMs));
}

/** Runs the handler once; returns the JSON-RPC response, or undefined while it waits for client input. */
export async function runCall(
  host: CallHost,
  call: Call,
  answers: Record<string, unknown>,
  state: Json | undefined,
): Promise<object | undefined> {
  const { request } = call;
  const { session } = host;
  const params = request.params ?? {};
  const outcome = await execute(request.method, params, {
    ...sessionOptions(host, request, call.caller, call.trace, call.quirks, call.abort.signal),
    logLevel: LEGACY.logLevel(session.logLevel),
    // The edge refused (400) a request whose token breaks the rule, so reading it again cannot throw.
    progressToken: checkProgressToken(params._meta),
    answers,
    state,
    emit: call.emit,
    closeStream: (retryMs = 1000) => call.closeStream(retryMs),
    // A session-level message: on the GET stream when the client holds one, else on this call's stream.
    completeElicitation: (elicitationId) => {
      const message = notification("notifications/elicitation/complete", { elicitationId: String(elicitationId) });
      const stream = host.store.latestGetStream();
      if (stream) host.log.append(stream, message);
      else call.emit(message);
    },
  });
  // What the call sent while its session's seat was asked for goes out (or is dropped) before its answer.
  await call.seat;
  if (outcome.kind === "result") return resultResponse(request.id, outcome.result);
  if (outcome.kind === "error") return errorResponse(request.id, LEGACY.encodeError(outcome.error));
  // A session call never may become a task (canStartTask is not set): task calls go to session-tasks.ts.
  if (outcome.kind === "task")
    return errorResponse(request.id, { code: ErrorCode.InternalError, message: "This call cannot become a task here" });
  // Asking the client needs the session to hold state: over SESSION_MAX_LIVE the call is refused instead.
  if (!(await call.admit())) {
    call.askedOverCap = true;
    return undefined;
  }
  const count = Object.keys(outcome.required.requests).length;
  if (host.store.pendingCount() + count > host.config.maxPendingPerSession) {
    return errorResponse(request.id, {
      code: ErrorCode.InternalError,
      message: "Too many server requests are waiting for answers in this session (MAX_PENDING_PER_SESSION)",
    });
  }
  askClient(host, call, outcome.required, answers);
  return undefined;
}

/** Ends a call's stream, with its answer as the last event when there is one, and forgets the call. */
export function endCall(host: Pick<CallHost, "store" | "log">, stream: string, response?: object): void {
  if (response) host.log.append(stream, response);
  host.log.close(stream);
  host.store.deleteCall(stream);
}

/** Stores the call and sends its input requests to the client as real JSON-RPC requests on its stream. */
function askClient(host: CallHost, call: Call, signal: InputRequired, answers: Record<string, unknown>): void {
  const stream = call.out.ensure();
  host.store.putCall({ stream, request: JSON.stringify(call.request), answers, state: signal.state });
  const deadline = Date.now() + host.config.pendingRequestMs;
  for (const [key, req] of Object.entries(LEGACY.inputRequests(signal.requests))) {
    const rpcId = `s${host.next().toString(36)}`;
    host.store.addPending({ rpcId, stream, key, method: req.method, deadline });
    // The client's trace context rides along, so its side of the exchange joins the same trace.
    const base = req.params ?? {};
    const params = Object.keys(call.trace).length > 0 ? { ...base, _meta: { ...call.trace } } : base;
    call.out.emit({ jsonrpc: "2.0", id: rpcId, method: req.method, params });
  }
}

/**
 * What every request a session runs through the one path is run with: its session, its caller, its
 * report. `signal`: a call's own (what cancels it); a request the session serves itself gets one
 * nothing aborts, made only then.
 */
export const sessionOptions = (
  host: CallHost,
  req: JsonRpcRequest,
  caller: Caller,
  trace: TraceContext,
  quirks?: Quirks,
  signal: AbortSignal = new AbortController().signal,
) => ({
  revision: LEGACY,
  reg: host.reg,
  protocolVersion: host.session.protocolVersion,
  clientCapabilities: host.session.clientCapabilities,
  clientInfo: host.session.clientInfo,
  answers: {},
  state: undefined,
  signal,
  emit: () => {},
  notify: createNotifier(host.bindings),
  env: host.bindings,
  caller,
  reporting: reportingFor(host.config, host.bindings, host.reg, trace, host.session.id, req.id, quirks),
});

/**
 * A request the session serves itself (resources/subscribe and unsubscribe, the task methods) through
 * the core's one path: the middleware chain and the report run around `serve` as around a handler. A
 * JSON-RPC error `serve` answers with is reported as the error it is, and sent as it was.
 */
export async function servedInChain(
  host: CallHost,
  req: JsonRpcRequest,
  caller: Caller,
  serve: () => Promise<SessionAnswer>,
  quirks?: Quirks,
): Promise<SessionAnswer> {
  let answer: SessionAnswer | undefined;
  const outcome = await execute(req.method, req.params ?? {}, {
    ...sessionOptions(host, req, caller, readTrace(req.params?._meta), quirks),
    serve: async () => {
      answer = await serve();
      const error = answer.kind === "refused" ? answer.error : (answer as { message?: { error?: JsonRpcErrorObject } }).message?.error;
      if (error) throw new McpError(error.code, error.message, error.data);
      return {};
    },
  });
  // Else a step refused it, or answered in its place.
  return (
    answer ?? {
      kind: "reply",
      message:
        outcome.kind === "error"
          ? errorResponse(req.id, LEGACY.encodeError(outcome.error))
          : resultResponse(req.id, (outcome as { result: object }).result),
    }
  );
}
