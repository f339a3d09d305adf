/**
 * Task fixtures (the tasks extension's `tasks-*` scenarios on 2026-07-28, and
 * 2025-11-25 core tasks): one handler each, the same on both revisions.
 */
import * as v from "valibot";
import { ErrorCode, McpError, ToolError, defineTool, durableTask, elicit } from "../../../src/mcp";

/** Waits `ms`, or less when the task is cancelled (the run then ends at once). */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export const taskTools = [
  defineTool({
    name: "greet",
    description: "Greets by name (never a task)",
    input: v.object({ name: v.string() }),
    handler: ({ name }) => `Hello, ${name}!`,
  }),
  defineTool({
    name: "slow_compute",
    description: "Sleeps for `seconds`, then answers (a task when the client takes tasks)",
    input: v.object({ seconds: v.pipe(v.number(), v.minValue(0), v.maxValue(600)), label: v.optional(v.string()) }),
    task: durableTask("optional"),
    handler: async ({ seconds, label }, ctx) => {
      await ctx.step("compute", () => pause(seconds * 1000, ctx.signal));
      return `Computed ${label ?? "result"} after ${seconds} s`;
    },
  }),
  defineTool({
    name: "confirm_delete",
    description: "Asks for confirmation before deleting a file",
    input: v.object({ filename: v.string() }),
    task: durableTask("optional"),
    handler: ({ filename }, ctx) => {
      const { confirm } = ctx.input.ask({ confirm: elicit(`Delete ${filename}?`, { confirm: { type: "boolean" } }, ["confirm"]) });
      return confirm.action === "accept" && confirm.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  }),
  defineTool({
    name: "multi_input",
    description: "Asks two questions at once",
    task: durableTask("optional"),
    handler: (_args, ctx) => {
      const { first, second } = ctx.input.ask({
        first: elicit("First name?", { name: { type: "string" }, confirm: { type: "boolean" } }),
        second: elicit("Second name?", { name: { type: "string" }, confirm: { type: "boolean" } }),
      });
      return `Got ${String(first.content?.name)} and ${String(second.content?.name)}`;
    },
  }),
  defineTool({
    name: "failing_job",
    description: "Always ends with a tool error after about a second (runs only as a task)",
    task: durableTask("required"),
    handler: async (_args, ctx) => {
      await pause(1000, ctx.signal);
      throw new ToolError("The job failed, as it always does");
    },
  }),
  defineTool({
    name: "protocol_error_job",
    description: "Ends with a JSON-RPC error rather than a tool result",
    task: durableTask("optional"),
    handler: async (_args, ctx) => {
      await pause(200, ctx.signal);
      throw new McpError(ErrorCode.InternalError, "The job broke down");
    },
  }),
  defineTool({
    name: "test_tool_with_task",
    description: "Asks the user's name in the request, then finishes as a task",
    task: durableTask({ support: "required", startsInline: true }),
    handler: async (_args, ctx) => {
      const { user_name } = ctx.input.ask({ user_name: elicit("What is your name?", { name: { type: "string" } }, ["name"]) });
      ctx.startTask();
      await ctx.step("work", () => pause(200, ctx.signal));
      return `Hello, ${String(user_name.content?.name ?? "stranger")}, from a task!`;
    },
  }),
];
