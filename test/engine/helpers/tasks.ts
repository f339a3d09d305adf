/**
 * A task's Durable Object as the tasks tests see it: the object behind a task id, and the barrier for
 * "the run did nothing more" (its run has ended, so whatever it would have asked or stored, it has).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { stepRuns } from "../app/app";
import { until } from "./until";

/** The engine test app's task object of a task. */
export const taskObject = (taskId: string) => env.MCP_TASK!.get(env.MCP_TASK!.idFromName(`task:${taskId}`));

/** Waits until the task's run (started by its alarm, in its object) has ended; at once when none is going. */
export const runEnded = (taskId: string) =>
  runInDurableObject(taskObject(taskId), async (instance) => {
    await (instance as unknown as { runEnd?: Promise<void> }).runEnd;
  });

/** Waits until the work of the app's prepare_report step `step` has begun for the task (the app counts each start). */
export const untilStepStarted = (taskId: string, step: "outline" | "write") =>
  until(() => {
    if (!stepRuns.get(`${taskId}:${step}`)) throw new Error(`the ${step} step of ${taskId} has not started`);
  });

const ENDED = ["completed", "failed", "cancelled"];

/** Reads a task (tasks/get on either revision) until it has `status` or has ended; answers the last read. */
export const untilTask = (read: () => Promise<Record<string, any>>, status = "completed", timeoutMs = 5000) =>
  until(
    async () => {
      const task = await read();
      if (task.status === status || ENDED.includes(task.status)) return task;
      throw new Error(`task ${task.taskId ?? ""} is still ${task.status}, not ${status}`);
    },
    { timeoutMs },
  );
