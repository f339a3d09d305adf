/**
 * What a 2025-11-25 session does with each message the client POSTs:
 * requests (the session-only methods here, everything else through the core),
 * notifications (initialized, cancelled), and responses to the server's own
 * requests, which complete a call waiting for input.
 */
import type { Quirks } from "../mcp/quirks";
import { refusedScopes, type Caller } from "../mcp/auth";
import { ErrorCode, McpError, ResourceNotFound, invalidParams, methodNotFound } from "../mcp/errors";
import { checkInputResponse } from "../mcp/input";
import { resourceExists } from "../mcp/methods/resources";
import { resultResponse, errorResponse, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from "../mcp/jsonrpc";
import { LEGACY } from "../mcp/revisions";
import { readTrace } from "../mcp/telemetry";
import { LOG_LEVELS, type Json, type LogLevel } from "../mcp/types";
import { hubStub } from "./addresses";
import type { SessionAnswer } from "./contracts";
import { refuse, tooManySessions, tooManyStreams } from "./session-refusals";
import { Call, servedInChain, endCall, runCall, type CallHost } from "./session-calls";
import type { SessionTasks } from "./session-tasks";

export interface SessionHost extends CallHost {
  /** Handlers running in this instance, by JSON of the client's request id (for notifications/cancelled). */
  running: Map<string, Call>;
  /** Whether the session already holds MAX_STREAMS_PER_SESSION open streams. */
  atStreamLimit(): boolean;
  /** The session's side of tasks; only an app with task tools has it. */
  readonly tasks?: SessionTasks;
  /** Whether the session ended (DELETE, expiry) while this step ran. */
  readonly ended: boolean;
}

const ACCEPTED: SessionAnswer = { kind: "accepted" };

/** The longest URI a session subscribes to; real resource URIs are far shorter, and each is stored twice. */
const MAX_SUBSCRIPTION_URI_LENGTH = 4096;
const key = (id: unknown) => JSON.stringify(id);

/** Runs a call and keeps it findable while it runs; its answer ends its stream when it has one. */
function track(host: SessionHost, call: Call, answers: Record<string, unknown>, state: Json | undefined): Promise<object | undefined> {
  host.running.set(key(call.request.id), call);
  return runCall(host, call, answers, state).then((response) => {
    host.running.delete(key(call.request.id));
    if (response && call.out.stream !== undefined && !call.abort.signal.aborted) endCall(host, call.out.stream, response);
    return response;
  });
}

export async function onRequest(
  host: SessionHost,
  req: JsonRpcRequest,
  caller: Caller,
  traceparent?: string,
  quirks?: Quirks,
): Promise<SessionAnswer> {
  const params = req.params ?? {};
  const reply = (message: object): SessionAnswer => ({ kind: "reply", message });
  const ok = (result: object = {}) => reply(resultResponse(req.id, result));
  const fail = (err: McpError) => reply(errorResponse(req.id, LEGACY.encodeError(err)));
  switch (req.method) {
    case "initialize":
      return refuse("invalid", req.id, "This session is already initialized");
    case "ping":
      return ok();
    case "logging/setLevel":
      // Without the logging capability the method does not exist, and nothing is logged to the client.
      if (!host.reg.capabilities.logging) return fail(methodNotFound(req.method));
      if (!LOG_LEVELS.includes(params.level as LogLevel)) return fail(invalidParams(`Invalid log level: ${String(params.level)}`));
      if (!(await host.seat.admit())) return tooManySessions(req.id, host.seat.cap);
      host.session.logLevel = params.level as LogLevel;
      await host.save();
      return ok();
    case "resources/subscribe":
    case "resources/unsubscribe":
      // Through the one path: its scope check (subscribing needs what reading needs) and the app's steps.
      return servedInChain(
        host,
        req,
        caller,
        async () => {
          if (!host.reg.capabilities.resources?.subscribe) return fail(methodNotFound(req.method));
          if (typeof params.uri !== "string") return fail(invalidParams(`${req.method} needs params.uri`));
          // Subscriptions are stored in the session and in the hub: their number and size are capped.
          if (params.uri.length > MAX_SUBSCRIPTION_URI_LENGTH)
            return fail(invalidParams(`${req.method}: the uri is longer than ${MAX_SUBSCRIPTION_URI_LENGTH} characters`));
          if (!resourceExists(host.reg, params.uri)) return fail(new ResourceNotFound(params.uri));
          const add = req.method === "resources/subscribe";
          // Before the set is read: with no await between reading and storing it, concurrent subscribes never overwrite each other.
          if (add && !(await host.seat.admit())) return tooManySessions(req.id, host.seat.cap);
          const subs = new Set(host.session.subscriptions);
          // Nothing to change, nothing to store: a session that holds no state keeps holding none.
          if (subs.has(params.uri) === add) return ok();
          if (add && subs.size >= host.config.maxSubscriptionsPerSession)
            return fail(
              invalidParams(
                `This session already has ${subs.size} resource subscriptions (MAX_SUBSCRIPTIONS_PER_SESSION); unsubscribe from one first`,
              ),
            );
          if (add) subs.add(params.uri);
          else subs.delete(params.uri);
          await saveSubscriptions(host, [...subs]);
          return ok();
        },
        quirks,
      );
  }
  if (host.tasks) {
    // tasks/* and a tools/call the task rules decide are the task runtime's; nothing to await for any other.
    const asTask = host.tasks.onRequest(host, req, reply, caller);
    const answer = asTask && (await asTask);
    if (answer) return answer;
  } else if (LEGACY.taskMethods.has(req.method)) return fail(methodNotFound(req.method));
  // Everything else goes through the core; the answer is JSON unless the call opens a stream first.
  // A call may need a stream: with no room for one it is refused before it runs, not run and its answer lost.
  if (host.atStreamLimit()) return tooManyStreams(req.id);
  const call = new Call(host, req, caller, undefined, readTrace(params._meta, traceparent), quirks);
  const first = await call.out.settle(track(host, call, {}, undefined));
  // It had to ask the client something while its client holds SESSION_MAX_LIVE sessions: nothing was stored.
  if (call.askedOverCap) return tooManySessions(req.id, host.seat.cap);
  // Cancelled while the POST waited for JSON: the spec says not to answer a cancelled request, but the
  // POST still needs an HTTP answer. 202 with no body is what the transport gives a message that gets
  // no JSON-RPC response, and clients accept it on any POST (the client already gave up on the id); an
  // SSE stream instead would invite a Last-Event-ID resume for an answer that never comes.
  if (first && call.abort.signal.aborted) return ACCEPTED;
  if (first) return serialized(first, req.id);
  return { kind: "stream", stream: call.out.stream!, after: -1 };
}

/**
 * A call's answer as the Worker sends it: its JSON text, made once here, so neither side serialises it
 * again nor clones it as an object across the RPC boundary. A result JSON cannot carry (a BigInt, a
 * cycle) gets -32603, never a 500. A step-up refusal stays an object: the Worker makes its 403
 * challenge of the scopes it names.
 */
function serialized(response: object, id: RequestId): SessionAnswer {
  if (refusedScopes((response as { error?: { code: number; data?: unknown } }).error)) return { kind: "reply", message: response };
  try {
    return { kind: "json", text: JSON.stringify(response) };
  } catch (err) {
    console.error("A handler's result is not JSON:", err);
    return {
      kind: "reply",
      message: errorResponse(id, { code: ErrorCode.InternalError, message: "The server's handler returned a result that is not JSON" }),
    };
  }
}

/** Stores the session's resource subscriptions; the hub learns the new set. */
async function saveSubscriptions(host: SessionHost, subscriptions: string[]): Promise<void> {
  host.session.subscriptions = subscriptions;
  host.session.registered = true;
  await host.save();
  const hub = hubStub(host.bindings, host.session.hubShard);
  await hub.register(host.session.id, host.session.subscriptions);
  // Ended meanwhile: its end may have unregistered it before this registration arrived.
  if (host.ended) await hub.unregister(host.session.id);
}

export async function onNotification(host: SessionHost, method: string, params: Record<string, unknown>): Promise<SessionAnswer> {
  // notifications/initialized changes nothing here: nothing waits for it, so it stores nothing.
  if (method === "notifications/cancelled") {
    cancel(host, params.requestId);
  }
  return ACCEPTED;
}

/** Stops a call: no result is sent (the spec's SHOULD), its stream ends. */
function cancel(host: SessionHost, requestId: unknown): void {
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const call = host.running.get(key(requestId));
  if (call) {
    call.abort.abort();
    if (call.out.stream !== undefined) endCall(host, call.out.stream);
    host.running.delete(key(requestId));
    return;
  }
  // A call waiting for input (perhaps after an eviction) has no handler in memory, only its stored record.
  const stream = host.store.findCallByRequestId(requestId);
  if (stream) endCall(host, stream);
}

/** The client's answer to one of our requests, arriving as its own POST. */
export async function onResponse(host: SessionHost, msg: JsonRpcResponse, caller: Caller): Promise<SessionAnswer> {
  const pending = typeof msg.id === "string" ? host.store.takePending(msg.id) : undefined;
  if (!pending) return refuse("invalid", null, `No pending server request has id ${JSON.stringify(msg.id)}`);
  // Any answer to our ping, even an error, says the client is there; nothing else waits on it.
  if (pending.method === "ping") return ACCEPTED;
  const stored = host.store.getCall(pending.stream);
  if (!stored) return ACCEPTED;
  const request = JSON.parse(stored.request) as JsonRpcRequest;
  if ("error" in msg) {
    endCall(
      host,
      pending.stream,
      errorResponse(request.id, {
        code: ErrorCode.InternalError,
        message: `The client answered ${pending.method} with an error: ${msg.error.message}`,
      }),
    );
    return ACCEPTED;
  }
  try {
    checkInputResponse(pending.key, pending.method, msg.result);
  } catch (err) {
    // The request stays pending: the client can still send a well-formed answer.
    host.store.addPending(pending);
    return { kind: "refused", refusal: "invalid", id: null, error: (err as McpError).toJSON() };
  }
  // An answer to a task's input request, asked on a tasks/result stream, belongs to the task.
  if (request.method === "tasks/result") {
    await host.tasks?.forwardTaskAnswer(host, request, pending.key, msg.result);
    return ACCEPTED;
  }
  stored.answers[pending.key] = msg.result;
  host.store.putCall(stored);
  // Run the handler again once every answer of this round is in.
  if (host.store.pendingCount(pending.stream) === 0) {
    const call = new Call(host, request, caller, pending.stream, readTrace(request.params?._meta));
    void track(host, call, stored.answers, stored.state as Json | undefined);
  }
  return ACCEPTED;
}
