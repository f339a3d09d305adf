/**
 * What a 2025-11-25 session does with each message the client POSTs:
 * requests (the session-only methods here, everything else through the core),
 * notifications (initialized, cancelled), and responses to the server's own
 * requests, which complete a call waiting for input.
 */
import { encodeLegacyError } from "../mcp/encode";
import { ErrorCode, McpError, invalidParams } from "../mcp/errors";
import { checkInputResponse } from "../mcp/input";
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from "../mcp/jsonrpc";
import { resourceExists } from "../mcp/methods/resources";
import { LOG_LEVELS, type LogLevel } from "../mcp/types";
import { hubStub } from "../http/notify";
import { Execution, runOnce, type CallHost } from "./session-calls";

/** What the Worker turns into an HTTP answer. */
export type LegacyAnswer = { status: number; json?: object } | { status: 200; stream: string; after: number };

export interface SessionHost extends CallHost {
  /** Handlers running in this instance, by JSON of the client's request id (for notifications/cancelled). */
  running: Map<string, Execution>;
  /** Whether the session already holds MAX_STREAMS_PER_SESSION open streams. */
  atStreamLimit(): boolean;
}

/** 429 for a stream the session has no room for; nothing was stored or run. */
export const tooManyStreams = (id: string | number | null): LegacyAnswer => ({
  status: 429,
  json: errorResponse(id, { code: ErrorCode.InvalidRequest, message: "Too Many Requests: this session has too many open streams (MAX_STREAMS_PER_SESSION)" }),
});

const key = (id: unknown) => JSON.stringify(id);

/** Runs a call and keeps it findable while it runs. */
function track(host: SessionHost, exec: Execution, answers: Record<string, unknown>, state: unknown): Promise<object | undefined> {
  host.running.set(key(exec.request.id), exec);
  return runOnce(host, exec, answers, state).then((response) => {
    host.running.delete(key(exec.request.id));
    if (response && exec.stream) exec.finish(response);
    return response;
  });
}

export async function onRequest(host: SessionHost, req: JsonRpcRequest): Promise<LegacyAnswer> {
  const params = req.params ?? {};
  const ok = (result: object = {}): LegacyAnswer => ({ status: 200, json: resultResponse(req.id, result) });
  const fail = (err: McpError, status = 200): LegacyAnswer => ({ status, json: errorResponse(req.id, encodeLegacyError(err)) });
  switch (req.method) {
    case "initialize":
      return fail(new McpError(ErrorCode.InvalidRequest, "This session is already initialized"), 400);
    case "ping":
      return ok();
    case "logging/setLevel":
      if (!LOG_LEVELS.includes(params.level as LogLevel)) return fail(invalidParams(`Invalid log level: ${String(params.level)}`));
      host.session.logLevel = params.level as LogLevel;
      await host.store.putSession(host.session);
      return ok();
    case "resources/subscribe":
    case "resources/unsubscribe":
      return subscribe(host, req, params.uri);
  }
  // Everything else goes through the core; the answer is JSON unless the call opens a stream first.
  // A call may need a stream: with no room for one it is refused before it runs, not run and its answer lost.
  if (host.atStreamLimit()) return tooManyStreams(req.id);
  const exec = new Execution(host, req);
  const done = track(host, exec, {}, undefined);
  const first = await Promise.race([done, exec.opened.then(() => null)]);
  if (first && !exec.stream) return { status: 200, json: first };
  return { status: 200, stream: exec.stream!, after: -1 };
}

async function subscribe(host: SessionHost, req: JsonRpcRequest, uri: unknown): Promise<LegacyAnswer> {
  const answer = (body: object): LegacyAnswer => ({ status: 200, json: body });
  if (!host.reg.capabilities.resources?.subscribe) return answer(errorResponse(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` }));
  if (typeof uri !== "string") return answer(errorResponse(req.id, invalidParams(`${req.method} needs params.uri`).toJSON()));
  if (!resourceExists(host.reg, uri)) return answer(errorResponse(req.id, { code: ErrorCode.ResourceNotFoundLegacy, message: `Resource not found: ${uri}`, data: { uri } }));
  const subs = new Set(host.session.subscriptions);
  if (req.method === "resources/subscribe") subs.add(uri);
  else subs.delete(uri);
  host.session.subscriptions = [...subs];
  await host.store.putSession(host.session);
  await hubStub(host.bindings).register(host.session.id, host.session.subscriptions);
  return answer(resultResponse(req.id, {}));
}

export async function onNotification(host: SessionHost, method: string, params: Record<string, unknown>): Promise<LegacyAnswer> {
  if (method === "notifications/initialized" && !host.session.initialized) {
    host.session.initialized = true;
    await host.store.putSession(host.session);
  } else if (method === "notifications/cancelled") {
    cancel(host, params.requestId);
  }
  return { status: 202 };
}

/** Stops a call: no result is sent (the spec's SHOULD), its stream ends. */
function cancel(host: SessionHost, requestId: unknown): void {
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const exec = host.running.get(key(requestId));
  if (exec) {
    exec.cancelled = true;
    exec.abort.abort();
    exec.end();
    host.running.delete(key(requestId));
    return;
  }
  // A call waiting for input (perhaps after an eviction) has no handler in memory, only its stored record.
  const stream = host.store.findCallByRequestId(requestId);
  if (stream) new Execution(host, { jsonrpc: "2.0", id: requestId, method: "" }, stream).end();
}

/** The client's answer to one of our requests, arriving as its own POST. */
export async function onResponse(host: SessionHost, msg: JsonRpcResponse): Promise<LegacyAnswer> {
  const pending = typeof msg.id === "string" ? host.store.takePending(msg.id) : undefined;
  if (!pending) return { status: 400, json: errorResponse(null, { code: ErrorCode.InvalidRequest, message: `No pending server request has id ${JSON.stringify(msg.id)}` }) };
  const call = host.store.getCall(pending.stream);
  if (!call) return { status: 202 };
  const request = JSON.parse(call.request) as JsonRpcRequest;
  const exec = new Execution(host, request, pending.stream);
  if ("error" in msg) {
    exec.finish(errorResponse(request.id, { code: ErrorCode.InternalError, message: `The client answered ${pending.method} with an error: ${msg.error.message}` }));
    return { status: 202 };
  }
  try {
    checkInputResponse(pending.key, pending.method, msg.result);
  } catch (err) {
    // The request stays pending: the client can still send a well-formed answer.
    host.store.addPending(pending);
    return { status: 400, json: errorResponse(null, (err as McpError).toJSON()) };
  }
  call.answers[pending.key] = msg.result;
  host.store.putCall(call);
  // Run the handler again once every answer of this round is in.
  if (host.store.pendingCount(pending.stream) === 0) void track(host, exec, call.answers, call.state);
  return { status: 202 };
}
