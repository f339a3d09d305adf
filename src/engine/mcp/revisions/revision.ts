/**
 * What differs between the protocol revisions, as one interface with a module per revision
 * (2025-11-25.ts, 2026-07-28.ts; index.ts picks one). The lanes and the Durable Objects move bytes
 * and keep state; whenever the revision decides something, they ask the module here rather than
 * branch on it, so each rule is written once, next to the others of its revision.
 */
import type { MethodTable } from "../registry";
import type { JsonRpcErrorObject, McpError } from "../errors";
import type { InputRequest } from "../input";
import type { JsonRpcNotification } from "../jsonrpc";
import type { Registry } from "../registry";
import type { TaskOptions, TaskStatus, TaskView } from "../tasks";
import type { ClientCapabilities, Json, LogLevel } from "../types";
import type { UrlElicitationRequired } from "../url-elicitation";

/** Which lane serves a revision: "modern" (2026-07-28, stateless) or "legacy" (2025 sessions). */
export type Era = "modern" | "legacy";

/** A task that was made (its wire form depends on the revision), or a call answered within immediateMs. */
export type TaskMade = { kind: "task"; task: TaskView } | { kind: "immediate"; result: Record<string, unknown> };

/** How one run of a task reports what its handler emits. */
interface TaskRunRules {
  /** The token the handler's progress goes under (the task's status message shows it either way). */
  progressToken: string | number;
  /** What the creating session's GET stream gets of a message the handler emitted; undefined: nothing. */
  forSession(message: JsonRpcNotification, taskId: string): JsonRpcNotification | undefined;
}

export interface Revision {
  readonly era: Era;
  /** The methods the core serves on this revision. */
  readonly methods: MethodTable;
  /** The task methods its lane serves itself (routed to the task's object). */
  readonly taskMethods: ReadonlySet<string>;
  /** The lowest log level a request gets when it names none (undefined: no log messages). */
  logLevel(asked: LogLevel | undefined): LogLevel | undefined;
  /** An error as this revision writes it. */
  encodeError(err: McpError): JsonRpcErrorObject;
  /** Input requests as this revision sends them (a URL elicitation's id differs). */
  inputRequests(requests: Record<string, InputRequest>): Record<string, InputRequest>;
  /** What a handler's "complete this URL first" becomes: an error, or an input round. */
  urlElicitation(
    err: UrlElicitationRequired,
    method: string,
    round: { state: Json | undefined; clientCapabilities: ClientCapabilities },
  ): unknown;

  /** Whether a tools/call becomes a task, runs as usual (`inline`: may become one), or is refused (throws). */
  asTask(reg: Registry, params: Record<string, unknown>, caps: ClientCapabilities): "task" | "inline" | "plain";
}

/**
 * What differs between the revisions in how a task is kept and shown. Apart from `Revision`, so that
 * only the task runtime (src/engine/tasks.ts) brings it into a bundle: an app without task tools has none.
 */
export interface TaskRules {
  /**
   * How long a task is kept (from what the tool and the request say), and how long the call waits
   * for it to finish before answering with the task.
   */
  taskTimes(
    task: TaskOptions,
    limits: { taskTtlMs: number; taskMaxTtlMs: number },
    params: Record<string, unknown>,
  ): { ttlMs: number; immediateMs: number };
  /** The answer to the tools/call that made a task. */
  taskCreated(made: TaskMade): Record<string, unknown>;
  /** A task as tasks/get (and this revision's status notification) shows it. */
  taskDetail(view: TaskView): Record<string, unknown>;
  /** The status a task ends in when its call returns this result. */
  taskStatusOf(result: Record<string, unknown>): TaskStatus;
  /** The params of the notification listen streams get of a task's change; undefined when sessions follow it instead. */
  taskNotification(view: TaskView): Record<string, unknown> | undefined;
  /** How a task's run reports, given the progress token of the request that made it. */
  taskRun(progressToken: string | number | undefined): TaskRunRules;
}
