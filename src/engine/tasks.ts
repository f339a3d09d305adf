/**
 * The task runtime (docs/tasks.md): the task objects, the 2026 lane's task methods and the 2025
 * session's side of tasks. An app reaches it only through `durableTask`, which declares a tool's
 * task, so an app whose tools declare none bundles none of it; `createMcpWorker` finds it there.
 */
import { serveModernTaskMethod, startModernTask } from "./http/tasks";
import type { DurableTask, TaskOptions, TaskSupport } from "./mcp/tasks";
import { sessionTasks } from "./objects/session-tasks";
import { taskObjectFor } from "./objects/task";

const TASK_RUNTIME = { taskObjectFor, startModernTask, serveModernTaskMethod, session: sessionTasks };
export type TaskRuntime = typeof TASK_RUNTIME;

/**
 * A tool's `task` (docs/tasks.md): `durableTask("optional")` runs the call as a durable task when the
 * client can take one, `durableTask("required")` always; `durableTask({ support, ttlMs, pollIntervalMs,
 * startsInline, immediateMs })` sets its options.
 */
export function durableTask(task: Exclude<TaskSupport, "forbidden"> | TaskOptions): DurableTask {
  return { ...(typeof task === "string" ? { support: task } : task), runtime: TASK_RUNTIME };
}
