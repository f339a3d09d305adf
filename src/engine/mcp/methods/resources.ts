/** resources/list, resources/templates/list and resources/read. */
import type { ResourceReturn } from "../app";
import type { HandlerContext } from "../context";
import { ResourceNotFound, handlerReturned, invalidParams } from "../errors";
import { isObject } from "../guards";
import { paginate } from "../pagination";
import type { MethodTable, Registry } from "../registry";
import type { ResourceContents } from "../types";

/**
 * What `defineResource` and `defineResourceTemplate` bring, and the extension host when an extension
 * adds resources (a view's, a skill's files): an app without any carries none of this.
 */
export const RESOURCE_METHODS: MethodTable = {
  "resources/list": { run: listResources, needs: "resources" },
  "resources/templates/list": { run: listResourceTemplates, needs: "resources" },
  "resources/read": { run: readResource, needs: "resources" },
};

/** Whether a URI names a static resource or matches a template (used by subscriptions). */
export function resourceExists(reg: Registry, uri: string): boolean {
  return reg.resources.has(uri) || reg.templates.some((t) => t.matcher.match(uri) !== null) || reg.ext?.resource?.(uri) !== undefined;
}

function listResources(reg: Registry, params: Record<string, unknown>) {
  return paginate("resources", reg.resourceList, params.cursor, reg.pageSize);
}

function listResourceTemplates(reg: Registry, params: Record<string, unknown>) {
  return paginate("resourceTemplates", reg.templateList, params.cursor, reg.pageSize);
}

async function readResource(reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const { uri } = params;
  if (typeof uri !== "string") throw invalidParams("resources/read needs params.uri (a string)");
  const resource = reg.resources.get(uri) ?? reg.ext?.resource?.(uri);
  if (resource) return { contents: normalize(await resource.read(ctx), uri, resource.mimeType) };
  for (const t of reg.templates) {
    const vars = t.matcher.match(uri);
    if (vars) return { contents: normalize(await t.def.read(vars, uri, ctx), uri, t.def.mimeType) };
  }
  throw new ResourceNotFound(uri);
}

/**
 * A handler's return as the result's contents. Whatever it returned is checked: only text or blob
 * contents with a uri go on (an object reached by a lookup like `MAP[name]` with name
 * "__proto__" must not travel as a result).
 */
function normalize(value: ResourceReturn, uri: string, mimeType?: string): ResourceContents[] {
  if (typeof value === "string") return [mimeType ? { uri, mimeType, text: value } : { uri, text: value }];
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const i = list.findIndex((c) => !isContents(c));
  if (i >= 0)
    throw handlerReturned(`read (${uri})`, `invalid contents at index ${i} (each needs a uri and a text or blob string)`, list[i]);
  return list as ResourceContents[];
}

const isContents = (c: unknown): boolean =>
  isObject(c) && typeof c.uri === "string" && (typeof c.text === "string" || typeof c.blob === "string");
