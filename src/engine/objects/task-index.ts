/**
 * An owner's task index: the role the task class plays when it is named by an owner key rather than
 * a task id. One class serves both so that a fork binds one namespace (MCP_TASK); each role keeps to
 * its own type and file. The index counts a new task against the owner's limits, records each task's
 * latest state, and pages tasks/list. Its rows live in TaskIndexStore.
 */
import { isTerminal, taskSummary, type TaskView } from "../mcp/tasks";
import type { TaskIndexMethods } from "./contracts";
import { TaskIndexStore, type OverLimit, type TaskLimits } from "./task-index-store";

export class TaskIndex implements TaskIndexMethods {
  private readonly store: TaskIndexStore;

  constructor(sql: SqlStorage) {
    this.store = new TaskIndexStore(sql);
  }

  async admit(_taskId: string, task: TaskView, bytes: number, limits: TaskLimits): Promise<OverLimit | undefined> {
    return this.store.admit(taskSummary(task), bytes, limits, Date.now());
  }

  async record(taskId: string, task: TaskView | null, bytes: number): Promise<void> {
    this.store.record(taskId, task && taskSummary(task), task !== null && isTerminal(task.status), bytes);
  }

  async list(cursor: string | undefined, pageSize: number): Promise<{ tasks: TaskView[]; nextCursor?: string } | null> {
    const after = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after) || after < 0) return null;
    const page = this.store.list(after, pageSize, Date.now());
    if (!page) return null;
    const { tasks, next } = page;
    return next === undefined ? { tasks } : { tasks, nextCursor: String(next) };
  }
}
