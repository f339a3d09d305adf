/** resources/list, resources/templates/list and resources/read. */
import type { ResourceReturn } from "../app";
import type { HandlerContext } from "../context";
import { ResourceNotFound, invalidParams } from "../errors";
import { paginate } from "../pagination";
import type { Registry } from "../registry";
import type { ResourceContents } from "../types";

export function listResources(reg: Registry, params: Record<string, unknown>) {
  const { page, nextCursor } = paginate(reg.resourceList, params.cursor, reg.pageSize);
  return nextCursor ? { resources: page, nextCursor } : { resources: page };
}

export function listResourceTemplates(reg: Registry, params: Record<string, unknown>) {
  const { page, nextCursor } = paginate(reg.templateList, params.cursor, reg.pageSize);
  return nextCursor ? { resourceTemplates: page, nextCursor } : { resourceTemplates: page };
}

/** Whether a URI names a static resource or matches a template (used by subscriptions). */
export function resourceExists(reg: Registry, uri: string): boolean {
  return reg.resources.has(uri) || reg.templates.some((t) => t.matcher.match(uri) !== null);
}

export async function readResource(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const { uri } = params;
  if (typeof uri !== "string") throw invalidParams("resources/read needs params.uri (a string)");
  const resource = reg.resources.get(uri);
  if (resource) return { contents: normalize(await resource.read(ctx), uri, resource.mimeType) };
  for (const t of reg.templates) {
    const vars = t.matcher.match(uri);
    if (vars) return { contents: normalize(await t.def.read(vars, uri, ctx), uri, t.def.mimeType) };
  }
  throw new ResourceNotFound(uri);
}

function normalize(value: ResourceReturn, uri: string, mimeType?: string): ResourceContents[] {
  if (typeof value === "string") return [mimeType ? { uri, mimeType, text: value } : { uri, text: value }];
  return Array.isArray(value) ? value : [value];
}
