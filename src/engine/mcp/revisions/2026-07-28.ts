/**
 * The 2026-07-28 revision: stateless, the version and capabilities on every request (envelope.ts),
 * input asked in rounds of an InputRequiredResult, and tasks as the `io.modelcontextprotocol/tasks`
 * extension (a flattened task, `ttlMs`, the result inlined on `tasks/get`, answers through
 * `tasks/update`).
 */
import { SHARED_METHODS } from "../dispatch";
import { missingClientCapability } from "../errors";
import { isObject } from "../guards";
import { Input, InputRequired } from "../input";
import { listTools } from "../methods/tools";
import { takesInput } from "../operations";
import { toolNamed } from "../registry";
import { TASKS_EXTENSION, taskFields, TASK_STATUS_ONLY, taskTtl, type TaskView } from "../tasks";
import type { ClientCapabilities } from "../types";
import { withUrlParams } from "../url-elicitation";
import { PER_REQUEST_VERSIONS } from "../versions";
import type { Revision, TaskRules } from "./revision";

/** Whether this request's capabilities declare the tasks extension. */
export const declaresTasks = (caps: ClientCapabilities) => isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);

/** -32021 naming the extension, as the extension asks. */
export const tasksExtensionRequired = () => missingClientCapability({ extensions: { [TASKS_EXTENSION]: {} } });

/** A Task (the flattened fields of CreateTaskResult). */
const wireTask = (t: TaskView): Record<string, unknown> => ({ ...taskFields(t), ttlMs: t.ttlMs, pollIntervalMs: t.pollIntervalMs });

/** A DetailedTask: `tasks/get` and `notifications/tasks` carry what the status has. */
function detailedTask(t: TaskView): Record<string, unknown> {
  const out = wireTask(t);
  if (t.status === "input_required") out.inputRequests = t.inputRequests ?? {};
  if (t.status === "completed" && t.result) out.result = { resultType: "complete", ...t.result };
  if (t.status === "failed" && t.error) out.error = t.error;
  return out;
}

export const MODERN: Revision = {
  era: "modern",
  // subscriptions/listen is a stream, served by the lane.
  methods: {
    ...SHARED_METHODS,
    "tools/list": { run: (reg, params, ctx) => listTools(reg.toolList, reg, params, ctx), needs: "tools" },
    "server/discover": {
      run: (reg) => ({
        supportedVersions: PER_REQUEST_VERSIONS,
        capabilities: reg.capabilities,
        ...(reg.instructions ? { instructions: reg.instructions } : {}),
      }),
    },
  },
  // tasks/result and tasks/list are 2025-11-25 only.
  taskMethods: new Set(["tasks/get", "tasks/update", "tasks/cancel"]),

  // Log messages only when the request asks for them, at or above its level.
  logLevel: (asked) => asked,
  encodeError: (err) => err.toJSON(),

  /** URL elicitations carry no elicitationId here. */
  inputRequests: (requests) => withUrlParams(requests, ({ elicitationId: _id, ...params }) => params),
  /** There is no -32042: "complete this URL first" is an input round, asked like any other (-32021 when the client cannot open URLs). */
  urlElicitation(err, method, round) {
    if (!takesInput(method)) return new InputRequired({}, undefined);
    try {
      return new Input({}, round.state, round.clientCapabilities).require(err.asInputRequests(), round.state);
    } catch (signal) {
      return signal;
    }
  },

  /** A task tool's call becomes a task only for a client that declared the extension in this request. */
  asTask(reg, params, caps) {
    const tool = toolNamed(reg, params);
    if (!tool?.task) return "plain";
    if (!declaresTasks(caps)) {
      if (tool.task.support === "required") throw tasksExtensionRequired();
      return "plain";
    }
    return tool.task.startsInline ? "inline" : "task";
  },
};

export const MODERN_TASKS: TaskRules = {
  taskTimes: (task, limits) => ({ ttlMs: taskTtl(task, limits), immediateMs: task.immediateMs ?? 0 }),
  taskCreated: (made) =>
    made.kind === "immediate" ? { resultType: "complete", ...made.result } : { resultType: "task", ...wireTask(made.task) },
  taskDetail: detailedTask,
  /** A tool result with `isError` still completes its task (the result says the tool failed). */
  taskStatusOf: () => "completed",
  // Listen streams that named the task hear of each change, input requests included.
  taskNotification: detailedTask,
  taskRun: () => ({ progressToken: TASK_STATUS_ONLY, forSession: () => undefined }),
};
