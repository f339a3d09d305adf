/**
 * Tasks in the protocol core: what a tool declares, the one record a task is
 * kept as, and how each revision shows it. 2026-07-28 has tasks as the
 * `io.modelcontextprotocol/tasks` extension (flattened task, `ttlMs`, inlined
 * result on `tasks/get`, answers through `tasks/update`); 2025-11-25 has them in
 * core (`{ task }`, `ttl`, `tasks/result`, a tool result with `isError` is a
 * failed task). Where a task lives and runs is the objects' business.
 */
import type { JsonRpcErrorObject } from "./errors";
import type { InputRequest } from "./input";

/** The extension id a 2026 client names in its per-request capabilities, and the server in discover. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** 2025-11-25: every message about a task (but tasks/get|list|cancel) carries this `_meta` key. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
export const isTerminal = (s: TaskStatus) => s === "completed" || s === "failed" || s === "cancelled";

/** Whether a tool runs as a task: never (the default), when the client can take one, or always. */
export type TaskSupport = "forbidden" | "optional" | "required";

export interface TaskOptions {
  support: Exclude<TaskSupport, "forbidden">;
  /** How long the task and its result are kept, from creation (capped by TASK_MAX_TTL_SECONDS). */
  ttlMs?: number;
  /** How often clients are told to poll `tasks/get`. */
  pollIntervalMs?: number;
  /**
   * Run the handler in the request first, until it calls `ctx.startTask()`: input it asks for before
   * that is answered in the request itself (2026 input rounds), and only then does the call become a
   * task, which runs the handler again from the start with those answers. Default false: the task is
   * created before the handler runs.
   */
  startsInline?: boolean;
  /**
   * Wait this long (ms) for the task to finish before answering the call: a task done by then is
   * answered as a plain result and never surfaces (2026-07-28's immediate-result shortcut). Default 0.
   */
  immediateMs?: number;
}

/**
 * A tool's `task` field as `durableTask` makes it: the options, and the task runtime (the task
 * objects, the task methods), which the core never touches: `createMcpWorker` takes it from here,
 * so an app whose tools declare no task bundles none of it.
 */
export interface DurableTask extends TaskOptions {
  readonly runtime: object;
}

/**
 * A tool's `task` field, normalised (without the runtime). A plain "optional" or `{ support }` is
 * refused, naming the tool: it would declare a task the bundle carries no runtime for.
 */
export function taskOptionsOf({ name, task }: { name: string; task?: unknown }): TaskOptions | undefined {
  if (task === undefined || task === "forbidden") return undefined;
  const { runtime, ...options }: Partial<DurableTask> = (typeof task === "object" && task) || {};
  const support = typeof task === "string" ? task : options.support;
  if (support !== "optional" && support !== "required")
    throw new Error(`Tool "${name}": task must be "forbidden", "optional" or "required"`);
  if (!runtime)
    throw new Error(
      `Tool "${name}": declare its task as \`task: durableTask(${JSON.stringify(task)})\`, durableTask from the public door (docs/tasks.md)`,
    );
  return options as TaskOptions;
}

/** The task runtime the app's tools bring, if any; throws for a tool whose task it could not run. */
export function taskRuntimeOf(tools: readonly { name: string; task?: unknown }[] = []): object | undefined {
  let runtime: object | undefined;
  for (const tool of tools) if (taskOptionsOf(tool)) runtime ??= (tool.task as DurableTask).runtime;
  return runtime;
}

/**
 * How long a task is kept, from creation: what the client asked for (2025 `task.ttl`), else the tool's
 * `ttlMs`, else the server's default; never more than the server's cap.
 */
export function taskTtl(task: TaskOptions, limits: { taskTtlMs: number; taskMaxTtlMs: number }, requested?: unknown): number {
  const asked = typeof requested === "number" && Number.isSafeInteger(requested) && requested > 0 ? requested : undefined;
  return Math.min(asked ?? task.ttlMs ?? limits.taskTtlMs, limits.taskMaxTtlMs);
}

/** The signal `ctx.startTask()` throws in a request that is to become a task. Not an error. */
export class StartTask {
  constructor(
    /** Answers gathered in the request so far; the task's handler run starts with them. */
    readonly answers: Readonly<Record<string, unknown>>,
  ) {}
}

/** An input request as a task keeps it. */
export interface StoredInputRequest {
  method: InputRequest["method"];
  params?: Record<string, unknown>;
}

/** The one stored form of a task, from which both revisions' shapes are made. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  /** input_required: every outstanding request, by key (kept loosely typed: this crosses RPC). */
  inputRequests?: Record<string, StoredInputRequest>;
  /** completed (and 2025 failed-by-isError): the tools/call result. */
  result?: Record<string, unknown>;
  /** failed: the JSON-RPC error the call ended with. */
  error?: JsonRpcErrorObject;
}

/** The progress token a task's run reports under when no client asked for progress: its status message shows it. */
export const TASK_STATUS_ONLY = "task-status";

/** Whose a task is. Anonymous 2025 tasks belong to their session; anonymous 2026 tasks to whoever holds the id. */
export interface TaskOwner {
  era: "modern" | "legacy";
  /** "" when the server has no authorization. */
  principal: string;
  /** 2025: the session that created the task (where its messages go). */
  sessionId?: string;
}

/** The longest statusMessage kept: it is shown in every tasks/get and tasks/list, and kept in the owner's index. */
const STATUS_MESSAGE_MAX = 1024;
export const statusText = (message: string) => message.slice(0, STATUS_MESSAGE_MAX);

/** What an owner's index keeps of a task for tasks/list: its metadata, never its result, error or input requests. */
export function taskSummary(t: TaskView): TaskView {
  const { result: _result, error: _error, inputRequests: _requests, ...meta } = t;
  return meta;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The fields both revisions show of a task, in the same form; each adds its own (see revisions/). */
export function taskFields(t: TaskView) {
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: iso(t.createdAt),
    lastUpdatedAt: iso(t.lastUpdatedAt),
  };
}

/** Task ids are 256 random bits, base64url (like session ids): unguessable, safe in a header. */
export const isTaskId = (id: unknown): id is string => typeof id === "string" && /^[A-Za-z0-9_-]{43}$/.test(id);
