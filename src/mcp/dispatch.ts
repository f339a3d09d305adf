/**
 * The dispatch tables: method name → handler. Both lanes call `dispatch` with
 * their revision's table (revisions/), built from the methods shared here.
 */
import type { HandlerContext } from "./context";
import { methodNotFound } from "./errors";
import { complete } from "./methods/completion";
import { getPrompt, listPrompts } from "./methods/prompts";
import { listResourceTemplates, listResources, readResource } from "./methods/resources";
import { callTool } from "./methods/tools";
import type { Registry } from "./registry";
import type { ServerCapabilities } from "./types";

type Method = (reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) => unknown;

interface MethodEntry {
  run: Method;
  /** The server capability the method sits behind; without it the method does not exist (-32601). */
  needs?: keyof ServerCapabilities;
}

/** Methods both revisions share, with the same params and results; tools/list differs in its lists only. */
export const SHARED_METHODS: Record<string, MethodEntry> = {
  "tools/call": { run: callTool, needs: "tools" },
  "resources/list": { run: listResources, needs: "resources" },
  "resources/templates/list": { run: listResourceTemplates, needs: "resources" },
  "resources/read": { run: readResource, needs: "resources" },
  "prompts/list": { run: listPrompts, needs: "prompts" },
  "prompts/get": { run: getPrompt, needs: "prompts" },
  "completion/complete": { run: complete, needs: "completions" },
};

export type MethodTable = Readonly<Record<string, MethodEntry>>;

/** Methods that may answer with an InputRequiredResult (MRTR). */
export const INPUT_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

export function hasMethod(table: MethodTable, reg: Registry, method: string): boolean {
  const entry = Object.hasOwn(table, method) ? table[method] : undefined;
  if (entry === undefined) return reg.ext?.methods.has(method) ?? false;
  return entry.needs === undefined || reg.capabilities[entry.needs] !== undefined;
}

export async function dispatch(
  table: MethodTable,
  reg: Registry,
  method: string,
  params: Record<string, unknown>,
  ctx: HandlerContext<any>,
): Promise<Record<string, unknown>> {
  if (!hasMethod(table, reg, method)) throw methodNotFound(method);
  // The methods of opt-in extensions (skills/list…) come after the revision's own.
  const run = Object.hasOwn(table, method) ? table[method]!.run(reg, params, ctx) : reg.ext!.methods.get(method)!.run(params, ctx);
  return (await run) as Record<string, unknown>;
}
