/**
 * The one executor: runs a request against the app for either lane. It builds
 * the one handler context (progress, logging at the client's level,
 * cancellation, input, notify, env) and dispatches. What the handler emits goes
 * to `emit`: the 2026 lane writes it to the request's SSE response, the 2025
 * lane to the session's durable stream log. The lanes keep only what differs:
 * validation, routing and storage.
 */
import type { Auth } from "./auth";
import type { HandlerContext, Notifier } from "./context";
import { INPUT_METHODS, dispatch } from "./dispatch";
import { ErrorCode, McpError, toMcpError } from "./errors";
import { Input, InputRequired } from "./input";
import type { Revision } from "./revisions/revision";
import { StartTask } from "./tasks";
import { notification, type JsonRpcNotification } from "./jsonrpc";
import { UrlElicitationRequired } from "./url-elicitation";
import type { Registry } from "./registry";
import { loggedName, pseudonym, report, runHook, traceIdOf, type Reporting, type RequestRecord } from "./telemetry";
import { endAttributes, inSpan, operationAttributes } from "./tracing";
import type { UserStore } from "./user-state";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type Json, type LogLevel } from "./types";

interface ExecuteOptions {
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
  principal?: string;
  /** The authenticated caller (ctx.auth); undefined when authorization is off. */
  auth?: Auth;
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
   * What the lane serves in place of the handler (a call that becomes a task: its create), so the
   * app's policy runs around it with the caller's auth as around any call.
   */
  serve?: () => Promise<Record<string, unknown>>;
}

export type Outcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "input"; required: InputRequired }
  | { kind: "task"; start: StartTask }
  | { kind: "error"; error: McpError };

export function execute(method: string, params: Record<string, unknown>, options: ExecuteOptions): Promise<Outcome> {
  return reported(method, params, options, () => run(method, params, options));
}

/**
 * Reports a request that the lane serves itself (a call that becomes a task, the task methods) the
 * way `execute` reports the ones the core runs: one log line, the metrics point, the app's hooks.
 */
export async function reported(
  method: string,
  params: Record<string, unknown>,
  options: Pick<ExecuteOptions, "protocolVersion" | "revision" | "principal" | "reporting" | "task">,
  work: () => Promise<Outcome>,
): Promise<Outcome> {
  const { reporting } = options;
  if (!reporting) return work();
  const target = targetOf(method, params);
  const registered = target === undefined ? undefined : reporting.registered?.(method, target);
  const name = target === undefined ? undefined : loggedName(method, target);
  // The span's name holds the app's name for the target, never one a client made up: names stay few.
  return inSpan(reporting.tracer, registered === undefined ? method : `${method} ${registered}`, async (span) => {
    const started = Date.now();
    const about = { revision: options.protocolVersion, lane: options.revision.era, method, name, traceId: traceIdOf(reporting.trace.traceparent) };
    runHook(() => reporting.hooks?.onRequest?.(about), about.traceId);
    const outcome = await work();
    const record: RequestRecord = { ...about, ...outcomeOf(outcome), durationMs: Date.now() - started };
    if (options.principal) record.principal = await pseudonym(options.principal, reporting.salt);
    if (reporting.sessionId) record.session = await pseudonym(reporting.sessionId, reporting.salt);
    report(record, reporting, registered);
    // The task: the one this run is of, the one asked about, or the one the call made (2026: result.taskId, 2025: result.task.taskId).
    const made = (outcome as { result?: { taskId?: unknown; task?: { taskId?: unknown } } }).result;
    if (span) endAttributes(span, operationAttributes(method, name, options.protocolVersion, reporting.trace.traceparent, reporting.requestId), record, options.task?.id ?? params.taskId ?? made?.taskId ?? made?.task?.taskId, options.task?.cutShort);
    return outcome;
  });
}

async function run(method: string, params: Record<string, unknown>, options: ExecuteOptions): Promise<Outcome> {
  try {
    const ctx = handlerContext(options);
    const next = options.serve ?? (() => dispatch(options.revision.methods, options.reg, method, params, ctx));
    // The app's policy runs around every operation (docs/authorization.md); most apps have none.
    return { kind: "result", result: await (options.reg.policy ? options.reg.policy(method, params, ctx, next) : next()) };
  } catch (thrown) {
    const err = thrown instanceof UrlElicitationRequired ? options.revision.urlElicitation(thrown, method, options) : thrown;
    if (err instanceof StartTask) return { kind: "task", start: err };
    if (!(err instanceof InputRequired)) return { kind: "error", error: toMcpError(err) };
    if (INPUT_METHODS.has(method)) return options.inputUnavailable ? { kind: "error", error: options.inputUnavailable } : { kind: "input", required: err };
    return { kind: "error", error: new McpError(ErrorCode.InternalError, `${method} cannot ask the client for input`) };
  }
}

/** The tool or prompt a request names, or the resource it reads, as the client wrote it. */
function targetOf(method: string, params: Record<string, unknown>): string | undefined {
  const target = method === "resources/read" ? params.uri : method === "tools/call" || method === "prompts/get" ? params.name : undefined;
  return typeof target === "string" ? target : undefined;
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
    input: new Input(o.answers, o.state, o.clientCapabilities),
    notify: o.notify,
    closeStream: o.closeStream ?? (() => {}),
    completeElicitation: o.completeElicitation ?? (() => {}),
    env: o.env,
    principal: o.principal,
    auth: o.auth,
    // Opened when a handler first reads it: a request that never does touches no storage.
    get user() {
      if (!o.reg.userState) throw new McpError(ErrorCode.InternalError, "ctx.user needs userState in defineApp (docs/state.md)");
      return (user ??= o.reg.userState.open(o.env, o.principal));
    },
    trace: o.reporting?.trace ?? {},
    step: o.task?.step ?? (async (_name, fn) => fn()),
    startTask() {
      if (o.canStartTask) throw new StartTask(o.answers);
    },
    task: o.task ? { id: o.task.id } : undefined,
  };
}
