/**
 * The tools a surface offers a caller: the app's own (less the surface's), then every mounted
 * server's, as tools/list would have listed them without the surface, less those this caller may not
 * call. The filter is the listing's (`reg.allows`, which `hideUnauthorized` applies to tools/list, and
 * an extension's hidden tools): a hidden or scoped tool never shows up to a caller who cannot use it.
 */
import type { HandlerContext } from "../context";
import type { Registry } from "../registry";

/** A tool as listed: name, title, description, inputSchema… */
export type ListedTool = Record<string, unknown> & { name: string };

/** Every tool the surface stands in for, whoever calls (built from the registry and the mounts' lists). */
export async function allTools(reg: Registry, ctx: HandlerContext<any>): Promise<ListedTool[]> {
  const own: ListedTool[] = [];
  for (const [name, tool] of reg.tools) if (!reg.surface?.names.has(name)) own.push(tool.wire as ListedTool);
  if (!reg.mounts) return own;
  const mounted = await Promise.all(reg.mounts.map((m) => m.tools(ctx)));
  return [...own, ...(mounted.flat() as ListedTool[])];
}

/** Whether this caller may call the tool `name` (what the listing's filter asks). */
export const mayCall = (reg: Registry, ctx: HandlerContext<any>, name: string) =>
  !reg.surface?.names.has(name) && (reg.allows?.("tools/call", { name }, ctx.auth) ?? true) && !reg.ext?.hidden?.(ctx, name);
