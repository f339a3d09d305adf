/** tools/list and tools/call. */
import * as v from "valibot";
import type { ToolReturn } from "../app";
import type { HandlerContext } from "../context";
import { McpError, ToolError, invalidParams, toolError } from "../errors";
import { isObject } from "../guards";
import { InputRequired } from "../input";
import { StartTask } from "../tasks";
import { mountedTool } from "../mounts";
import { paginate } from "../pagination";
import { traceIdOf, writeLog } from "../telemetry";
import { toolNamed, type Registry } from "../registry";
import type { CallToolResult, Content } from "../types";

/**
 * tools/list over `list`, the registry's list a revision serves. A function each revision's table
 * calls, rather than one it makes at start-up: start-up then runs (and V8 compiles) none of it.
 */
export async function listTools(list: Record<string, unknown>[], reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  // An extension may give this client other tools (MCP Apps: text-only ones for a host without it).
  // Mounted servers' tools follow the app's own; a surface lists its own tools only.
  const all = reg.mounts && !reg.surface ? [...list, ...(await Promise.all(reg.mounts.map((m) => m.tools(ctx)))).flat()] : list;
  return paginate("tools", reg.ext?.tools?.(ctx, all) ?? all, params.cursor, reg.pageSize);
}

/**
 * A tool call's arguments checked before it becomes a task: a bad argument is answered at once, like
 * any call's (a tool result with `isError`), rather than as a task that fails later.
 */
export function argumentProblem(reg: Registry, params: Record<string, unknown>): CallToolResult | undefined {
  const tool = toolNamed(reg, params);
  const args = params.arguments ?? {};
  if (!tool?.def.input || !isObject(args)) return undefined;
  const parsed = v.safeParse(tool.def.input, args);
  return parsed.success ? undefined : toolError(`Invalid arguments for ${tool.def.name}: ${describeIssues(parsed.issues)}`);
}

/** tools/call: the tool's result, cut and linked when it is over its budget (an app with `resultBudget()`). */
export async function callTool(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>): Promise<CallToolResult> {
  const [result, mirrored] = await resultOf(reg, params, ctx);
  return reg.results ? reg.results.fit(result, params.name as string, ctx, mirrored) : result;
}

/** The result, and whether its structuredContent is its text's JSON (the engine made the one from the other). */
async function resultOf(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>): Promise<[CallToolResult, boolean]> {
  const { name, arguments: args = {} } = params;
  if (typeof name !== "string") throw invalidParams("tools/call needs params.name (a string)");
  const tool = reg.tools.get(name);
  const mounted = !tool && mountedTool(reg.mounts, name);
  if (mounted) {
    if (!isObject(args)) throw invalidParams("params.arguments must be an object");
    return [await mounted[0].callTool(mounted[1], args, ctx), false];
  }
  // A tool left out of this client's list (MCP Apps: one only a view calls, and this client shows none) is unknown to it.
  if (!tool || reg.ext?.hidden?.(ctx, name)) throw invalidParams(`Unknown tool: ${name}`);
  if (!isObject(args)) throw invalidParams("params.arguments must be an object");

  let input: unknown = args;
  if (tool.def.input) {
    const parsed = v.safeParse(tool.def.input, args);
    // A bad argument is something the model can fix, so it is a tool result, not a protocol error.
    if (!parsed.success) return [toolError(`Invalid arguments for ${name}: ${describeIssues(parsed.issues)}`), false];
    input = parsed.output;
  }
  try {
    const value = await tool.def.handler(input as never, ctx);
    if (!tool.def.output) return [toResult(value as ToolReturn), false];
    const checked = v.safeParse(tool.def.output, value);
    if (!checked.success)
      return [toolError(`${name} returned a result that does not match its output schema: ${describeIssues(checked.issues)}`), false];
    // JSON has no Infinity or NaN: they would arrive as null and break the tool's own output schema.
    const where = nonFinitePath(checked.output, "");
    if (where !== undefined)
      return [toolError(`${name} returned a number that is not finite at ${where || "the top level"}; JSON cannot carry it`), false];
    return [{ content: [{ type: "text", text: JSON.stringify(checked.output) }], structuredContent: checked.output }, true];
  } catch (err) {
    // Asking the client for input, and protocol errors the handler chose, are not tool failures.
    if (err instanceof InputRequired || err instanceof StartTask || err instanceof McpError) throw err;
    if (err instanceof ToolError) return [toolError(err.message), false];
    return [internalFailure(name, err, traceIdOf(ctx.trace.traceparent), ctx.env?.MCP_DEV === "on"), false];
  }
}

/**
 * An unexpected exception may carry anything (a connection string, a stack): the model gets a generic
 * message, and the server log gets the details under an id that ties the two together.
 */
function internalFailure(tool: string, err: unknown, traceId: string | undefined, dev: boolean): CallToolResult {
  const errorId = crypto.randomUUID();
  const stack = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  writeLog("error", "tool_threw", { message: `Tool "${tool}" threw (error id ${errorId})`, tool, errorId, stack, traceId });
  // Under `npm run dev` the stack again, on lines of its own: wrangler maps those (not the escaped
  // ones inside the JSON line) from the bundle to src/ through its source map.
  if (dev) console.error(`Tool "${tool}" threw (error id ${errorId}): ${stack}`);
  return toolError(`The tool "${tool}" failed with an internal error (error id ${errorId}).`);
}

function toResult(value: ToolReturn): CallToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (Array.isArray(value)) return { content: value };
  if ("content" in value && Array.isArray(value.content)) return value as CallToolResult;
  return { content: [value as Content] };
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((i) => {
      const path = v.getDotPath(i);
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}

/** The dot path of the first number that JSON cannot carry (Infinity, NaN), or undefined. */
function nonFinitePath(value: unknown, path: string): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : path;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinitePath(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
