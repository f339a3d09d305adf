/**
 * The task methods of the 2026-07-28 lane (the `io.modelcontextprotocol/tasks` extension):
 * tasks/get, tasks/update and tasks/cancel, each routed to the task's own object by its id. A
 * client that did not declare the extension in this request's capabilities gets -32021 for them
 * (the lane checks that before it gets here). And the task a tools/call becomes.
 */
import type { Config } from "../config";
import { authView, type Caller } from "../mcp/auth";
import type { Registry } from "../mcp/registry";
import type { Env } from "../env";
import { McpError, invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { MODERN, MODERN_TASKS } from "../mcp/revisions";
import { isTaskId } from "../mcp/tasks";
import { taskStub } from "../objects/addresses";
import type { TaskOwner } from "../objects/contracts";
import { createTask, type TaskCall } from "../objects/task-create";

/** tasks/get, tasks/update and tasks/cancel; the result before the lane adds its envelope. */
export async function serveModernTaskMethod(
  method: string,
  params: Record<string, unknown>,
  env: Env,
  reg: Pick<Registry, "authorize">,
  caller: Caller,
): Promise<Record<string, unknown>> {
  const { taskId } = params;
  if (typeof taskId !== "string") throw invalidParams(`${method} needs params.taskId (a string)`);
  const notFound = () => invalidParams(`Unknown task: ${taskId}`);
  // An id we could never have issued needs no object.
  if (!isTaskId(taskId)) throw notFound();
  const stub = taskStub(env, taskId);
  const owner: TaskOwner = { era: MODERN.era, principal: caller.principal };
  const auth = authView(caller);
  // With declared scopes, the owner's token now, not the one that made the task, must hold its tool's
  // (InsufficientScope: the step-up challenge). Anyone else learns nothing here: "" names no tool.
  if (auth && reg.authorize) reg.authorize("tools/call", { name: await stub.toolOf(owner) }, auth);
  if (method === "tasks/get") {
    const task = await stub.get(owner);
    if (!task) throw notFound();
    return MODERN_TASKS.taskDetail(task);
  }
  if (method === "tasks/update") {
    if (!isObject(params.inputResponses)) throw invalidParams("tasks/update needs params.inputResponses (an object)");
    const done = await stub.update(owner, params.inputResponses);
    if (!done) throw notFound();
    if (done.error) throw new McpError(done.error.code, done.error.message, done.error.data);
    return {};
  }
  // tasks/cancel: the same empty answer whether it stopped the task or the task had already finished.
  if (!(await stub.cancel(owner))) throw notFound();
  return {};
}

/**
 * The task a 2026 tools/call becomes, made with the input its request gathered so far (the task runs
 * the handler again from the start with it): the CreateTaskResult.
 */
export async function startModernTask(
  call: Omit<TaskCall, "owner"> & { principal: string },
  env: Env,
  config: Config,
): Promise<Record<string, unknown>> {
  const { principal, ...rest } = call;
  return MODERN_TASKS.taskCreated(await createTask({ ...rest, owner: { era: MODERN.era, principal } }, env, config));
}
