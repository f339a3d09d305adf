/**
 * The lists and reads of prompts and resources with the mounts' own: the app's first (PROMPT_METHODS,
 * RESOURCE_METHODS, which an app with prompts or resources brings anyway), then each mount's under its
 * prefix. A local URI that starts like a mount's (`ex+…`) is the mount's.
 */
import type { HandlerContext } from "../mcp/context";
import { invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { COMPLETION_METHODS } from "../mcp/methods/completion";
import { PROMPT_METHODS } from "../mcp/methods/prompts";
import { RESOURCE_METHODS } from "../mcp/methods/resources";
import { mountedResource, mountedTool, type Mount, type MountedList } from "../mcp/mounts";
import { paginate } from "../mcp/pagination";
import type { MethodTable, Registry } from "../mcp/registry";

/** The app's entries of `kind`, then every mount's, one page of them. */
async function listWithMounts(
  kind: Exclude<MountedList, "tools">,
  own: Record<string, unknown>[],
  reg: Registry,
  params: Record<string, unknown>,
  ctx: HandlerContext<any>,
) {
  const mounted = await Promise.all((reg.mounts ?? []).map((m: Mount) => m[kind](ctx)));
  return paginate(kind, [...own, ...mounted.flat()], params.cursor, reg.pageSize);
}

export const MOUNT_METHODS: MethodTable = {
  "resources/list": {
    needs: "resources",
    run: (reg, params, ctx) => listWithMounts("resources", reg.resourceList, reg, params, ctx),
  },
  "resources/templates/list": {
    needs: "resources",
    run: (reg, params, ctx) => listWithMounts("resourceTemplates", reg.templateList, reg, params, ctx),
  },
  "resources/read": {
    needs: "resources",
    run: (reg, params, ctx) => {
      const mounted = typeof params.uri === "string" && mountedResource(reg.mounts, params.uri);
      return mounted ? mounted[0].readResource(mounted[1], ctx) : RESOURCE_METHODS["resources/read"]!.run(reg, params, ctx);
    },
  },
  "prompts/list": {
    needs: "prompts",
    run: (reg, params, ctx) => listWithMounts("prompts", reg.promptList, reg, params, ctx),
  },
  "completion/complete": {
    needs: "completions",
    run: (reg, params, ctx) => {
      const ref = isObject(params.ref) ? params.ref : {};
      // A mounted prompt or template is completed upstream; the app's own (and bad params) here.
      const prompt =
        ref.type === "ref/prompt" && typeof ref.name === "string" && !reg.prompts.has(ref.name) && mountedTool(reg.mounts, ref.name);
      if (prompt) return prompt[0].complete({ type: "ref/prompt", name: prompt[1] }, params, ctx);
      const template =
        ref.type === "ref/resource" &&
        typeof ref.uri === "string" &&
        !reg.templates.some((t) => t.def.uriTemplate === ref.uri) &&
        mountedResource(reg.mounts, ref.uri);
      if (template && isObject(params.argument)) return template[0].complete({ type: "ref/resource", uri: template[1] }, params, ctx);
      return COMPLETION_METHODS["completion/complete"]!.run(reg, params, ctx);
    },
  },
  "prompts/get": {
    needs: "prompts",
    run: (reg, params, ctx) => {
      const name = params.name;
      const mounted = typeof name === "string" && !reg.prompts.has(name) && mountedTool(reg.mounts, name);
      if (!mounted) return PROMPT_METHODS["prompts/get"]!.run(reg, params, ctx);
      const args = params.arguments ?? {};
      if (!isObject(args) || Object.values(args).some((a) => typeof a !== "string"))
        throw invalidParams("params.arguments must be an object of strings");
      return mounted[0].getPrompt(mounted[1], args as Record<string, string>, ctx);
    },
  },
};
