/**
 * The one executor: runs a request against the app for either lane. It builds
 * the one handler context (progress, logging at the client's level,
 * cancellation, input, notify, env) and dispatches. What the handler emits goes
 * to `emit`: the 2026 lane writes it to the request's SSE response, the 2025
 * lane to the session's durable stream log. The lanes keep only what differs:
 * validation, routing and storage.
 */
import { ANONYMOUS, authView, type Caller } from "./auth";
import type { HandlerContext, Notifier } from "./context";
import { dispatch, hasMethod } from "./dispatch";
import { ErrorCode, McpError, toMcpError } from "./errors";
import { Input, InputRequired } from "./input";
import { operationOf, takesInput } from "./operations";
import type { Revision } from "./revisions/revision";
import { StartTask } from "./tasks";
import { notification, type JsonRpcNotification } from "./jsonrpc";
import { UrlElicitationRequired } from "./url-elicitation";
import type { Registry } from "./registry";
import { loggedName, pseudonym, report, runHook, traceIdOf, type Reporting, type RequestRecord } from "./telemetry";
import { endAttributes, inSpan, operationAttributes } from "./tracing";
import type { UserStore } from "./user-state";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type Json, type LogLevel } from "./types";

export interface ExecuteOptions {
  /** The revision the request is served in: its methods, and how it asks for a completed URL. */
  revision: Revision;
  reg: Registry;
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
  /** Who is calling (ctx.caller; ctx.auth is its view when authenticated); undefined: anonymous, unknown address. */
  caller?: Caller;
  /** 2025 polling: end the client's connection now; it resumes with Last-Event-ID. */
  closeStream?(retryMs?: number): void;
  /** Where the request is reported (log line, metrics, the app's hooks); omitted, nothing is. */
  reporting?: Reporting;
  /** 2025: sends notifications/elicitation/complete to the session. */
  completeElicitation?(elicitationId: string): void;
  /**
   * Set when the request runs inside a task: its id, and its `ctx.step`, which keeps finished steps
   * (the task runtime brings it, so an app without tasks carries none of it).
   */
  task?: { id: string; step: HandlerContext["step"]; cutShort?: number };
  /** A request that may become a task: `ctx.startTask()` stops it with the "task" outcome. */
  canStartTask?: boolean;
  /**
   * Set when the lane cannot carry an input round (2026-07-28 without MCP_STATE_SECRET to seal it):
   * a handler that asks for input ends with this error, and is reported as the error it is.
   */
  inputUnavailable?: McpError;
  /**
   * What the lane serves in place of the handler (a call that becomes a task: its create; the task
   * methods; a 2025 resources/subscribe; the admission of a stream the lane holds, subscriptions/listen
   * and events/stream), so the middleware chain and the report run around it as around any call.
   */
  serve?: () => Promise<Record<string, unknown>>;
}

/** What names the span and the metrics index of a method the server does not have. */
const UNKNOWN_METHOD = "unknown method";

export type Outcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "input"; required: InputRequired }
  | { kind: "task"; start: StartTask }
  | { kind: "error"; error: McpError };

/**
 * The one path of every request that names an operation, on both revisions: the middleware chain
 * around the handler (or around what the lane serves itself, `serve`), inside the request's report
 * (span, log line, metrics point, the app's hooks).
 */
export function execute(method: string, params: Record<string, unknown>, options: ExecuteOptions): Promise<Outcome> {
  return reported(method, params, options, () => run(method, params, options));
}

/** What `execute` needs to report a request: the revision and registry, the caller, where it goes. */
type ReportOptions = Pick<ExecuteOptions, "protocolVersion" | "revision" | "reg" | "caller" | "reporting" | "task" | "serve">;

/** The request's report around `work` (execute's); the lanes serve every request through `execute`. */
export async function reported(
  method: string,
  params: Record<string, unknown>,
  options: ReportOptions,
  work: () => Promise<Outcome>,
): Promise<Outcome> {
  const { reporting } = options;
  if (!reporting) return work();
  const op = operationOf(method, params);
  const registered = op && reporting.registered?.(op.guard);
  // A task id is the span's mcp.task.id; the log line names tools, prompts and resources.
  const name = op?.target === undefined || op.kind === "task" ? undefined : loggedName(op.attribute === "mcp.resource.uri", op.target);
  // A method the server does not have is "unknown method" in the span, the log line and the metrics:
  // a name a client made up never names a span or an index row, nor grows a line.
  const { revision } = options;
  // What the lane serves itself (`serve`) it has already recognised.
  const known = op || options.serve || hasMethod(revision.methods, options.reg, method) ? method : UNKNOWN_METHOD;
  return inSpan(reporting.tracer, registered === undefined ? known : `${method} ${registered}`, async (span) => {
    const started = Date.now();
    const about = {
      revision: options.protocolVersion,
      lane: revision.era,
      method: known,
      name,
      traceId: traceIdOf(reporting.trace.traceparent),
    };
    runHook(() => reporting.hooks?.onRequest?.(about), about.traceId);
    const outcome = await work();
    const record: RequestRecord = { ...about, ...outcomeOf(outcome), durationMs: Date.now() - started };
    if (options.caller?.principal) record.principal = await pseudonym(options.caller.principal, reporting.salt);
    if (reporting.sessionId) record.session = await pseudonym(reporting.sessionId, reporting.salt);
    if (reporting.quirks?.length) record.quirks = reporting.quirks.join("+");
    report(record, reporting, registered);
    // The task: the one this run is of, the one asked about, or the one the call made (2026: result.taskId, 2025: result.task.taskId).
    const made = (outcome as { result?: { taskId?: unknown; task?: { taskId?: unknown } } }).result;
    if (span)
      endAttributes(
        span,
        operationAttributes(known, op?.attribute, name, options.protocolVersion, reporting.trace.traceparent, reporting.requestId),
        record,
        options.task?.id ?? params.taskId ?? made?.taskId ?? made?.task?.taskId,
        options.task?.cutShort,
      );
    return outcome;
  });
}

async function run(method: string, params: Record<string, unknown>, options: ExecuteOptions): Promise<Outcome> {
  try {
    const ctx = handlerContext(options);
    const next = options.serve ?? (() => dispatch(options.revision.methods, options.reg, method, params, ctx));
    // The middleware chain runs around every operation (docs/middleware.md); most apps have none.
    return { kind: "result", result: await (options.reg.chain ? options.reg.chain(method, params, ctx, next) : next()) };
  } catch (thrown) {
    const err = thrown instanceof UrlElicitationRequired ? options.revision.urlElicitation(thrown, method, options) : thrown;
    if (err instanceof StartTask) return { kind: "task", start: err };
    if (!(err instanceof InputRequired)) return { kind: "error", error: toMcpError(err) };
    if (takesInput(method))
      return options.inputUnavailable ? { kind: "error", error: options.inputUnavailable } : { kind: "input", required: err };
    return { kind: "error", error: new McpError(ErrorCode.InternalError, `${method} cannot ask the client for input`) };
  }
}

function outcomeOf(outcome: Outcome): Pick<RequestRecord, "outcome" | "errorCode"> {
  if (outcome.kind === "error") return { outcome: "error", errorCode: outcome.error.code };
  if (outcome.kind === "input") return { outcome: "input_required" };
  if (outcome.kind === "task" || outcome.result.resultType === "task" || "task" in outcome.result) return { outcome: "task" };
  return { outcome: outcome.result.isError === true ? "tool_error" : "result" };
}

function handlerContext(o: ExecuteOptions): HandlerContext {
  let lastProgress = -Infinity;
  let user: UserStore | undefined;
  let input: Input | undefined;
  // Without the logging capability nothing is logged to the client, whatever level it asked for.
  const threshold = o.reg.capabilities.logging && o.logLevel ? LOG_LEVELS.indexOf(o.logLevel) : Infinity;
  return {
    era: o.revision.era,
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
    // Made when a handler first reads it: most calls never ask the client for anything.
    get input() {
      return (input ??= new Input(o.answers, o.state, o.clientCapabilities));
    },
    notify: o.notify,
    closeStream: o.closeStream ?? (() => {}),
    completeElicitation: o.completeElicitation ?? (() => {}),
    env: o.env,
    principal: o.caller?.principal || undefined,
    auth: authView(o.caller),
    caller: o.caller ?? ANONYMOUS,
    // Opened when a handler first reads it: a request that never does touches no storage.
    get user() {
      if (!o.reg.userState) throw new McpError(ErrorCode.InternalError, "ctx.user needs userState in defineApp (docs/state.md)");
      return (user ??= o.reg.userState.open(o.env, o.caller?.principal || undefined));
    },
    trace: o.reporting?.trace ?? {},
    step: o.task?.step ?? (async (_name, fn) => fn()),
    startTask() {
      if (o.canStartTask) throw new StartTask(o.answers);
    },
    task: o.task ? { id: o.task.id } : undefined,
    // A surface's tools call the app's through it (surfaces/inner-call.ts); an app without a surface has none.
    callTool: o.reg.surface?.caller(o),
  };
}
