/**
 * `client.tasks`: the tasks a server runs for this client, by id. A task id
 * is worth keeping durably (in a Durable Object's storage, KV, a file): a
 * caller that restarts picks its task up again with `result(id)`, which
 * follows it to the end and answers its questions with the app's handlers,
 * as `callTool` does for a task it started itself. 2026-07-28 speaks the tasks
 * extension (`tasks/get`, `tasks/update`, `tasks/cancel`; no list);
 * 2025-11-25 the core task methods (`tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`).
 */
import { McpClientError } from "./errors";
import type { InputHandlers } from "./handlers";
import type { AnyLane } from "./any-lane";
import type { CallOptions, TaskOptions } from "./lane";
import { followLegacyTask, followModernTask } from "./tasks";
import type { ResultFields } from "./types";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as the server shows it; each revision names a few fields its own way. */
export interface Task extends Omit<ResultFields, "ttlMs"> {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** 2026-07-28 */
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** 2026-07-28 `tasks/get`: what the status has (the result, the error, the open questions). */
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, { method: string; params?: unknown }>;
  /** 2025-11-25 */
  ttl?: number | null;
  pollInterval?: number;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor?: string;
}

export class TaskClient {
  constructor(
    private readonly lane: () => Promise<AnyLane>,
    private readonly handlers: InputHandlers,
    private readonly options: TaskOptions | undefined,
    private readonly maxInputRequests?: number,
  ) {}

  /** The lane, once the client takes tasks: in 2026-07-28 a server answers task methods only to a client that declared the extension. */
  private async ready(): Promise<AnyLane> {
    if (!this.options) throw new McpClientError("The task API needs a client created with the tasks option (tasks: true)");
    return this.lane();
  }

  /** The task's state now. */
  async get(taskId: string, options?: CallOptions): Promise<Task> {
    const lane = await this.ready();
    return (await lane.request("tasks/get", { taskId }, options)) as unknown as Task;
  }

  /** 2025-11-25 only (2026-07-28 has no `tasks/list`): a page of this client's tasks. */
  async list(cursor?: string, options?: CallOptions): Promise<TaskPage> {
    const lane = await this.ready();
    if (lane.era === "modern")
      throw new McpClientError("tasks/list does not exist in 2026-07-28: keep the ids of the tasks you start (onTask)");
    return (await lane.request("tasks/list", cursor !== undefined ? { cursor } : {}, options)) as unknown as TaskPage;
  }

  /** Asks the server to cancel the task; it may still end completed or failed. */
  async cancel(taskId: string, options?: CallOptions): Promise<void> {
    const lane = await this.ready();
    await lane.request("tasks/cancel", { taskId }, options);
  }

  /**
   * Follows the task to its end and returns what the original request would have (a tool's result),
   * answering its questions with the app's handlers; throws the task's error if it failed. Aborting the
   * signal only stops waiting: the task goes on (end it with `cancel`).
   */
  async result(taskId: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const lane = await this.ready();
    if (lane.era === "legacy") return followLegacyTask(lane, taskId, options, true);
    const now = await lane.request("tasks/get", { taskId }, options);
    return followModernTask(lane, this.handlers, now, this.options!, options, true, this.maxInputRequests);
  }
}
