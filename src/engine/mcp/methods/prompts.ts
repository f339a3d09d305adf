/** prompts/list and prompts/get. */
import type { HandlerContext } from "../context";
import { handlerReturned, invalidParams } from "../errors";
import { isObject } from "../guards";
import { paginate } from "../pagination";
import type { MethodTable, Registry } from "../registry";

/** What `definePrompt` brings: an app without prompts carries none of this. */
export const PROMPT_METHODS: MethodTable = {
  "prompts/list": { run: listPrompts, needs: "prompts" },
  "prompts/get": { run: getPrompt, needs: "prompts" },
};

function listPrompts(reg: Registry, params: Record<string, unknown>) {
  return paginate("prompts", reg.promptList, params.cursor, reg.pageSize);
}

async function getPrompt(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const { name, arguments: args = {} } = params;
  if (typeof name !== "string") throw invalidParams("prompts/get needs params.name (a string)");
  const prompt = reg.prompts.get(name);
  if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
  if (!isObject(args) || Object.values(args).some((a) => typeof a !== "string"))
    throw invalidParams("params.arguments must be an object of strings");
  const given = args as Record<string, string>;
  const missing = (prompt.arguments ?? []).filter((a) => a.required && given[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) throw invalidParams(`Missing required argument(s) for prompt ${name}: ${missing.join(", ")}`);
  const value: unknown = await prompt.get(given, ctx);
  const result = Array.isArray(value) ? { messages: value } : value;
  const bad = checkPromptResult(result);
  if (bad) throw handlerReturned(`prompt "${name}"`, bad, value);
  return result;
}

/** What is wrong with a prompt handler's result, or undefined when it is a GetPromptResult. */
function checkPromptResult(result: unknown): string | undefined {
  if (!isObject(result) || !Array.isArray(result.messages)) return "no list of messages";
  const i = result.messages.findIndex(
    (m: unknown) =>
      !isObject(m) || (m.role !== "user" && m.role !== "assistant") || !isObject(m.content) || typeof m.content.type !== "string",
  );
  return i < 0 ? undefined : `an invalid message at index ${i} (it needs role "user" or "assistant" and a content block)`;
}
