/**
 * Tasks on the 2026-07-28 lane (the `io.modelcontextprotocol/tasks`
 * extension): a tools/call that becomes a task, and tasks/get, tasks/update
 * and tasks/cancel, each routed to the task's own object by its id. A client
 * that did not declare the extension in this request's capabilities never gets
 * a task, and gets -32021 for the task methods.
 */
import type { Config } from "../config";
import type { Env } from "../env";
import { McpError, invalidParams, missingClientCapability } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import type { CompiledTool, Registry } from "../mcp/registry";
import { TASKS_EXTENSION, isTaskId, modernDetail, modernTask, taskTtl, type TaskOptions } from "../mcp/tasks";
import type { TraceContext } from "../mcp/telemetry";
import type { ClientCapabilities, Implementation } from "../mcp/types";
import { newTaskId, ownerIndexKey, taskStub } from "../objects/addresses";
import type { TaskOwner } from "../objects/contracts";
import { taskLimits } from "../objects/task-index-store";

/** The methods the extension adds; tasks/result and tasks/list are 2025-11-25 only. */
export const MODERN_TASK_METHODS = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

export const declaresTasks = (caps: ClientCapabilities) => isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);

/** -32021 naming the extension, as the extension asks. */
export const tasksExtensionRequired = () => missingClientCapability({ extensions: { [TASKS_EXTENSION]: {} } });

export interface TaskCall {
  tool: CompiledTool & { task: TaskOptions };
  params: Record<string, unknown>;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  answers: Record<string, unknown>;
  trace: TraceContext;
  principal: string;
  /** Whose in-flight budget the task spends when the caller is anonymous: its address. */
  anonymousKey: string;
}

/** Creates the task and answers the call: a CreateTaskResult, or the plain result of a task done within immediateMs. */
export async function createModernTask(call: TaskCall, env: Env, config: Config): Promise<Record<string, unknown>> {
  const taskId = newTaskId();
  const owner: TaskOwner = { era: "modern", principal: call.principal };
  const { task } = call.tool;
  const created = await taskStub(env, taskId).create({
    taskId,
    owner,
    indexKey: ownerIndexKey("modern", call.principal ? `principal:${call.principal}` : call.anonymousKey),
    limits: taskLimits(config),
    params: call.params,
    protocolVersion: call.protocolVersion,
    clientCapabilities: call.clientCapabilities,
    clientInfo: call.clientInfo,
    answers: call.answers,
    ttlMs: taskTtl(task, config),
    pollIntervalMs: task.pollIntervalMs ?? 1000,
    immediateMs: task.immediateMs ?? 0,
    trace: call.trace,
  });
  if (created.kind === "refused") throw new McpError(created.error.code, created.error.message, created.error.data);
  if (created.kind === "immediate") return { resultType: "complete", ...created.result };
  return { resultType: "task", ...modernTask(created.task) };
}

/** tasks/get, tasks/update and tasks/cancel; the result before the lane adds its envelope. */
export async function serveModernTaskMethod(method: string, params: Record<string, unknown>, env: Env, principal: string): Promise<Record<string, unknown>> {
  const { taskId } = params;
  if (typeof taskId !== "string") throw invalidParams(`${method} needs params.taskId (a string)`);
  const notFound = () => invalidParams(`Unknown task: ${taskId}`);
  // An id we could never have issued needs no object.
  if (!isTaskId(taskId)) throw notFound();
  const stub = taskStub(env, taskId);
  const caller: TaskOwner = { era: "modern", principal };
  if (method === "tasks/get") {
    const task = await stub.get(caller);
    if (!task) throw notFound();
    return modernDetail(task);
  }
  if (method === "tasks/update") {
    if (!isObject(params.inputResponses)) throw invalidParams("tasks/update needs params.inputResponses (an object)");
    const done = await stub.update(caller, params.inputResponses);
    if (!done) throw notFound();
    if (done.error) throw new McpError(done.error.code, done.error.message, done.error.data);
    return {};
  }
  // tasks/cancel: the same empty answer whether it stopped the task or the task had already finished.
  if (!(await stub.cancel(caller))) throw notFound();
  return {};
}

/** Whether a tools/call of this tool becomes a task, answers as usual, or is refused (-32021). */
export function taskDecision(reg: Registry, params: Record<string, unknown>, caps: ClientCapabilities): "task" | "inline" | "plain" {
  const tool = typeof params.name === "string" ? reg.tools.get(params.name) : undefined;
  if (!tool?.task) return "plain";
  if (!declaresTasks(caps)) {
    if (tool.task.support === "required") throw tasksExtensionRequired();
    return "plain";
  }
  return tool.task.startsInline ? "inline" : "task";
}
