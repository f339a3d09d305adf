/**
 * The compiled application: every list, schema and lookup table is built
 * once per isolate, on its first request, so serving a list is a slice of a constant.
 */
import * as v from "valibot";
import type {
  AppDefinition,
  AuthorizeOperation,
  ExtensionGuard,
  ExtensionMethod,
  Policy,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from "./app";
import type { Auth } from "./auth";
import type { HandlerContext } from "./context";
import { checkRawObjectSchema, mayDeclareHeaders, mcpHeaderParams, objectJsonSchema, type JsonSchemaObject } from "./json-schema";
import { EVENTS_CAPABILITY, EVENTS_EXTENSION } from "./event-names";
import { chainOf, type Chain } from "./middleware";
import { TASKS_EXTENSION, taskOptionsOf, type TaskOptions } from "./tasks";
import type { Guard } from "./operations";
import type { TelemetryHooks } from "./telemetry";
import type { Implementation, ServerCapabilities } from "./types";
import type { UriMatcher } from "./uri-template";
import type { UserState } from "./user-state";
import type { Mount } from "./mounts";
import type { ResultBudget } from "./result-budget";

export interface CompiledTool {
  def: ToolDefinition<any, any, any>;
  /** The Tool object served by tools/list. */
  wire: Record<string, unknown>;
  /** Arguments that must be mirrored in Mcp-Param-* headers (2026-07-28). */
  headerParams: Map<string, { header: string; type: string }>;
  /** How the tool runs as a task; undefined for a tool that never does. */
  task?: TaskOptions;
}

interface CompiledTemplate {
  def: ResourceTemplateDefinition<any>;
  wire: Record<string, unknown>;
  matcher: UriMatcher;
}

export interface Registry {
  info: Implementation;
  instructions?: string;
  /** 2026-07-28 capabilities (tasks as an extension). */
  capabilities: ServerCapabilities;
  /** Whether any tool runs as a task. */
  hasTasks: boolean;
  /** Results that fit the host (`resultBudget()`, docs/results.md); absent for an app without it. */
  results?: ResultBudget;
  pageSize: number;
  cacheTtlMs: number;
  hooks?: TelemetryHooks;
  tools: Map<string, CompiledTool>;
  toolList: Record<string, unknown>[];
  /** The same tools as 2025-11-25 lists them: with `execution.taskSupport`. */
  legacyToolList: Record<string, unknown>[];
  /** What the app's opt-in extensions add (src/engine/mcp/ext/host.ts); absent for an app without any. */
  ext?: ExtensionHooks;
  resources: Map<string, ResourceDefinition<any>>;
  resourceList: Record<string, unknown>[];
  templates: CompiledTemplate[];
  templateList: Record<string, unknown>[];
  prompts: Map<string, PromptDefinition<any>>;
  promptList: Record<string, unknown>[];
  /** The methods the app's definitions brought (prompts/get, resources/read, completion/complete…), by name. */
  methods: Record<string, MethodEntry | undefined>;
  /** The check of declared scopes (authorization.ts); absent for an app without `authorization`. */
  authorize?: AuthorizeOperation;
  /** Whether a caller may use the operation a request names (authorization.ts); absent: every caller may. */
  allows?: (method: string, params: Record<string, unknown>, auth: Auth | undefined) => boolean;
  /** The scopes the operation a request names declares (defineAuthorization brings it); undefined: it needs none. */
  scopesNeeded?: (method: string, params: Record<string, unknown>) => readonly string[] | undefined;
  /** Picks the token claims handlers may see in ctx.auth (`defineAuthorization({ claims })`). */
  claimsOf?: (claims: Readonly<Record<string, unknown>> | undefined) => Record<string, unknown>;
  /** The steps `defineAuthorization` brings to the middleware chain (scope check, hidden lists, policy). */
  steps?: Policy[];
  /** The middleware chain around every operation (middleware.ts); absent for an app without steps. */
  chain?: Chain;
  /** The app's per-user state (ctx.user); absent for an app without `userState`. */
  userState?: UserState;
  /** The servers mounted here (their tools under a prefix); absent for an app without mounts. */
  mounts?: readonly Mount[];
  /** Every scope the definitions declare as a list (the OAuth entry's grants). */
  scopesSupported?: readonly string[];
  /** What every operation needs (`defineAuthorization({ scopes })`): with AUTH_SCOPES, what a client asks for first. */
  baselineScopes?: readonly string[];
  /** What the Worker logs once when it authenticates nobody and the app's scoped operations are refused. */
  unauthenticatedWarning?: string;
  /**
   * The app's surface (surfaces/surface.ts): its tools are listed in place of the app's, which stay
   * callable; `caller` makes a request's `ctx.callTool` from its execute options (`unknown` here, as
   * execute.ts builds on this file). Absent for an app without one.
   */
  surface?: { kind: string; names: ReadonlySet<string>; caller(options: unknown): HandlerContext["callTool"] };
}

/** The lookups the core makes for opt-in extensions; the extension host fills them in. */
export interface ExtensionHooks {
  /** Methods the extensions add (skills/list…), by name. */
  methods: Map<string, ExtensionMethod>;
  /** Resources read by URI but not listed (a skill's supporting files). */
  resource?: (uri: string) => ResourceDefinition<any> | undefined;
  /** The tools this client gets in place of `all` (a revision's list) when an extension changes them (MCP Apps); undefined for `all`. */
  tools?: (ctx: HandlerContext<any>, all: Record<string, unknown>[]) => Record<string, unknown>[] | undefined;
  /** Whether this client may not call the tool named, which its list leaves out (MCP Apps: only a view calls it). */
  hidden?: (ctx: HandlerContext<any>, name: string) => boolean;
  /** Cacheable methods whose 2026 result depends on what the client declared: never reused. */
  perClient: Set<string>;
  /** The operations an extension's methods name (event types), for the one authorization (authorization.ts). */
  guard?: ExtensionGuard;
}

type Method = (reg: Registry, params: Record<string, unknown>, ctx: HandlerContext<any>) => unknown;

export interface MethodEntry {
  run: Method;
  /** The server capability the method sits behind; without it the method does not exist (-32601). */
  needs?: keyof ServerCapabilities;
}

export type MethodTable = Readonly<Record<string, MethodEntry>>;

/*
 * Methods come with the definitions that need them: `definePrompt`, `defineResource` and
 * `defineResourceTemplate` (define.ts) put the tables of the methods serving their kind on the
 * definition, and the registry gathers them, so an app that declares no prompt carries no
 * prompts/get in its bundle (nor resources/read without a resource, nor completion/complete
 * without either). A method is still answered only behind its capability, so an app without
 * prompts answers prompts/list with -32601 as before, whether or not the code is there.
 * The key is a symbol so that no wire listing (wireOf) copies it.
 */
const SERVED_BY = Symbol();

/**
 * What a define… helper puts on a definition: the method tables that serve its kind and, for a
 * template, the compiler of its URI template (an app without templates carries none).
 */
interface Carried {
  tables: MethodTable[];
  compileTemplate?: (uriTemplate: string) => UriMatcher;
}
type Served = { [SERVED_BY]?: Carried };

/** Whether a define… helper made `def` (the app check asks). */
export const isServed = (def: object) => (def as Served)[SERVED_BY] !== undefined;

/** `def` with what serves it; the same object, so identity checks still hold. */
export function servedBy<T extends object>(def: T, carried: Carried): T {
  (def as Served)[SERVED_BY] = carried;
  return def;
}

/**
 * What `def` brought. A plain object, which no define… helper made, brought nothing: it is refused
 * rather than left without the code to serve it (the app check names the helper for each).
 */
function carriedBy(def: { name: string }): Carried {
  const carried = (def as Served)[SERVED_BY];
  if (!carried) throw new Error(`"${def.name}" is a plain object: use defineResource, defineResourceTemplate or definePrompt`);
  return carried;
}

/** A template's compiler, which only defineResourceTemplate brings. */
function compilerOf(def: { name: string }): NonNullable<Carried["compileTemplate"]> {
  const compile = carriedBy(def).compileTemplate;
  if (!compile) throw new Error(`"${def.name}" is a resource template: use defineResourceTemplate`);
  return compile;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Drops undefined fields and the handler functions from a definition. */
export function wireOf(def: object, omit: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(def)) if (val !== undefined && typeof val !== "function" && !omit.includes(k)) out[k] = val;
  return out;
}

/**
 * A tool's served form. Its JSON Schemas are made when first read (a listing serializes them), not
 * here: V8 compiles a function on its first call, and the converter is the largest part of the code
 * a fresh isolate's first `tools/call` would otherwise compile (about a seventh). A call reads the
 * argument schema only when an argument may be mirrored in a header (`mayDeclareHeaders`).
 * `npm run check:app` and `npm test` read every schema, so one the registry refuses is still named
 * before deploy.
 */
export function compileTool(def: ToolDefinition<any, any, any>): CompiledTool {
  if (!TOOL_NAME.test(def.name)) throw new Error(`Tool name "${def.name}" must be 1-128 characters of A-Z a-z 0-9 _ . -`);
  let input: JsonSchemaObject | undefined;
  let output: JsonSchemaObject | undefined;
  let headerParams: CompiledTool["headerParams"] | undefined;
  const wire = {
    ...wireOf(def, ["input", "output", "inputSchema", "outputSchema", "task", "view", "scopes", "maxResultChars"]),
    get inputSchema() {
      return (input ??= def.inputSchema
        ? checkRawObjectSchema(def.inputSchema, `tool ${def.name}`)
        : def.input
          ? objectJsonSchema(def.input, `tool ${def.name} input`)
          : // Closed: a tool without arguments takes none, and clients' strict modes need it said.
            { type: "object", properties: {}, additionalProperties: false });
    },
    // Undefined without an output: JSON leaves the key out.
    get outputSchema() {
      return (output ??= def.outputSchema
        ? checkRawObjectSchema(def.outputSchema, `tool ${def.name}`)
        : def.output && objectJsonSchema(def.output as v.GenericSchema, `tool ${def.name} output`));
    },
  };
  return {
    def,
    wire,
    get headerParams() {
      return (headerParams ??= def.inputSchema || mayDeclareHeaders(def.input) ? mcpHeaderParams(wire.inputSchema) : new Map());
    },
    task: taskOptionsOf(def),
  };
}

/** The tool a tools/call names, if the app has it (a name that is no string finds none: the keys are strings). */
export const toolNamed = (reg: Registry, params: Record<string, unknown>) => reg.tools.get(params.name as string);

/** 2025-11-25 capabilities: tasks are core there, and `tasks/list` is offered only to an authenticated caller. */
export function legacyCapabilities(reg: Registry, principal: string): ServerCapabilities {
  // Tasks are core in 2025-11-25, not an extension; the other extensions are declared the same way on both.
  // Events are defined for 2026-07-28 on (docs/events.md): not offered to a session.
  const { extensions, [EVENTS_CAPABILITY]: _events, ...rest } = reg.capabilities;
  const { [TASKS_EXTENSION]: _modernOnly, [EVENTS_EXTENSION]: _eventsToo, ...others } = extensions ?? {};
  const caps: ServerCapabilities = Object.keys(others).length > 0 ? { ...rest, extensions: others } : rest;
  if (!reg.hasTasks) return caps;
  return { ...caps, tasks: { ...(principal ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } } };
}

/**
 * The name the app registered for what an operation names (its guard: operations.ts): the tool or
 * prompt, the resource's URI, or the template it matches or completes. Undefined for anything else,
 * a name the client made up.
 */
export function registeredTarget(reg: Registry, guard: Guard | undefined): string | undefined {
  if (!guard) return undefined;
  const { of, name } = guard;
  if (of === "tool") return reg.tools.has(name) || reg.mounts?.some((m) => m.lists("tools", name)) ? name : undefined;
  if (of === "prompt") return reg.prompts.has(name) || reg.mounts?.some((m) => m.lists("prompts", name)) ? name : undefined;
  if (reg.resources.has(name) || (of === "resource" && reg.mounts?.some((m) => m.lists("resources", name)))) return name;
  return reg.templates.find((t) => (of === "template" ? t.def.uriTemplate === name : t.matcher.match(name) !== null))?.def.uriTemplate;
}

const compiled = new WeakMap<AppDefinition<any>, Registry>();

/** Compiles an app once per isolate; the Worker and the session objects share the result. */
export function compileApp(app: AppDefinition<any>): Registry {
  let reg = compiled.get(app);
  if (!reg) compiled.set(app, (reg = compileOnce(app)));
  return reg;
}

function compileOnce(app: AppDefinition<any>): Registry {
  const tools = new Map<string, CompiledTool>();
  for (const def of app.tools ?? []) {
    if (tools.has(def.name)) throw new Error(`Tool "${def.name}" is defined twice`);
    tools.set(def.name, compileTool(def));
  }
  const resources = new Map<string, ResourceDefinition<any>>();
  for (const r of app.resources ?? []) {
    if (resources.has(r.uri)) throw new Error(`Resource "${r.uri}" is defined twice`);
    resources.set(r.uri, r);
  }
  const prompts = new Map<string, PromptDefinition<any>>();
  for (const p of app.prompts ?? []) {
    if (prompts.has(p.name)) throw new Error(`Prompt "${p.name}" is defined twice`);
    prompts.set(p.name, p);
  }
  // The methods each definition brought (define.ts), then the templates, compiled by what they brought.
  // No prototype: a method name a client made up ("constructor", "__proto__") finds nothing here.
  const methods: Record<string, MethodEntry | undefined> = Object.create(null);
  const defs = [...resources.values(), ...(app.resourceTemplates ?? []), ...prompts.values()];
  for (const def of defs) for (const table of carriedBy(def).tables) Object.assign(methods, table);
  // A mount brings what serves its prompts (src/engine/mount/), after the app's own: its prompts/get routes by name.
  for (const mount of app.mounts ?? []) for (const table of carriedBy(mount as never).tables) Object.assign(methods, table);
  const templates = (app.resourceTemplates ?? []).map((def) => ({
    def,
    wire: wireOf(def, ["complete", "scopes"]),
    matcher: compilerOf(def)(def.uriTemplate),
  }));

  const hasResources = resources.size > 0 || templates.length > 0;
  const hasCompletions = [...prompts.values(), ...templates.map((t) => t.def)].some((def) => def.complete);
  const capabilities: ServerCapabilities = {};
  if (tools.size > 0 || app.mounts?.length) capabilities.tools = { listChanged: true };
  if (hasResources || app.mounts?.length) capabilities.resources = resourcesCapability(app);
  if (prompts.size > 0 || app.mounts?.length) capabilities.prompts = { listChanged: true };
  if (hasCompletions || app.mounts?.length) capabilities.completions = {};
  if (app.logging ?? true) capabilities.logging = {};
  const hasTasks = [...tools.values()].some((t) => t.task);
  if (hasTasks) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  // Registration order is the deterministic order 2026-07-28 asks for.
  const reg: Registry = {
    info: app.info,
    instructions: app.instructions,
    capabilities,
    hasTasks,
    pageSize: app.pageSize ?? 50,
    cacheTtlMs: app.cacheTtlMs ?? 60_000,
    hooks: app.telemetry,
    tools,
    toolList: [...tools.values()].map((t) => t.wire),
    legacyToolList: legacyToolListOf(tools),
    resources,
    resourceList: [...resources.values()].map((r) => wireOf(r, ["scopes"])),
    templates,
    templateList: templates.map((t) => t.wire),
    prompts,
    promptList: [...prompts.values()].map((p) => wireOf(p, ["complete", "scopes"])),
    methods,
    userState: app.userState,
    mounts: app.mounts,
  };
  // Views come with their tools. Every extension carries the same installer (src/engine/mcp/ext/host.ts), so
  // the extensions' code is in the bundle only when the app imports one. Installed before the
  // authorization is compiled: an extension's operations (event types) declare scopes too.
  const extensions = [...(app.extensions ?? []), ...[...tools.values()].flatMap((t) => (t.def.view ? [t.def.view.extension] : []))];
  extensions[0]?.install(reg, app, extensions);
  // Scopes are checked by the code `defineAuthorization` brings; declared without it, they would guard nothing.
  if (app.authorization) {
    reg.authorize = app.authorization.compile(reg);
  } else if ([...defs, ...(app.tools ?? []), ...(app.mounts ?? [])].some((d) => d.scopes) || reg.ext?.guard?.declared().some((s) => s))
    throw new Error("scopes need defineAuthorization()");
  // The middleware chain (docs/middleware.md): authorization's steps, then the app's own, plain
  // `(op, next) => …` functions. An app without steps has no chain, and runs none of it per request.
  const steps = [...(reg.steps ?? []), ...(app.use ?? [])];
  if (steps.length > 0) reg.chain = chainOf(steps);
  // Results over a budget are cut and linked by the code `resultBudget()` brings, whose resources/read
  // wraps whatever serves the app's and its extensions' resources; a tool's own budget needs it.
  if (app.results) (reg.results = app.results).install(reg);
  else if (app.tools?.some((t) => t.maxResultChars !== undefined))
    throw new Error("maxResultChars needs defineApp({ results: resultBudget() })");
  // Last: a surface lists its own tools in place of every list made above (docs/tools-at-scale.md).
  app.surface?.install(reg);
  return reg;
}

/** The tools as 2025-11-25 lists them: with `execution.taskSupport`. */
export const legacyToolListOf = (tools: Map<string, CompiledTool>) =>
  [...tools.values()].map((t) => (t.task ? { ...t.wire, execution: { taskSupport: t.task.support } } : t.wire));

export const resourcesCapability = (app: AppDefinition<any>) => ({ subscribe: app.resourceSubscriptions ?? true, listChanged: true });
