/**
 * The one executor: runs a request against the app for either lane. It builds
 * the one handler context (progress, logging at the client's level,
 * cancellation, input, notify, env) and dispatches. What the handler emits goes
 * to `emit`: the 2026 lane writes it to the request's SSE response, the 2025
 * lane to the session's durable stream log. The lanes keep only what differs:
 * validation, routing and storage.
 */
import type { HandlerContext, Notifier } from "./context";
import { INPUT_METHODS, dispatch, type MethodTable } from "./dispatch";
import { ErrorCode, McpError, toMcpError } from "./errors";
import { Input, InputRequired } from "./input";
import { notification, type JsonRpcNotification } from "./jsonrpc";
import { UrlElicitationRequired } from "./url-elicitation";
import type { Registry } from "./registry";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type Json, type LogLevel } from "./types";

export interface ExecuteOptions {
  era: HandlerContext["era"];
  reg: Registry;
  table: MethodTable;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The lowest level the client wants to receive; undefined sends no log messages. */
  logLevel?: LogLevel;
  progressToken?: string | number;
  /** Answers the client gave to earlier input requests, and the handler's own state from then. */
  answers: Readonly<Record<string, unknown>>;
  state: Json | undefined;
  signal: AbortSignal;
  emit(message: JsonRpcNotification): void;
  notify: Notifier;
  env: unknown;
  principal?: string;
  /** 2025 polling: end the client's connection now; it resumes with Last-Event-ID. */
  closeStream?(retryMs?: number): void;
  /** 2025: sends notifications/elicitation/complete to the session. */
  completeElicitation?(elicitationId: string): void;
}

export type Outcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "input"; required: InputRequired }
  | { kind: "error"; error: McpError };

export async function execute(method: string, params: Record<string, unknown>, options: ExecuteOptions): Promise<Outcome> {
  try {
    return { kind: "result", result: await dispatch(options.table, options.reg, method, params, handlerContext(options)) };
  } catch (thrown) {
    let err = thrown;
    // 2026-07-28 has no -32042: "complete this URL first" is an input round there, asked like any other.
    if (err instanceof UrlElicitationRequired && options.era === "modern") {
      err = INPUT_METHODS.has(method) ? asInputRound(err, options) : new InputRequired({}, undefined);
    }
    if (!(err instanceof InputRequired)) return { kind: "error", error: toMcpError(err) };
    if (INPUT_METHODS.has(method)) return { kind: "input", required: err };
    return { kind: "error", error: new McpError(ErrorCode.InternalError, `${method} cannot ask the client for input`) };
  }
}

/** The InputRequired a 2026 client gets instead of -32042, or -32021 when it cannot open URLs. */
function asInputRound(err: UrlElicitationRequired, o: ExecuteOptions): unknown {
  try {
    return new Input({}, o.state, o.clientCapabilities).require(err.asInputRequests(), o.state);
  } catch (signal) {
    return signal;
  }
}

function handlerContext(o: ExecuteOptions): HandlerContext {
  let lastProgress = -Infinity;
  // Without the logging capability nothing is logged to the client, whatever level it asked for.
  const threshold = o.reg.capabilities.logging && o.logLevel ? LOG_LEVELS.indexOf(o.logLevel) : Infinity;
  return {
    era: o.era,
    protocolVersion: o.protocolVersion,
    clientCapabilities: o.clientCapabilities,
    clientInfo: o.clientInfo,
    signal: o.signal,
    progress(progress, total, message) {
      // Progress must increase, and only a request that asked for it (progressToken) gets it.
      if (o.progressToken === undefined || !(progress > lastProgress)) return;
      lastProgress = progress;
      o.emit(notification("notifications/progress", { progressToken: o.progressToken, progress, total, message }));
    },
    log(level, data, logger) {
      if (LOG_LEVELS.indexOf(level) < threshold) return;
      o.emit(notification("notifications/message", logger ? { level, logger, data } : { level, data }));
    },
    input: new Input(o.answers, o.state, o.clientCapabilities),
    notify: o.notify,
    closeStream: o.closeStream ?? (() => {}),
    completeElicitation: o.completeElicitation ?? (() => {}),
    env: o.env,
    principal: o.principal,
  };
}
