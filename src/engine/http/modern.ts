import { authView, refusedScopes } from "../mcp/auth";
import { reportingFor } from "../reporting";
import { readTrace, type TraceContext } from "../mcp/telemetry";
import type { Notifier } from "../mcp/context";
import { hasMethod } from "../mcp/dispatch";
import { operationOf, takesInput } from "../mcp/operations";
import { encodeInputRequired, encodeModernResult } from "../mcp/encode";
import { methodNotFound, toMcpError } from "../mcp/errors";
import { execute } from "../mcp/execute";
import { errorResponse, resultResponse, type JsonRpcRequest } from "../mcp/jsonrpc";
import { LazyStream } from "../mcp/lazy-stream";
import { MODERN } from "../mcp/revisions";
import { declaresTasks, tasksExtensionRequired } from "../mcp/revisions/2026-07-28";
import { readEnvelope, type Envelope } from "../mcp/revisions/envelope";
import { checkParamHeaders, checkRoutingHeaders, requiredHeader } from "./headers";
import { oneVersion } from "./quirks";
import { noted } from "../mcp/quirks";
import type { Admitted } from "./admitted";
import { closeRound, openRound, requestDigest, type Binding, type RoundInput } from "./input-state";
import { json, rpcError } from "./responses";
import { SseStream } from "./sse";
import { missingSecret } from "./seal";
import { failedStatus, refusedStatus } from "./status";
import type { serveModernTaskMethod, startModernTask } from "./tasks";
import { argumentProblem } from "../mcp/methods/tools";
import type { StartTask } from "../mcp/tasks";

/** The admitted request (one type for both lanes), and what the 2026-07-28 lane adds to it. */
interface LaneDeps extends Admitted {
  waitUntil(p: Promise<unknown>): void;
  notify: Notifier;
  /** The task runtime's part for this lane; an app with task tools always has it (createMcpWorker). */
  tasks?: { startModernTask: typeof startModernTask; serveModernTaskMethod: typeof serveModernTaskMethod };
  /** Serves subscriptions/listen (it needs the hub). */
  listen(request: JsonRpcRequest, envelope: Envelope): Promise<Response>;
}

/**
 * Steps 1–8 of the ladder; throws the McpError of the first failed step. Unless `strict`, a version
 * header a proxy repeated, or one naming another known revision, is served (http/quirks.ts) and
 * added to `deps.quirks`.
 */
function validateModernRequest(request: Request, msg: JsonRpcRequest, deps: LaneDeps): Envelope {
  const { reg } = deps;
  const strict = deps.config.strictHeaders;
  const params = msg.params ?? {};
  const sent = requiredHeader(request.headers, "MCP-Protocol-Version");
  const header = oneVersion(sent, strict)!;
  if (header !== sent) deps.quirks = noted(deps.quirks, "version-repeated");
  const envelope = readEnvelope(
    params,
    header,
    (caps) => {
      checkRoutingHeaders(request.headers, msg.method, params);
      // The task methods exist when some tool runs as a task; the lane serves them, not the core's table.
      const taskMethod = reg.hasTasks && MODERN.taskMethods.has(msg.method);
      if (msg.method !== "subscriptions/listen" && !taskMethod && !hasMethod(MODERN.methods, reg, msg.method))
        throw methodNotFound(msg.method);
      if (taskMethod && !declaresTasks(caps)) throw tasksExtensionRequired();
    },
    !strict,
  );
  if (header !== envelope.protocolVersion) deps.quirks = noted(deps.quirks, "version-other");

  if (msg.method === "tools/call" && typeof params.name === "string") {
    const tool = reg.tools.get(params.name);
    if (tool) checkParamHeaders(request.headers, tool, params.arguments);
  }
  return envelope;
}

export async function serveModernRequest(request: Request, msg: JsonRpcRequest, deps: LaneDeps): Promise<Response> {
  let envelope: Envelope;
  try {
    envelope = validateModernRequest(request, msg, deps);
  } catch (err) {
    const e = toMcpError(err);
    return rpcError(msg.id, MODERN.encodeError(e), refusedStatus(e.code));
  }
  return serveThroughCore(request, msg, envelope, deps);
}

/** What the lane holds open itself (subscriptions/listen, an extension's stream: events/stream), or undefined. */
function heldStream(msg: JsonRpcRequest, envelope: Envelope, deps: LaneDeps): (() => Promise<Response>) | undefined {
  if (msg.method === "subscriptions/listen") return () => deps.listen(msg, envelope);
  const own = deps.reg.ext?.methods.get(msg.method)?.respond;
  if (own) return () => own(msg, { env: deps.env, auth: authView(deps.caller), clientKey: deps.caller.rateLimitKey });
}

/** A held stream, opened inside the chain: a step that refuses it gets its error, and no stream stays open. */
async function serveHeld(run: Run, open: () => Promise<Response>): Promise<Reply> {
  let stream: Response | undefined;
  const outcome = await execute(run.msg.method, run.params, {
    ...run.core,
    answers: {},
    state: undefined,
    serve: async () => {
      stream = await open();
      return {};
    },
  });
  if (outcome.kind !== "error") return { body: {}, status: 200, stream };
  void stream?.body?.cancel();
  throw outcome.error;
}

/** Every other method: answered as JSON, or as SSE once the handler emits a notification first. */
async function serveThroughCore(request: Request, msg: JsonRpcRequest, envelope: Envelope, deps: LaneDeps): Promise<Response> {
  const abort = new AbortController();
  // A client that goes away cancels its request (2026-07-28), whether it was waiting for JSON or reading SSE.
  request.signal?.addEventListener("abort", () => abort.abort());
  const out = new LazyStream(
    () => {
      const sse = new SseStream(() => abort.abort());
      sse.startKeepAlive();
      return sse;
    },
    (sse, message) => sse.send(message),
    abort.signal,
  );
  const trace = readTrace(msg.params?._meta, request.headers.get("traceparent"));
  // A client that accepts only JSON is sent no notifications: its answer stays JSON (http/quirks.ts).
  const work = respond(msg, envelope, { ...deps, trace }, abort.signal, deps.quirks?.includes("accept-json") ? () => {} : out.emit);
  const first = await out.settle(work);
  if (first?.stream) return first.stream;
  if (first?.scopes) return deps.scopeChallenge(msg.id, first.scopes);
  if (first) return json(first.body, first.status);
  const sse = out.stream!;
  deps.waitUntil(
    work.then((reply) => {
      if (!abort.signal.aborted) sse.send(reply.body);
      sse.close();
    }),
  );
  return sse.response;
}

interface Reply {
  body: object;
  status: number;
  /** A step-up refusal: the scopes its 403 challenge names. */
  scopes?: string[];
  /** A stream the lane holds (heldStream), answered as it is. */
  stream?: Response;
}

/** One request as the core is told of it, and how a result goes back. */
interface Run {
  msg: JsonRpcRequest;
  params: Record<string, unknown>;
  envelope: Envelope;
  deps: LaneDeps & { trace: TraceContext };
  /** What the core is told of this request, whether it runs a handler or only reports one the lane serves. */
  core: ReturnType<typeof coreOptionsOf>;
}

function coreOptionsOf(
  msg: JsonRpcRequest,
  envelope: Envelope,
  deps: LaneDeps & { trace: TraceContext },
  signal: AbortSignal,
  emit: (m: object) => void,
) {
  const { reg, config, env, caller, trace } = deps;
  return {
    ...envelope,
    logLevel: MODERN.logLevel(envelope.logLevel),
    revision: MODERN,
    reg,
    signal,
    emit,
    notify: deps.notify,
    env,
    caller,
    reporting: reportingFor(config, env, reg, trace, undefined, msg.id, deps.quirks),
  };
}

/** A result as 2026-07-28 sends it, in the JSON-RPC response to this request. */
const reply = (run: Run, result: Record<string, unknown>): Reply => ({
  body: resultResponse(run.msg.id, encodeModernResult(run.msg.method, result, run.deps.reg, run.deps.caller.principal || undefined)),
  status: 200,
});

/** Runs the request through the core and encodes the outcome for 2026-07-28; never throws. */
async function respond(
  msg: JsonRpcRequest,
  envelope: Envelope,
  deps: LaneDeps & { trace: TraceContext },
  signal: AbortSignal,
  emit: (m: object) => void,
): Promise<Reply> {
  try {
    const run: Run = { msg, params: msg.params ?? {}, envelope, deps, core: coreOptionsOf(msg, envelope, deps, signal, emit) };
    const held = heldStream(msg, envelope, deps);
    if (held) return await serveHeld(run, held);
    if (MODERN.taskMethods.has(msg.method)) return await serveTaskMethod(run);
    const asTask = msg.method === "tools/call" ? MODERN.asTask(deps.reg, run.params, envelope.clientCapabilities) : "plain";
    if (asTask === "task") return await createTask(run);
    return await serveByHandler(run, asTask === "inline");
  } catch (err) {
    // Errors of the core, and of opening or sealing requestState.
    const e = toMcpError(err);
    return { body: errorResponse(msg.id, MODERN.encodeError(e)), status: failedStatus(e.code), scopes: refusedScopes(e) };
  }
}

/** tasks/*: served by the lane (no handler), through the core's one path (the chain and the report). */
async function serveTaskMethod(run: Run): Promise<Reply> {
  const { msg, params, deps } = run;
  const outcome = await execute(msg.method, params, {
    ...run.core,
    answers: {},
    state: undefined,
    serve: () => deps.tasks!.serveModernTaskMethod(msg.method, params, deps.env, deps.reg, deps.caller),
  });
  if (outcome.kind === "error") throw outcome.error;
  return reply(run, (outcome as { result: Record<string, unknown> }).result);
}

/** A tools/call the client asked to run as a task: the middleware chain runs around creating it, as around a plain call. */
async function createTask(run: Run): Promise<Reply> {
  const { msg, params, deps } = run;
  // A bad argument is answered now, like any call's, not by a task that fails later.
  const problem = argumentProblem(deps.reg, params);
  const made = await execute(msg.method, params, {
    ...run.core,
    answers: {},
    state: undefined,
    serve: async () => (problem as Record<string, unknown> | undefined) ?? startTask(run, {}),
  });
  if (made.kind === "error") throw made.error;
  return reply(run, (made as { result: Record<string, unknown> }).result);
}

/** Starts the task a tools/call runs as, with the input the request gathered (the task runs the handler again from the start). */
function startTask(run: Run, answers: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const { params, envelope, deps } = run;
  const { reg, caller, env, config, trace } = deps;
  return deps.tasks!.startModernTask(
    {
      tool: reg.tools.get(params.name as string)! as Parameters<typeof startModernTask>[0]["tool"],
      principal: caller.principal,
      // Whose budget an anonymous caller's tasks spend (its address), for MAX_TASKS_IN_FLIGHT.
      anonymousKey: caller.rateLimitKey,
      params,
      client: envelope,
      answers: { ...answers },
      trace,
      caller,
    },
    env,
    config,
  );
}

/**
 * The executor's path, most calls: the handler runs in the core (inside the middleware chain); one
 * that asks the user for input opens or closes an input round (requestState), and a tool that may
 * run as a task starts one.
 */
async function serveByHandler(run: Run, canStartTask: boolean): Promise<Reply> {
  const { msg, params, deps } = run;
  const { method } = msg;
  const { config } = deps;
  const op = operationOf(method, params);
  const input = takesInput(method);
  const bind: Binding = { method, target: op?.target ?? "", principal: deps.caller.principal || "", digest: "" };
  // The digest binds a requestState to the request's arguments: needed to open one, or to seal one
  // when the handler asks for input, and not for the plain call that is most calls.
  const digest = async () => (bind.digest ||= await requestDigest(method, params));
  if (input && params.requestState !== undefined) await digest();
  const round: RoundInput = input ? await openRound(params, bind, config) : { answers: Object.create(null), state: undefined };
  const outcome = await execute(method, params, {
    ...run.core,
    ...round,
    canStartTask,
    inputUnavailable: config.stateSecret ? undefined : missingSecret(),
  });
  // The input the request gathered goes into the task, which runs the handler again from the start.
  if (outcome.kind === "task") return reply(run, await startTask(run, (outcome.start as StartTask).answers));
  if (outcome.kind === "result") return reply(run, outcome.result);
  if (outcome.kind === "error") throw outcome.error;
  await digest();
  const { inputRequests, requestState } = await closeRound(outcome.required, round, bind, config, config.inputStateTtlSeconds);
  return { body: resultResponse(msg.id, encodeInputRequired(MODERN.inputRequests(inputRequests), requestState, deps.reg)), status: 200 };
}
