/**
 * `toolSearch()` (docs/tools-at-scale.md): a surface of two tools in place of a long list.
 * `search_tools` finds the app's tools (its own, mounted and imported ones) by what they do, among
 * those the caller may call (search-tool.ts); `call_tool` calls one by name, through the same path as
 * a direct `tools/call` (inner-call.ts), and answers what that call answers.
 */
import * as v from "valibot";
import type { Surface, ToolDefinition } from "../app";
import type { HandlerContext } from "../context";
import { toolError } from "../errors";
import { mountedTool } from "../mounts";
import type { Registry } from "../registry";
import { searchTool } from "./search-tool";
import { surfaceOf } from "./surface";

export interface ToolSearchOptions {
  /** How many matches `search_tools` answers when the model asks for no number (default 5). */
  limit?: number;
  /** The most it answers whatever the model asks for (default 20). */
  maxLimit?: number;
}

/** The problems of a surface's `limit` and `maxLimit`, one line each. */
function limitProblems(limit: unknown, maxLimit: unknown): string[] {
  const counted = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 100;
  const problems: string[] = [];
  if (!counted(limit)) problems.push(`limit must be a whole number from 1 to 100 (got ${String(limit)})`);
  if (!counted(maxLimit)) problems.push(`maxLimit must be a whole number from 1 to 100 (got ${String(maxLimit)})`);
  else if (counted(limit) && (limit as number) > (maxLimit as number))
    problems.push(`limit (${limit}) is more than maxLimit (${maxLimit})`);
  return problems;
}

/** The surface of `search_tools` and `call_tool`, for `defineApp({ surface })`. */
export function toolSearch(options: ToolSearchOptions = {}): Surface {
  const { limit = 5, maxLimit = 20 } = options;
  return surfaceOf("toolSearch", ["search_tools", "call_tool"], limitProblems(limit, maxLimit), (reg) => [
    searchTool(reg, {
      limit,
      maxLimit,
      description: `Find this server's tools by what they do (keywords or a sentence). Answers up to ${maxLimit} with their input schemas; call one with call_tool.`,
    }),
    callTool(reg),
  ]);
}

function callTool(reg: Registry): ToolDefinition<any, any, any> {
  return {
    name: "call_tool",
    description: "Call a tool that search_tools found, by its name, with its arguments.",
    input: v.object({
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
      arguments: v.optional(v.record(v.string(), v.unknown())),
    }),
    async handler({ name, arguments: args }: { name: string; arguments?: Record<string, unknown> }, ctx: HandlerContext<any>) {
      const known = !reg.surface?.names.has(name) && (reg.tools.has(name) || mountedTool(reg.mounts, name) !== undefined);
      // The model can mend a name it made up: a tool error saying so, where a direct call's is -32602.
      if (!known) return toolError(`There is no tool named "${name}": search_tools finds the tools there are.`);
      return ctx.callTool!(name, args ?? {});
    },
  };
}
