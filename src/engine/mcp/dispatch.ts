/**
 * The dispatch tables: method name → handler. Both lanes call `dispatch` with their revision's
 * table (revisions/), built from the methods shared here; the methods of prompts, resources and
 * completions come with the app's definitions instead (define.ts), in `reg.methods`.
 */
import type { HandlerContext } from "./context";
import { methodNotFound } from "./errors";
import { callTool } from "./methods/tools";
import type { MethodEntry, MethodTable, Registry } from "./registry";

/** Methods both revisions share, with the same params and results; tools/list differs in its lists only. */
export const SHARED_METHODS: MethodTable = {
  "tools/call": { run: callTool, needs: "tools" },
};

/** The revision's own entry for a method, else the one the app's definitions brought. */
const entryOf = (table: MethodTable, reg: Registry, method: string): MethodEntry | undefined =>
  Object.hasOwn(table, method) ? table[method] : reg.methods[method];

export function hasMethod(table: MethodTable, reg: Registry, method: string): boolean {
  const entry = entryOf(table, reg, method);
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
  // The methods of opt-in extensions (skills/list…) come after the revision's own and the app's.
  const entry = entryOf(table, reg, method);
  const run = entry ? entry.run(reg, params, ctx) : reg.ext!.methods.get(method)!.run(params, ctx, reg);
  return (await run) as Record<string, unknown>;
}
