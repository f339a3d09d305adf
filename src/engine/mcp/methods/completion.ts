/** completion/complete for prompt arguments and resource template variables. */
import type { Completer } from "../app";
import type { HandlerContext } from "../context";
import { handlerReturned, invalidParams } from "../errors";
import { isObject } from "../guards";
import type { MethodTable, Registry } from "../registry";

const MAX_VALUES = 100;

/** Prompts and resource templates both bring it (their arguments and variables are what it completes). */
export const COMPLETION_METHODS: MethodTable = { "completion/complete": { run: complete, needs: "completions" } };

async function complete(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  if (typeof ref !== "object" || ref === null) throw invalidParams("completion/complete needs params.ref");
  if (typeof argument !== "object" || argument === null || typeof argument.name !== "string" || typeof argument.value !== "string")
    throw invalidParams("completion/complete needs params.argument with string name and value");
  const context = params.context as { arguments?: unknown } | undefined;

  let completers: Record<string, Completer<any>> | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = typeof ref.name === "string" ? reg.prompts.get(ref.name) : undefined;
    if (!prompt) throw invalidParams(`Unknown prompt: ${String(ref.name)}`);
    completers = prompt.complete;
  } else if (ref.type === "ref/resource") {
    const template = reg.templates.find((t) => t.def.uriTemplate === ref.uri);
    if (!template && !(typeof ref.uri === "string" && reg.resources.has(ref.uri)))
      throw invalidParams(`Unknown resource or template: ${String(ref.uri)}`);
    completers = template?.def.complete;
  } else {
    throw invalidParams('params.ref.type must be "ref/prompt" or "ref/resource"');
  }

  // The name comes from the client: only the app's own completers count, never Object.prototype's
  // ("constructor", "__proto__", "valueOf"…).
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  const given = isObject(context?.arguments) ? stringsOnly(context.arguments) : {};
  const all: unknown = completer ? await completer(argument.value, { arguments: given }, ctx) : [];
  if (!Array.isArray(all) || !all.every((x) => typeof x === "string"))
    throw handlerReturned(`completion (${argument.name})`, "something other than a list of strings", all);
  const values = all.slice(0, MAX_VALUES);
  return { completion: { values, total: all.length, hasMore: all.length > values.length } };
}

/** The context arguments a completer sees: the client's own string values, anything else dropped. */
function stringsOnly(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(args)) if (typeof val === "string") out[k] = val;
  return out;
}
