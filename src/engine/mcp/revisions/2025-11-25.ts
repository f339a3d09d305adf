/**
 * The 2025-11-25 revision (and the older ones a session may negotiate): a session opened with
 * `initialize`, input asked with real server requests, tasks in core (`{ task }`, `ttl`,
 * `tasks/result`), and its own error codes for a missing resource and a missing capability.
 */
import { SHARED_METHODS } from "../dispatch";
import { ErrorCode, McpError, ResourceNotFound, methodNotFound, type JsonRpcErrorObject } from "../errors";
import { EVENT_METHODS } from "../event-names";
import { isObject } from "../guards";
import { listTools } from "../methods/tools";
import { toolNamed, type MethodEntry } from "../registry";
import { RELATED_TASK, taskFields, TASK_STATUS_ONLY, taskTtl, type TaskView } from "../tasks";
import { withUrlParams } from "../url-elicitation";
import { LEGACY_VERSIONS, isKnownVersion, isLegacyVersion } from "../versions";
import type { Revision, TaskRules } from "./revision";

/** A task as 2025-11-25 shows it: inside CreateTaskResult, and as the tasks/get, list and cancel results. */
const wireTask = (t: TaskView): Record<string, unknown> => ({ ...taskFields(t), ttl: t.ttlMs, pollInterval: t.pollIntervalMs });

// The session object adds initialize, ping, logging/setLevel and the subscriptions.
const methods: Record<string, MethodEntry> = {
  ...SHARED_METHODS,
  // Only 2025-11-25 tools carry `execution.taskSupport`.
  "tools/list": { run: (reg, params, ctx) => listTools(reg.legacyToolList, reg, params, ctx), needs: "tools" },
};
// The Events extension is defined for 2026-07-28 on: a session does not have its methods. A loop
// rather than a spread of Object.fromEntries in the table: that took a tenth of a millisecond of start-up.
for (const m of EVENT_METHODS) methods[m] = { run: () => Promise.reject(methodNotFound(m)) };

export const LEGACY: Revision = {
  era: "legacy",
  methods,
  taskMethods: new Set(["tasks/get", "tasks/list", "tasks/cancel", "tasks/result"]),

  // Until the client picks a level with logging/setLevel, every level may be sent.
  logLevel: (asked) => asked ?? "debug",

  /** A missing resource is -32002 here, a missing client capability -32600. */
  encodeError(err: McpError): JsonRpcErrorObject {
    if (err instanceof ResourceNotFound) return { code: ErrorCode.ResourceNotFoundLegacy, message: err.message, data: { uri: err.uri } };
    if (err.code === ErrorCode.MissingRequiredClientCapability) {
      // -32021 exists only from 2026-07-28 on. 2025-11-25 defines no code for "this request needs a
      // capability the client did not declare at initialize": its servers simply must not send such a
      // request. The standard code that fits is -32600 Invalid Request: the request is well-formed
      // JSON-RPC with valid params, but it cannot be served in this session as negotiated, which is
      // also how the revision answers its nearest case (a tool call that needs task augmentation sent
      // without it). -32602 would blame the arguments and -32603 a server fault, and the client can
      // only fix it by opening a session that declares the capability, which `data` names.
      return { code: ErrorCode.InvalidRequest, message: err.message, data: err.data };
    }
    return err.toJSON();
  },

  /** Every URL elicitation carries an elicitationId here; a request built without one gets one. */
  inputRequests: (requests) => withUrlParams(requests, (p) => (p.elicitationId ? p : { ...p, elicitationId: crypto.randomUUID() })),
  // -32042 is this revision's own answer: the request fails, and the client retries once the URL is done.
  urlElicitation: (err) => err,

  /** A task-augmented call (`params.task`) of a task tool; a mismatch with the tool's taskSupport is -32601. */
  asTask(reg, params) {
    const tool = toolNamed(reg, params);
    if (!tool) return "plain";
    const augmented = isObject(params.task);
    if (!tool.task) {
      if (augmented)
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.def.name} does not run as a task; call it without params.task`);
      return "plain";
    }
    if (augmented) return "task";
    if (tool.task.support === "required")
      throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.def.name} runs only as a task; call it with params.task`);
    return "plain";
  },
};

export const LEGACY_TASKS: TaskRules = {
  /**
   * The client may ask for a ttl (`params.task.ttl`); the tool's, then the server's, apply otherwise.
   * The immediate-result shortcut is 2026-07-28's: a 2025 client that asked for a task gets one.
   */
  taskTimes: (task, limits, params) => ({
    ttlMs: taskTtl(task, limits, isObject(params.task) ? params.task.ttl : undefined),
    immediateMs: 0,
  }),
  taskCreated: (made) => (made.kind === "immediate" ? made.result : { task: wireTask(made.task) }),
  taskDetail: wireTask,
  /** A tool result with `isError` is a failed task here. */
  taskStatusOf: (result) => (result.isError === true ? "failed" : "completed"),
  // Its sessions are told of a task's changes, and send notifications/tasks/status themselves.
  taskNotification: () => undefined,
  /** The request's progress token stays valid for the task's life; its messages go to the session, tagged with the task. */
  taskRun: (progressToken) => ({
    progressToken: progressToken ?? TASK_STATUS_ONLY,
    forSession(message, taskId) {
      if (message.method === "notifications/progress" && progressToken === undefined) return undefined;
      return { ...message, params: { ...message.params, _meta: { [RELATED_TASK]: { taskId } } } };
    },
  }),
};

/** initialize echoes a session revision we speak; otherwise offers our newest (never 2026-07-28: it has no handshake). */
export const negotiate = (requested: string) => (isLegacyVersion(requested) ? requested : LEGACY_VERSIONS[0]);

/**
 * MCP-Protocol-Version on session traffic: absent means the negotiated one; anything that is no
 * session revision is refused (the session refuses a revision other than the one it negotiated).
 * `lenient` (STRICT_HEADERS off): any known revision passes here, and the session decides (sessionVersionRefused).
 */
export const versionHeaderProblem = (header: string | undefined, lenient = false) =>
  header === undefined || isLegacyVersion(header) || (lenient && isKnownVersion(header))
    ? undefined
    : `Bad Request: unsupported MCP-Protocol-Version "${header}" for a session (supported: ${LEGACY_VERSIONS.join(", ")})`;

/**
 * How a session takes a request's MCP-Protocol-Version: "served" for the negotiated one or none,
 * "newer" for a newer known revision when `lenient` (hosted clients send their newest revision on a
 * session that negotiated an older one; it is served at the negotiated one), otherwise "refused".
 * Revisions are dates, so the newer one sorts after.
 */
export const sessionVersion = (header: string | undefined, negotiated: string, lenient: boolean): "served" | "newer" | "refused" =>
  header === undefined || header === negotiated ? "served" : lenient && isKnownVersion(header) && header > negotiated ? "newer" : "refused";

/** Whether a stream opens with an empty priming event: clients before 2025-11-25 choke on an event with empty data. */
export const primesStreams = (version: string) => version >= "2025-11-25";
