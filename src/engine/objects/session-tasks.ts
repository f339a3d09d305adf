/**
 * Tasks inside a 2025-11-25 session (core tasks of that revision): a
 * task-augmented tools/call creates the task in its own object, and the
 * session serves tasks/get, tasks/list, tasks/cancel and tasks/result. A
 * tasks/result waits on a stream of the session's log until the task ends; the
 * task's input requests go out on that stream as real JSON-RPC requests
 * tagged with the task, and their answers go to the task. The wait is a
 * stored call, so it survives the session object being evicted.
 */
import { authView, type Caller } from "../mcp/auth";
import { ErrorCode, McpError, invalidParams, methodNotFound } from "../mcp/errors";
import { execute } from "../mcp/execute";
import { isObject } from "../mcp/guards";
import { checkProgressToken, errorResponse, notification, resultResponse, type JsonRpcRequest, type RequestId } from "../mcp/jsonrpc";
import { LEGACY, LEGACY_TASKS } from "../mcp/revisions";
import { RELATED_TASK, isTaskId, isTerminal, type TaskView } from "../mcp/tasks";
import { readTrace } from "../mcp/telemetry";
import { taskIndexKey, taskIndexStub, taskStub } from "./addresses";
import type { SessionAnswer, TaskOwner } from "./contracts";
import { endCall, servedInChain, sessionOptions, type CallHost } from "./session-calls";
import { tooManySessions, tooManyStreams } from "./session-refusals";
import { createTask, type TaskCall } from "./task-create";

const related = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

const ownerOf = (host: CallHost): TaskOwner => ({ era: LEGACY.era, principal: host.session.principal, sessionId: host.session.id });
/**
 * An anonymous client's tasks spend its address's budget, however many sessions it opens (a session
 * from before the address was kept spends its own).
 */
const anonymousKeyOf = (host: CallHost) => host.session.clientKey ?? `session:${host.session.id}`;
const indexKeyOf = (host: CallHost) => taskIndexKey(ownerOf(host), anonymousKeyOf(host));

type Reply = (message: object) => SessionAnswer;

/**
 * A tools/call the task rules decide: a CreateTaskResult, or the -32601 the revision's tool-level
 * rules give a call that does not match the tool's taskSupport. Undefined: an ordinary call.
 */
async function taskToolCall(host: CallHost, req: JsonRpcRequest, reply: Reply, caller: Caller): Promise<SessionAnswer | undefined> {
  const params = req.params ?? {};
  let decision: ReturnType<typeof LEGACY.asTask>;
  try {
    decision = LEGACY.asTask(host.reg, params, host.session.clientCapabilities);
  } catch (err) {
    return reply(errorResponse(req.id, LEGACY.encodeError(err as McpError)));
  }
  if (decision !== "task") return undefined;
  // An anonymous session keeps its tasks' ids, which makes it hold state: over SESSION_MAX_LIVE no task is made.
  if (!host.session.principal && !(await host.seat.admit())) return tooManySessions(req.id, host.seat.cap);
  const meta = isObject(params._meta) ? params._meta : {};
  const trace = readTrace(meta);
  const { session } = host;
  // The policy runs around the create with the caller's auth, as around a plain call (execute reports it).
  const outcome = await execute("tools/call", params, {
    ...sessionOptions(host, req, caller, trace),
    serve: async () => {
      const made = await createTask(
        {
          tool: host.reg.tools.get(params.name as string)! as TaskCall["tool"],
          owner: ownerOf(host),
          anonymousKey: anonymousKeyOf(host),
          params,
          client: host.session,
          answers: {},
          trace,
          // Admitted by the edge, which checked it: reading it again cannot throw.
          progressToken: checkProgressToken(meta),
          caller,
        },
        host.bindings,
        host.config,
      );
      if (made.kind === "task" && !session.principal) await keepOpenTask(host, made.task.taskId, true);
      return LEGACY_TASKS.taskCreated(made);
    },
  });
  if (outcome.kind === "error") return reply(errorResponse(req.id, LEGACY.encodeError(outcome.error)));
  return reply(resultResponse(req.id, (outcome as { result: object }).result));
}

/** tasks/get, tasks/list, tasks/cancel and tasks/result. */
async function onTaskRequest(
  host: CallHost,
  req: JsonRpcRequest,
  reply: Reply,
  openStream: () => Promise<SessionAnswer | string>,
  caller: Caller,
): Promise<SessionAnswer> {
  const params = req.params ?? {};
  const fail = (code: number, message: string) => reply(errorResponse(req.id, { code, message }));
  if (!host.reg.hasTasks) return reply(errorResponse(req.id, methodNotFound(req.method).toJSON()));
  if (req.method === "tasks/list") {
    // Without an authenticated owner there is nobody to list for (the revision's security advice).
    if (!host.session.principal) return reply(errorResponse(req.id, methodNotFound(req.method).toJSON()));
    if (params.cursor !== undefined && typeof params.cursor !== "string")
      return fail(ErrorCode.InvalidParams, "params.cursor must be a string");
    const page = await taskIndexStub(host.bindings, indexKeyOf(host)).list(params.cursor as string | undefined, host.reg.pageSize);
    if (!page) return fail(ErrorCode.InvalidParams, "Invalid cursor");
    return reply(
      resultResponse(req.id, {
        tasks: page.tasks.map(LEGACY_TASKS.taskDetail),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      }),
    );
  }
  const { taskId } = params;
  if (typeof taskId !== "string")
    return reply(errorResponse(req.id, invalidParams(`${req.method} needs params.taskId (a string)`).toJSON()));
  const notFound = () => fail(ErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  if (!isTaskId(taskId)) return notFound();
  const stub = taskStub(host.bindings, taskId);
  // With declared scopes, the owner's token now must hold its task tool's, as on 2026-07-28 (the
  // edge turns the refusal into the step-up challenge); "" names no tool, so a stranger learns nothing.
  try {
    const auth = authView(caller);
    if (auth && host.reg.authorize) host.reg.authorize("tools/call", { name: await stub.toolOf(ownerOf(host)) }, auth);
  } catch (err) {
    return reply(errorResponse(req.id, (err as McpError).toJSON()));
  }
  if (req.method === "tasks/cancel") {
    const done = await stub.cancel(ownerOf(host));
    if (!done) return notFound();
    if (done.wasTerminal)
      return fail(ErrorCode.InvalidParams, `Task ${taskId} has already ended (${done.task.status}); it cannot be cancelled`);
    return reply(resultResponse(req.id, LEGACY_TASKS.taskDetail(done.task)));
  }
  const task = await stub.get(ownerOf(host));
  if (!task) return notFound();
  if (req.method === "tasks/get") return reply(resultResponse(req.id, LEGACY_TASKS.taskDetail(task)));
  // tasks/result: now when the task has ended, otherwise on a stream once it does.
  if (isTerminal(task.status)) return reply(taskResult(req.id, task));
  const stream = await openStream();
  if (typeof stream !== "string") return stream;
  host.store.putCall({ stream, request: JSON.stringify(req), answers: {}, state: undefined });
  // Now that the wait is stored, the task tells this session of its changes (it may not be the one
  // that created it), and is read again: a change that came while the wait was being stored found
  // no one waiting, and would otherwise be missed until the next one.
  const watched = await stub.watch(ownerOf(host), host.session.id);
  if (!watched) endCall(host, stream, errorResponse(req.id, invalidParams(`Unknown task: ${taskId}`).toJSON()));
  else if ("error" in watched) endCall(host, stream, errorResponse(req.id, watched.error));
  else if (isTerminal(watched.task.status)) endCall(host, stream, taskResult(req.id, watched.task));
  else if (watched.task.status === "input_required") sendTaskInput(host, stream, watched.task);
  return { kind: "stream", stream, after: -1 };
}

/** What tasks/result answers for an ended task: the call's own result or error, tagged with the task. */
function taskResult(id: RequestId, task: TaskView): object {
  if (task.result)
    return resultResponse(id, { ...task.result, _meta: { ...(task.result._meta as object | undefined), ...related(task.taskId) } });
  if (task.error) return errorResponse(id, task.error);
  return errorResponse(id, { code: ErrorCode.InternalError, message: `Task ${task.taskId} was cancelled`, data: related(task.taskId) });
}

/** The task's input requests not yet sent on this stream, as server requests the client answers by POST. */
function sendTaskInput(host: CallHost, stream: string, task: TaskView): void {
  const deadline = Date.now() + host.config.pendingRequestMs;
  for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
    if (host.store.hasPending(stream, key)) continue;
    const rpcId = `s${host.next().toString(36)}`;
    host.store.addPending({ rpcId, stream, key, method: request.method, deadline });
    host.log.append(stream, {
      jsonrpc: "2.0",
      id: rpcId,
      method: request.method,
      params: { ...(request.params ?? {}), _meta: related(task.taskId) },
    });
  }
}

/** Anonymous: the session's list of its unfinished tasks, which it stops when it ends. */
async function keepOpenTask(host: CallHost, taskId: string, open: boolean): Promise<void> {
  const tasks = (host.session.openTasks ?? []).filter((id) => id !== taskId);
  if (open) tasks.push(taskId);
  else if (tasks.length === host.session.openTasks?.length) return;
  host.session.openTasks = tasks;
  await host.save();
}

/** The session ends: its anonymous tasks still going are stopped and deleted, as nobody can reach them now. */
async function discardSessionTasks(host: CallHost): Promise<void> {
  await Promise.all(
    (host.session.openTasks ?? []).map((taskId) =>
      taskStub(host.bindings, taskId)
        .discard(ownerOf(host))
        .catch((err) => console.error("session: could not stop a task of the ended session", err)),
    ),
  );
}

/** The tasks/result calls waiting in this session. */
const resultWaits = (host: CallHost) => host.store.calls().filter((c) => c.request.method === "tasks/result");

/** A task of this session (or one it waits on) changed: its status notification, and every tasks/result waiting on it. */
async function onTaskUpdated(host: CallHost, task: TaskView): Promise<void> {
  if (isTerminal(task.status)) await keepOpenTask(host, task.taskId, false);
  const get = host.store.latestGetStream();
  if (get) host.log.append(get, notification("notifications/tasks/status", LEGACY_TASKS.taskDetail(task)));
  for (const { stream, request } of resultWaits(host)) {
    if (request.params?.taskId !== task.taskId) continue;
    if (isTerminal(task.status)) endCall(host, stream, taskResult(request.id, task));
    else if (task.status === "input_required") sendTaskInput(host, stream, task);
  }
}

/** A task of this session (or one it waits on) passed its ttl and is gone: each tasks/result still waiting on it ends with -32602. */
async function onTaskExpired(host: CallHost, taskId: string): Promise<void> {
  await keepOpenTask(host, taskId, false);
  for (const { stream, request } of resultWaits(host)) {
    if (request.params?.taskId !== taskId) continue;
    const message = `Task ${taskId} expired (its ttl ended) before it finished`;
    endCall(host, stream, errorResponse(request.id, { code: ErrorCode.InvalidParams, message, data: related(taskId) }));
  }
}

/** The client answered a task's input request on a tasks/result stream: the answer goes to the task. */
async function forwardTaskAnswer(host: CallHost, request: JsonRpcRequest, key: string, answer: unknown): Promise<void> {
  const taskId = String(request.params?.taskId);
  const done = await taskStub(host.bindings, taskId).update(ownerOf(host), { [key]: answer });
  if (done?.error) console.error("session: the task refused an answer", done.error.message);
}

/**
 * The requests that are the task runtime's: tasks/get, tasks/list, tasks/cancel and tasks/result, and
 * a tools/call the task rules decide. Undefined for any other, which the core runs.
 */
function onRequest(
  host: CallHost & { atStreamLimit(): boolean },
  req: JsonRpcRequest,
  reply: Reply,
  caller: Caller,
): Promise<SessionAnswer | undefined> | undefined {
  if (LEGACY.taskMethods.has(req.method)) {
    // The wait's stream makes the session hold state: admitted first, then no await before it opens.
    const open = async () => {
      if (!(await host.seat.admit())) return tooManySessions(req.id, host.seat.cap);
      return host.atStreamLimit() ? tooManyStreams(req.id) : host.log.open("post", host.next(), req.id);
    };
    // Through the one path: the app's middleware and the report run around them as around a call.
    return servedInChain(host, req, caller, () => onTaskRequest(host, req, reply, open, caller));
  }
  if (req.method === "tools/call" && host.reg.hasTasks) return taskToolCall(host, req, reply, caller);
  return undefined;
}

/** The session's side of tasks, which the session class holds only when the app has task tools. */
export const sessionTasks = { onRequest, discardSessionTasks, onTaskUpdated, onTaskExpired, forwardTaskAnswer };
export type SessionTasks = typeof sessionTasks;
