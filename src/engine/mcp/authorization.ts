/**
 * Authorization per operation (docs/authorization.md): the scopes each tool, resource, template and
 * prompt declares, checked once the request names the operation, on both revisions. An app opts in
 * with `defineAuthorization` (its `authorization`), which brings this code: an app that declares no
 * scopes carries none of it, and one that declares scopes without it is refused at start-up.
 */
import type { Authorization, AuthorizationOptions, AuthorizeOperation, Policy, Scopes } from "./app";
import { InsufficientScope, isScopeToken, type Auth } from "./auth";
import { ErrorCode, McpError, invalidParams } from "./errors";
import { isObject } from "./guards";
import { operationOf, type NamedOperation } from "./operations";
import { mountedResource, mountedScopes, mountedTool } from "./mounts";
import type { Registry } from "./registry";

/** Turns on the checks of declared scopes (and their implications) for an app. */
export const defineAuthorization = (options: AuthorizationOptions = {}): Authorization => ({
  ...options,
  compile: (reg) => compileChecks(reg as Registry, options),
});

function compileChecks(reg: Registry, options: AuthorizationOptions): AuthorizeOperation {
  const fallback = options.scopes ?? [];
  const declared = new Set<string>();
  const checkDeclared = (scopes: unknown, where: string) => {
    if (scopes === undefined || typeof scopes === "function") return;
    if (!Array.isArray(scopes) || !scopes.every(isScopeToken))
      throw new Error(`${where}: scopes must be a list of scope tokens (no spaces, quotes or backslashes, at most 256 characters)`);
    for (const s of scopes) declared.add(s);
  };
  checkDeclared(fallback, "defineAuthorization");
  for (const t of reg.tools.values()) checkDeclared(t.def.scopes, `tool ${t.def.name}`);
  for (const r of reg.resources.values()) checkDeclared(r.scopes, `resource ${r.uri}`);
  for (const t of reg.templates) checkDeclared(t.def.scopes, `resource template ${t.def.uriTemplate}`);
  for (const p of reg.prompts.values()) checkDeclared(p.scopes, `prompt ${p.name}`);
  for (const scopes of reg.ext?.guard?.declared() ?? []) checkDeclared(scopes, "event type");
  for (const m of reg.mounts ?? []) {
    checkDeclared(m.scopes, `mount ${m.prefix}`);
    for (const [name, scopes] of Object.entries(m.toolScopes ?? {})) checkDeclared(scopes, `mount ${m.prefix}, tool ${name}`);
  }
  reg.scopesSupported = [...declared];
  reg.baselineScopes = fallback;
  if (declared.size > 0 && !options.allowUnauthenticated)
    reg.unauthenticatedWarning = `The app declares scopes (${[...declared].slice(0, 8).join(" ")}); without authentication (AUTH_MODE=none, no verifyToken or principal) every scoped operation is refused. Set AUTH_MODE=token or jwt (docs/security.md), or defineAuthorization({ allowUnauthenticated: true }) to serve them to everyone (docs/authorization.md).`;
  const names = options.claims ?? [];
  reg.claimsOf = (claims) => {
    const picked: Record<string, unknown> = {};
    if (claims) for (const name of names) if (Object.hasOwn(claims, name)) picked[name] = claims[name];
    return picked;
  };
  const implied = closure(options.implies ?? {});
  const holds = (granted: readonly string[], scope: string) => granted.includes(scope) || granted.some((g) => implied.get(g)?.has(scope));

  /** What the operation a request names needs; undefined for a request that names none of the app's. */
  function needed(op: NamedOperation | undefined): readonly string[] | undefined {
    const guard = op?.guard;
    if (!guard) return undefined;
    if (guard.of === "event") {
      // An unknown type needs nothing here: its method answers NotFound.
      const scopes = reg.ext?.guard?.scopes(guard.name);
      return scopes === null ? undefined : (scopes ?? fallback);
    }
    if (guard.of === "tool") {
      const tool = reg.tools.get(guard.name);
      return tool ? (tool.def.scopes ?? fallback) : mountedScopes(mountedTool(reg.mounts, guard.name), fallback);
    }
    if (guard.of === "prompt") {
      const prompt = reg.prompts.get(guard.name);
      return prompt ? (prompt.scopes ?? fallback) : mountedScopes(mountedTool(reg.mounts, guard.name), fallback);
    }
    const resource = reg.resources.get(guard.name);
    if (resource) return resource.scopes ?? fallback;
    if (guard.of === "template") {
      // Completion of a template's variables: its scopes, given the variables the client already chose.
      const template = reg.templates.find((t) => t.def.uriTemplate === guard.name);
      return template
        ? completionScopes(template.def.scopes, contextArguments(op!.arguments), guard.name, fallback)
        : mountedScopes(mountedResource(reg.mounts, guard.name), fallback);
    }
    for (const t of reg.templates) {
      const vars = t.matcher.match(guard.name);
      if (vars) return templateScopes(t.def.scopes, vars, t.def.uriTemplate) ?? fallback;
    }
    return reg.ext?.resource?.(guard.name) ? fallback : mountedScopes(mountedResource(reg.mounts, guard.name), fallback);
  }

  // A caller nobody authenticated (auth undefined) may use only what declares no scope, unless the
  // app opens its scoped operations to everyone (allowUnauthenticated): secure by default.
  const allowed = (op: NamedOperation | undefined, auth: Auth | undefined) => {
    const scopes = needed(op);
    if (!scopes) return true;
    return auth ? scopes.every((s) => holds(auth.scopes, s)) : !!options.allowUnauthenticated || scopes.length === 0;
  };
  const check = (op: NamedOperation | undefined, auth: Auth | undefined) => {
    if (allowed(op, auth)) return;
    const scopes = needed(op)!;
    // An event type is refused as the Events extension words it (Forbidden), authenticated or not.
    if (op!.guard!.of === "event") throw reg.ext!.guard!.refusal(op!.guard!.name, scopes);
    throw auth ? new InsufficientScope(scopes) : unauthenticated(op!, scopes);
  };
  // What else may ask whether a caller may use an operation (a listen filter's resource URIs).
  reg.allows = (method, params, auth) => allowed(operationOf(method, params), auth);
  // What the edge names in one challenge to a token short of the baseline too (http/edge.ts).
  reg.scopesNeeded = (method, params) => needed(operationOf(method, params));
  // Its steps of the middleware chain: the scope check (again inside a 2025 session, where an answer to
  // a tool's question re-runs it under the answering token), the hidden lists, the app's policy.
  const scopeCheck: Policy = (op, next) => {
    check(operationOf(op.method, op.params), op.auth);
    return next();
  };
  reg.steps = [scopeCheck];
  if (options.hideUnauthorized) reg.steps.push(hidingLists(reg.allows));
  if (options.policy) reg.steps.push(options.policy);
  return (method, params, auth) => check(operationOf(method, params), auth);
}

/** What a scoped operation answers when the Worker authenticates nobody: the setting to turn on. */
function unauthenticated(op: NamedOperation, scopes: readonly string[]): McpError {
  const what = op.target !== undefined ? `${op.method} ${JSON.stringify(op.target.slice(0, 200))}` : op.method;
  return new McpError(
    ErrorCode.InvalidRequest,
    `${what} needs the scopes ${scopes.join(" ")}, and this server authenticates nobody: set AUTH_MODE (token or jwt), or pass verifyToken or principal to createMcpWorker (docs/security.md); or serve scoped operations to everyone with defineAuthorization({ allowUnauthenticated: true }) (docs/authorization.md)`,
  );
}

/** What each list holds, and the operation an entry of it names. */
const LISTS: Record<string, [key: string, method: string, param: string, field: string]> = {
  "tools/list": ["tools", "tools/call", "name", "name"],
  "prompts/list": ["prompts", "prompts/get", "name", "name"],
  "resources/list": ["resources", "resources/read", "uri", "uri"],
};

/** Lists without the entries the caller may not use (`hideUnauthorized`); an unauthenticated caller's too. */
function hidingLists(allowed: NonNullable<Registry["allows"]>): Policy {
  return async ({ method, auth }, next) => {
    const result = await next();
    const list = Object.hasOwn(LISTS, method) ? LISTS[method]! : undefined;
    if (!list || !Array.isArray(result[list[0]])) return result;
    const [key, op, param, field] = list;
    return { ...result, [key]: (result[key] as Record<string, unknown>[]).filter((entry) => allowed(op, { [param]: entry[field] }, auth)) };
  };
}

/** A template's scopes for one URI; a function that throws or returns no scope list refuses the read (-32603). */
function templateScopes(
  scopes: Scopes<Record<string, string>> | undefined,
  vars: Record<string, string>,
  uriTemplate: string,
): readonly string[] | undefined {
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

/** A completion's `context.arguments` as strings: the variables its client already chose. */
function contextArguments(params: Record<string, unknown>): Record<string, string> {
  const chosen = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  return Object.fromEntries(Object.entries(chosen).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/**
 * A template's scopes for completing its variables: a list as it is; a function is given the
 * variables the completion's `context.arguments` already chose, and a function that cannot tell from
 * them (it throws, or returns no scope list) refuses the completion rather than guess.
 */
function completionScopes(
  scopes: Scopes<Record<string, string>> | undefined,
  vars: Record<string, string>,
  uriTemplate: string,
  fallback: readonly string[],
): readonly string[] {
  if (scopes === undefined) return fallback;
  if (typeof scopes !== "function") return scopes;
  let out: unknown;
  try {
    out = scopes(vars);
  } catch {
    // A function of variables the client has not chosen yet: expected, not a server fault.
  }
  if (Array.isArray(out) && out.length <= 64 && out.every(isScopeToken)) return out;
  throw invalidParams(`The scopes of ${uriTemplate} depend on its variables: name them in params.context.arguments to complete it`);
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
