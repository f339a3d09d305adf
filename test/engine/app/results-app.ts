/**
 * A fixture app whose tools answer more than its (small) result budget (docs/results.md): long text,
 * a structured result, a task, and one tool with a budget of its own. What
 * test/engine/integration/result-budget.test.ts calls through /mcp on both revisions. Its session and
 * task classes are bound only in the engine tests (vitest-index.ts).
 */
import * as v from "valibot";
import { defineApp, defineTool, durableTask, resultBudget } from "../../../src/mcp";

/** Small, so that a test's result passes it without megabytes. */
export const RESULTS_MAX_CHARS = 2_000;

/** `n` numbered lines of 20 characters each ("line 00001 ........\n"). */
export const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => `line ${String(i + 1).padStart(5, "0")} ${".".repeat(8)}\n`).join("");

const count = v.object({ lines: v.number() });

export const resultsTools = [
  defineTool({ name: "long_text", input: count, handler: ({ lines: n }) => lines(n) }),
  defineTool({
    name: "long_structured",
    input: count,
    output: v.object({ rows: v.array(v.string()) }),
    handler: ({ lines: n }) => ({ rows: lines(n).split("\n").filter(Boolean) }),
  }),
  defineTool({ name: "roomy", maxResultChars: 10_000, input: count, handler: ({ lines: n }) => lines(n) }),
  defineTool({ name: "long_task", task: durableTask("optional"), input: count, handler: ({ lines: n }) => lines(n) }),
];

export default defineApp({
  info: { name: "results-app", version: "1.0.0" },
  results: resultBudget({ maxChars: RESULTS_MAX_CHARS }),
  tools: resultsTools,
});
