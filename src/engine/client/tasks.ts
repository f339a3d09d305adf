/**
 * Following a task to its end, so a caller of `callTool` gets the tool's
 * result whether or not the server ran it as a task. 2026-07-28 (the tasks
 * extension): poll `tasks/get` at the server's interval, answer the task's
 * input requests through the app's handlers with `tasks/update`, and read the
 * result inlined once it is completed. 2025-11-25: `tasks/result` waits for
 * the end, and the session lane answers the task's requests on that stream.
 */
import { McpClientError, fromWireError, isWireError } from "./errors";
import { answerInput, answerMap, inputRequestsOf, type InputHandlers } from "./handlers";
import { DEFAULT_LIMITS } from "./limits";
import { nextId, type CallOptions, type Lane, type TaskOptions } from "./lane";
import type { LegacySession } from "./legacy";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * 2026-07-28: polls a task from its CreateTaskResult (or a `tasks/get` answer) to its result. Aborting
 * the signal cancels the task, unless `keepOnAbort` (the caller only stops waiting).
 */
export async function followModernTask(
  lane: Lane,
  handlers: InputHandlers,
  created: Record<string, unknown>,
  options: TaskOptions,
  call?: CallOptions,
  keepOnAbort = false,
  maxInputRequests = DEFAULT_LIMITS.maxInputRequests,
): Promise<Record<string, unknown>> {
  const taskId = String(created.taskId);
  const signal = call?.signal;
  const plain = signal ? { signal } : {};
  const answered = new Set<string>();
  let unanswerable = false;
  let task = created;
  try {
    for (;;) {
      options.onTask?.(task);
      switch (task.status) {
        case "completed": {
          const { resultType: _type, ...result } = (task.result ?? {}) as Record<string, unknown>;
          return result;
        }
        case "failed":
          throw isWireError(task.error) ? fromWireError(task.error) : new McpClientError(`Task ${taskId} failed`);
        case "cancelled":
          throw new McpClientError(`Task ${taskId} was cancelled`);
        case "input_required": {
          const inputResponses = answerMap();
          for (const [key, request] of inputRequestsOf(task.inputRequests, maxInputRequests)) {
            // Keys are never reused in a task's life: one answered is not answered again.
            if (answered.has(key)) continue;
            inputResponses[key] = await answerInput(handlers, request, signal).catch((err: unknown) => {
              unanswerable = true;
              throw err;
            });
            answered.add(key);
          }
          if (Object.keys(inputResponses).length) await lane.request("tasks/update", { taskId, inputResponses }, plain);
        }
      }
      const interval = typeof task.pollIntervalMs === "number" ? task.pollIntervalMs : 1000;
      await sleep(Math.max(interval, options.minPollMs ?? 100), signal);
      task = await lane.request("tasks/get", { taskId }, plain);
    }
  } catch (err) {
    // The caller gave up, or the app cannot answer the task's question: the task would otherwise wait
    // for nobody until its ttl.
    if ((signal?.aborted && !keepOnAbort) || unanswerable) await lane.request("tasks/cancel", { taskId }, {}).catch(() => undefined);
    throw err;
  }
}

/**
 * 2025-11-25: calls a tool as a task (`params.task`) and waits for its result on `tasks/result`. The
 * task keeps the call's progress token for its life, so its progress reaches the caller's
 * `onProgress` from whichever stream brings it.
 */
export async function callLegacyTask(
  lane: LegacySession,
  params: Record<string, unknown>,
  options: TaskOptions,
  call: CallOptions = {},
): Promise<Record<string, unknown>> {
  const { onProgress, ...rest } = call;
  const token = onProgress ? `task-progress-${nextId()}` : undefined;
  const stop = token !== undefined ? lane.routeProgress(token, call) : undefined;
  try {
    const asked = { ...(options.ttlMs !== undefined ? { ttl: options.ttlMs } : {}) };
    const meta = token !== undefined ? { _meta: { ...(params._meta as object | undefined), progressToken: token } } : {};
    const created = await lane.request("tools/call", { ...params, ...meta, task: asked }, rest);
    if (!created.task) return created;
    const task = created.task as Record<string, unknown>;
    options.onTask?.(task);
    return await followLegacyTask(lane, String(task.taskId), rest);
  } finally {
    stop?.();
  }
}

/**
 * 2025-11-25: waits for a task on `tasks/result` and returns the call's result; the task's progress goes
 * to `call.onProgress`. Aborting cancels it, unless `keepOnAbort`.
 */
export async function followLegacyTask(
  lane: LegacySession,
  taskId: string,
  call?: CallOptions,
  keepOnAbort = false,
): Promise<Record<string, unknown>> {
  const { signal, onProgress } = call ?? {};
  const stop = onProgress ? lane.routeTaskProgress(taskId, { onProgress }) : undefined;
  try {
    // tasks/result waits for the end of the task, which its ttl bounds, not the request timeout.
    return await lane.request("tasks/result", { taskId }, { timeoutMs: 0, ...(signal ? { signal } : {}) });
  } catch (err) {
    if (signal?.aborted && !keepOnAbort) await lane.request("tasks/cancel", { taskId }, {}).catch(() => undefined);
    throw err;
  } finally {
    stop?.();
  }
}
