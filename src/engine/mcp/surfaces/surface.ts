/**
 * The seam every surface plugs into (docs/tools-at-scale.md): `toolSearch()` and `codeMode()` each
 * make a Surface value whose `install` calls `installSurface` with its own tools. Those tools are
 * compiled as the app's are and become the whole of tools/list; the app's tools, mounted ones and
 * imported operations stay in the registry, callable by name (directly, or through the surface's
 * inner calls) but no longer listed.
 */
import type { Surface, ToolDefinition } from "../app";
import type { ExecuteOptions } from "../execute";
import { compileTool, type Registry } from "../registry";
import { innerCaller } from "./inner-call";

/** What a surface's maker gives: its kind, its own tools' names, and the problems of its options. */
export function surfaceOf(
  kind: string,
  names: readonly string[],
  problems: readonly string[],
  tools: (reg: Registry) => ToolDefinition<any, any, any>[],
): Surface {
  return {
    kind,
    names,
    problems,
    install(registry) {
      if (problems.length > 0) throw new Error(`${kind}: ${problems[0]}`);
      installSurface(registry as Registry, kind, tools(registry as Registry));
    },
  };
}

function installSurface(reg: Registry, kind: string, tools: ToolDefinition<any, any, any>[]): void {
  const compiled = tools.map((def) => {
    if (reg.tools.has(def.name)) throw new Error(`Tool "${def.name}" is the ${kind} surface's own: rename the app's tool`);
    return compileTool(def);
  });
  for (const tool of compiled) reg.tools.set(tool.def.name, tool);
  reg.toolList = compiled.map((t) => t.wire);
  reg.legacyToolList = reg.toolList;
  reg.capabilities.tools ??= { listChanged: true };
  reg.surface = { kind, names: new Set(tools.map((t) => t.name)), caller: (options) => innerCaller(options as ExecuteOptions) };
}
