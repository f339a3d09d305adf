/** prompts/list and prompts/get. */
import type { HandlerContext } from "../context";
import { invalidParams } from "../errors";
import { paginate } from "../pagination";
import type { Registry } from "../registry";

export function listPrompts(reg: Registry, params: Record<string, unknown>) {
  const { page, nextCursor } = paginate(reg.promptList, params.cursor, reg.pageSize);
  return nextCursor ? { prompts: page, nextCursor } : { prompts: page };
}

export async function getPrompt(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const { name, arguments: args = {} } = params;
  if (typeof name !== "string") throw invalidParams("prompts/get needs params.name (a string)");
  const prompt = reg.prompts.get(name);
  if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
  if (typeof args !== "object" || args === null || Array.isArray(args) || Object.values(args).some((a) => typeof a !== "string"))
    throw invalidParams("params.arguments must be an object of strings");
  const given = args as Record<string, string>;
  const missing = (prompt.arguments ?? []).filter((a) => a.required && given[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) throw invalidParams(`Missing required argument(s) for prompt ${name}: ${missing.join(", ")}`);
  const value = await prompt.get(given, ctx);
  return Array.isArray(value) ? { messages: value } : value;
}
