/**
 * Authorization per operation (docs/authorization.md): the scopes each tool, resource, template and
 * prompt declares, checked once the request names the operation, on both revisions. An app opts in
 * with `defineAuthorization` (its `authorization`), which brings this code: an app that declares no
 * scopes carries none of it, and one that declares scopes without it is refused at start-up.
 */
import type { Authorization, AuthorizationOptions, AuthorizeOperation, Policy, Scopes } from "./app";
import { InsufficientScope, isScopeToken, type Auth } from "./auth";
import { ErrorCode, McpError, ToolError } from "./errors";
import { mountedResource, mountedScopes, mountedTool } from "./mounts";
import type { Registry } from "./registry";

/** Turns on the checks of declared scopes (and their implications) for an app. */
export const defineAuthorization = (options: AuthorizationOptions = {}): Authorization => ({ ...options, compile: (reg) => compileChecks(reg as Registry, options) });

function compileChecks(reg: Registry, options: AuthorizationOptions): AuthorizeOperation {
  const fallback = options.scopes ?? [];
  const declared = new Set<string>();
  const checkDeclared = (scopes: unknown, where: string) => {
    if (scopes === undefined || typeof scopes === "function") return;
    if (!Array.isArray(scopes) || !scopes.every(isScopeToken)) throw new Error(`${where}: scopes must be a list of scope tokens (no spaces, quotes or backslashes, at most 256 characters)`);
    for (const s of scopes) declared.add(s);
  };
  checkDeclared(fallback, "defineAuthorization");
  for (const t of reg.tools.values()) checkDeclared(t.def.scopes, `tool ${t.def.name}`);
  for (const r of reg.resources.values()) checkDeclared(r.scopes, `resource ${r.uri}`);
  for (const t of reg.templates) checkDeclared(t.def.scopes, `resource template ${t.def.uriTemplate}`);
  for (const p of reg.prompts.values()) checkDeclared(p.scopes, `prompt ${p.name}`);
  for (const m of reg.mounts ?? []) {
    checkDeclared(m.scopes, `mount ${m.prefix}`);
    for (const [name, scopes] of Object.entries(m.toolScopes ?? {})) checkDeclared(scopes, `mount ${m.prefix}, tool ${name}`);
  }
  reg.scopesSupported = [...declared];
  const names = options.claims ?? [];
  reg.claimsOf = (claims) => {
    const picked: Record<string, unknown> = {};
    if (claims) for (const name of names) if (Object.hasOwn(claims, name)) picked[name] = claims[name];
    return picked;
  };
  const implied = closure(options.implies ?? {});
  const holds = (granted: readonly string[], scope: string) => granted.includes(scope) || granted.some((g) => implied.get(g)?.has(scope));

  /** What the operation a request names needs; undefined for a request that names none of the app's. */
  function needed(method: string, params: Record<string, unknown>): readonly string[] | undefined {
    if (method === "tools/call") {
      const tool = reg.tools.get(params.name as string);
      return tool ? (tool.def.scopes ?? fallback) : mountedScopes(mountedTool(reg.mounts, String(params.name)), fallback);
    }
    if (method === "prompts/get") {
      const prompt = reg.prompts.get(params.name as string);
      return prompt ? (prompt.scopes ?? fallback) : mountedScopes(mountedTool(reg.mounts, String(params.name)), fallback);
    }
    if (method !== "resources/read" || typeof params.uri !== "string") return undefined;
    const resource = reg.resources.get(params.uri);
    if (resource) return resource.scopes ?? fallback;
    for (const t of reg.templates) {
      const vars = t.matcher.match(params.uri);
      if (vars) return templateScopes(t.def.scopes, vars, t.def.uriTemplate) ?? fallback;
    }
    return reg.ext?.resource?.(params.uri) ? fallback : mountedScopes(mountedResource(reg.mounts, params.uri), fallback);
  }

  const allowed = (method: string, params: Record<string, unknown>, auth: Auth) => {
    const scopes = needed(method, params);
    return !scopes || scopes.every((s) => holds(auth.scopes, s));
  };
  const policy = options.policy && runPolicy(options.policy);
  if (options.hideUnauthorized) reg.policy = hidingLists(policy, allowed);
  else reg.policy = policy;
  return (method, params, auth) => {
    if (!allowed(method, params, auth)) throw new InsufficientScope(needed(method, params)!);
  };
}

/** What each list holds, and the operation an entry of it names. */
const LISTS: Record<string, [key: string, method: string, param: string, field: string]> = {
  "tools/list": ["tools", "tools/call", "name", "name"],
  "prompts/list": ["prompts", "prompts/get", "name", "name"],
  "resources/list": ["resources", "resources/read", "uri", "uri"],
};

/** Lists without the entries the caller may not use (`hideUnauthorized`), around the app's policy if any. */
function hidingLists(policy: Registry["policy"], allowed: (method: string, params: Record<string, unknown>, auth: Auth) => boolean): Registry["policy"] {
  return async (method, params, ctx, next) => {
    const result = await (policy ? policy(method, params, ctx, next) : next());
    const list = Object.hasOwn(LISTS, method) ? LISTS[method]! : undefined;
    const { auth } = ctx;
    if (!list || !auth || !Array.isArray(result[list[0]])) return result;
    const [key, op, param, field] = list;
    return { ...result, [key]: (result[key] as Record<string, unknown>[]).filter((entry) => allowed(op, { [param]: entry[field] }, auth)) };
  };
}

/** A template's scopes for one URI; a function that throws or returns no scope list refuses the read (-32603). */
function templateScopes(scopes: Scopes<Record<string, string>> | undefined, vars: Record<string, string>, uriTemplate: string): readonly string[] | undefined {
  if (typeof scopes !== "function") return scopes;
  let out: unknown;
  try {
    out = scopes(vars);
  } catch (err) {
    console.error(`The scopes of resource template ${uriTemplate} threw:`, err);
  }
  if (Array.isArray(out) && out.length <= 64 && out.every(isScopeToken)) return out;
  if (out !== undefined) console.error(`The scopes of resource template ${uriTemplate} are not a list of scope tokens:`, out);
  throw new McpError(ErrorCode.InternalError, "The server could not tell which scopes this resource needs");
}

/** Every scope each scope implies, directly or through others (cycles are harmless). */
function closure(implies: Readonly<Record<string, readonly string[]>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const broad of Object.keys(implies)) {
    const seen = new Set<string>();
    const todo = [...(implies[broad] ?? [])];
    while (todo.length > 0) {
      const s = todo.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      if (Object.hasOwn(implies, s)) todo.push(...implies[s]!);
    }
    out.set(broad, seen);
  }
  return out;
}

/**
 * Runs the app's policy around an operation: the operation as it sees it, and a ToolError it throws
 * on a tools/call as a tool result with `isError` (the model reads it), as a handler's is.
 */
const runPolicy =
  (policy: Policy): Registry["policy"] =>
  async (method, params, ctx, next) => {
    const target = params.name ?? params.uri;
    const op = { method, name: typeof target === "string" ? target : undefined, arguments: (params.arguments ?? params) as Record<string, unknown>, auth: ctx.auth, ctx };
    try {
      return await policy(op, next);
    } catch (err) {
      if (method === "tools/call" && err instanceof ToolError) return { content: [{ type: "text", text: err.message }], isError: true };
      throw err;
    }
  };
