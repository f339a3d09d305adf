/**
 * The application API: what a forker writes. `defineApp` takes plain
 * definitions; the core compiles them once (see registry.ts).
 */
import type * as v from "valibot";
import type { Auth, Caller } from "./auth";
import type { HandlerContext } from "./context";
import type { McpError } from "./errors";
import type { OperationKind } from "./operations";
import type { DurableTask } from "./tasks";
import type { TelemetryHooks } from "./telemetry";
import type { UserState } from "./user-state";
import type { ResultBudget } from "./result-budget";
import type { Mount } from "./mounts";
import type { Discovery } from "./discovery";
import type {
  Annotations,
  CallToolResult,
  Content,
  GetPromptResult,
  Icon,
  Implementation,
  PromptMessage,
  Resource,
  ResourceContents,
} from "./types";

/**
 * The Worker's bindings and vars as `wrangler types` declares them (npm run types), so `ctx.env` is
 * typed in every handler without naming it; `defineApp<MyEnv>` names another.
 */
export type DefaultEnv = Cloudflare.Env;

export type ObjectSchema =
  | v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>
  | v.LooseObjectSchema<v.ObjectEntries, v.ErrorMessage<v.LooseObjectIssue> | undefined>
  | v.StrictObjectSchema<v.ObjectEntries, v.ErrorMessage<v.StrictObjectIssue> | undefined>;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool handler may return: text, blocks, or a full result. */
export type ToolReturn = string | Content | Content[] | CallToolResult;

interface ToolBase<Name extends string = string> {
  name: Name;
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** The scopes a caller's token must hold to call it (docs/authorization.md); needs `defineAuthorization`. */
  scopes?: readonly string[];
  /**
   * The characters of content one result may carry before it is cut and linked (docs/results.md):
   * this tool's, in place of the app's `resultBudget({ maxChars })`; false sends every result whole.
   */
  maxResultChars?: number | false;
}

export interface ToolDefinition<
  I extends ObjectSchema = ObjectSchema,
  O extends v.GenericSchema | undefined = undefined,
  Env = DefaultEnv,
  Name extends string = string,
> extends ToolBase<Name> {
  /** Arguments, validated before the handler runs. Omit for a tool without arguments. */
  input?: I;
  /**
   * The arguments' JSON Schema as clients see it, for what valibot cannot express ($defs,
   * if/then/else…) or cannot describe (v.custom, v.date). Beside `input`, `input` still validates;
   * alone, arguments are not validated.
   */
  inputSchema?: Record<string, unknown>;
  /** Structured result; the handler returns a value of this type. */
  output?: O;
  /** The structured result's JSON Schema as clients see it, when `output`'s cannot be generated. */
  outputSchema?: Record<string, unknown>;
  /**
   * Run as a durable task (docs/tasks.md): `durableTask("optional")` when the client can take one,
   * `durableTask("required")` always; the default "forbidden" never. The handler is the same either way.
   */
  task?: "forbidden" | DurableTask;
  /**
   * An interactive view hosts render for this tool's results (docs/views-and-skills.md), from `defineView`.
   * Hosts without the extension get the tool without it and read the result's text.
   */
  view?: View;
  handler: (
    args: I extends ObjectSchema ? v.InferOutput<I> : Record<string, unknown>,
    ctx: HandlerContext<Env>,
  ) => O extends v.GenericSchema ? v.InferInput<O> | Promise<v.InferInput<O>> : ToolReturn | Promise<ToolReturn>;
}

export interface ResourceDefinition<Env = DefaultEnv> extends Resource {
  /** The scopes a caller's token must hold to read it (docs/authorization.md). */
  scopes?: readonly string[];
  /** A string is text with this resource's mimeType; return contents for blobs or several parts. */
  read: (ctx: HandlerContext<Env>) => ResourceReturn | Promise<ResourceReturn>;
}

export type ResourceReturn = string | ResourceContents | ResourceContents[];

export type Completer<Env = DefaultEnv> = (
  value: string,
  context: { arguments: Record<string, string> },
  ctx: HandlerContext<Env>,
) => string[] | Promise<string[]>;

export interface ResourceTemplateDefinition<Env = DefaultEnv> {
  /** RFC 6570 level 1, e.g. `notes://{id}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  read: (vars: Record<string, string>, uri: string, ctx: HandlerContext<Env>) => ResourceReturn | Promise<ResourceReturn>;
  /** The scopes a read needs: a list, or a function of the URI's variables (`({ id }) => [\`notes:${id}\`]`). */
  scopes?: Scopes<Record<string, string>>;
  /** Completions for template variables, by variable name. */
  complete?: Record<string, Completer<Env>>;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptDefinition<Env = DefaultEnv> {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  /** The scopes a caller's token must hold to get it (docs/authorization.md). */
  scopes?: readonly string[];
  get: (
    args: Record<string, string>,
    ctx: HandlerContext<Env>,
  ) => PromptMessage[] | GetPromptResult | Promise<PromptMessage[] | GetPromptResult>;
  /** Completions for arguments, by argument name. */
  complete?: Record<string, Completer<Env>>;
}

export interface AppDefinition<Env = DefaultEnv> {
  info: Implementation;
  instructions?: string;
  tools?: readonly ToolDefinition<any, any, Env, string>[];
  resources?: ResourceDefinition<Env>[];
  resourceTemplates?: ResourceTemplateDefinition<Env>[];
  prompts?: PromptDefinition<Env>[];
  /** Advertise `logging` (2025 setLevel, 2026 per-request logLevel). Default true. */
  logging?: boolean;
  /** Advertise `resources.subscribe`. Default true when there are resources. */
  resourceSubscriptions?: boolean;
  /** Items per page of every list. Default 50. */
  pageSize?: number;
  /** Cache lifetime of list and read results in ms (2026 `ttlMs`). Default 60 000. */
  cacheTtlMs?: number;
  /**
   * Results that fit the host: `resultBudget()` (docs/results.md). A tool result over its budget
   * (50,000 characters unless set) is answered with the part that fits, marked as cut, and a
   * `resource_link` to the whole, which `resources/read` serves to the same caller for an hour.
   */
  results?: ResultBudget;
  /** Opt-in protocol extensions, e.g. `skills(manifest)` (docs/views-and-skills.md). Views come with their tools. */
  extensions?: Extension[];
  /** Your own telemetry: called around every request on both lanes (docs/observability.md). */
  telemetry?: TelemetryHooks;
  /** Checks of the scopes operations declare, and their implications: `defineAuthorization({...})` (docs/authorization.md). */
  authorization?: Authorization;
  /**
   * Middleware: steps run in order around every operation on both revisions, after the checks
   * `authorization` brings (docs/middleware.md). Each is a plain `(op, next) => …` that sees the
   * operation, its arguments and the caller, and may let it pass, refuse it, or observe its outcome.
   */
  use?: readonly Middleware[];
  /** Each authenticated caller's own durable storage, `ctx.user`: `userState({ migrations })` (docs/state.md). */
  userState?: UserState;
  /** Other MCP servers served as part of this one: `mountServer({ prefix, url })` (docs/mount.md). */
  mounts?: readonly Mount[];
  /**
   * Found and connected (docs/discovery.md): `discovery()` serves the Server Card, the AI Catalog and
   * a page for a browser that opens the MCP URL, from `info`; it names the registry name too.
   */
  discovery?: Discovery;
  /**
   * What tools/list shows a model in place of every tool: `toolSearch()` or `codeMode()`
   * (docs/tools-at-scale.md). The app's tools stay callable, each call governed as a direct one.
   */
  surface?: Surface;
}

/**
 * A surface (src/engine/mcp/surfaces/): a value that brings its own tools and the code behind them, so an
 * app without one carries none of it.
 */
export interface Surface {
  /** Its name in the app check's messages and the docs: "toolSearch", "codeMode". */
  readonly kind: string;
  /** Its own tools' names, which no tool of the app may take. */
  readonly names: readonly string[];
  /** What is wrong with its options, one line each; the app check names them, compiling refuses the first. */
  readonly problems: readonly string[];
  /** Adds its tools to the compiled app (registry.ts, `unknown` here as it builds on this file) and lists them alone. */
  install(registry: unknown): void;
}

/** An operation's scopes: a list, or (for a resource template) a function of the URI's variables. */
export type Scopes<Vars = never> = readonly string[] | ((vars: Vars) => readonly string[]);

export interface AuthorizationOptions {
  /** What an operation needs when its definition declares no `scopes` (default: nothing). */
  scopes?: readonly string[];
  /**
   * Scope hierarchies, broader → narrower: `{ "notes:admin": ["notes:write"], "notes:write": ["notes:read"] }`
   * lets a token with `notes:admin` do what needs `notes:read`. Applied wherever a scope is checked.
   */
  implies?: Readonly<Record<string, readonly string[]>>;
  /** The token claims handlers may read in `ctx.auth.claims` (e.g. ["email", "org_id"]); no others are kept. */
  claims?: readonly string[];
  /**
   * Leave out of tools/list, resources/list and prompts/list what the caller lacks the scopes for.
   * Off by default: a client that never sees a tool never asks the user for its scopes (step-up).
   * Such lists differ by caller; an authenticated caller's are `cacheScope: "private"` either way.
   */
  hideUnauthorized?: boolean;
  /**
   * Serve operations that declare scopes to callers nobody authenticated, unchecked, when the Worker
   * has no authentication configured (AUTH_MODE=none, no `verifyToken`, no `principal`). Off by
   * default: such an operation is refused with an error naming the setting to turn on, and
   * `npm run deploy` refuses the app (docs/authorization.md). Authenticated callers are checked either way.
   */
  allowUnauthenticated?: boolean;
  /**
   * Runs around every operation on both revisions, after its scopes were checked: let it pass
   * (`return next()`), refuse it (throw a ToolError for a tool result the model reads, an McpError for a
   * JSON-RPC error, InsufficientScope for a step-up challenge), or observe what `next()` returned.
   */
  policy?: Policy;
}

/** An operation as middleware (and the policy) sees it. */
export interface Operation {
  method: string;
  /** What the method is about (a tool call, a prompt, a resource read, a completion…); undefined for lists and the like. */
  kind?: OperationKind;
  /** The tool or prompt named, the resource URI read, or the task id; undefined for lists and the like. */
  name?: string;
  /** The tool's or prompt's arguments as sent (before validation); the params for other methods. */
  arguments: Record<string, unknown>;
  /** The request's params as sent. */
  params: Record<string, unknown>;
  /** Who is calling, authenticated or not (ctx.caller): its `rateLimitKey` keys per-caller budgets. */
  caller: Caller;
  /** A view of `caller` for an authenticated one (its principal, scopes, clientId, claims); undefined otherwise. */
  auth?: Auth;
  ctx: HandlerContext<any>;
}

/**
 * A step around every operation: `next()` runs the rest of the chain and the operation, and gives
 * its result. The policy of `defineAuthorization` is one.
 */
export type Policy = (op: Operation, next: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>>;

/** A step of `defineApp({ use })` (docs/middleware.md): a plain `(op, next) => …` function. */
export type Middleware = Policy;

/**
 * Checks a request's operation for a caller: throws InsufficientScope naming every scope it needs;
 * for a caller nobody authenticated (undefined), the refusal of a scoped operation (allowUnauthenticated).
 */
export type AuthorizeOperation = (method: string, params: Record<string, unknown>, auth: Auth | undefined) => void;

/**
 * What `defineAuthorization` (authorization.ts) gives `defineApp({ authorization })`: the options, and
 * the check it compiles for the app's registry (`unknown` here because registry.ts builds on this file).
 */
export interface Authorization extends AuthorizationOptions {
  compile(registry: unknown): AuthorizeOperation;
}

/*
 * Opt-in protocol extensions (Skills, MCP Apps) hand the core this shape: their capability entry,
 * the methods they add and the resources they serve, and the installer that serves them. Each
 * extension's code, the installer included, lives in src/engine/mcp/ext/, imported by the app that uses
 * it, so an app that uses none carries none of it.
 */
export interface ExtensionMethod {
  run: (params: Record<string, unknown>, ctx: HandlerContext<any>, core: ExtensionCore) => unknown;
  /** A 2026-07-28 result of this method carries `ttlMs` and `cacheScope`, like the base lists. */
  cacheable?: boolean;
  /**
   * A method that answers with a stream of its own (events/stream): the 2026-07-28 lane hands it the
   * request and the caller, as it does subscriptions/listen, instead of running `run`.
   */
  respond?: (request: { id: string | number; params?: Record<string, unknown> }, caller: StreamCaller) => Promise<Response>;
}

/** What the core lends an extension's method. */
interface ExtensionCore {
  /** Whether `auth` may use the operation `method` with `params` names (the one authorization: scopes, `implies`); absent: anyone may. */
  allows?(method: string, params: Record<string, unknown>, auth: Auth | undefined): boolean;
}

/**
 * The operations an extension's methods name (the Events extension: event types by name), as the one
 * authorization reads them (authorization.ts): what each needs, and how a refusal reads on the wire.
 */
export interface ExtensionGuard {
  /** The scopes the one named needs (undefined: it declares none); null when there is none by that name. */
  scopes(name: string): readonly string[] | undefined | null;
  /** Every one's declared scopes, read at start-up. */
  declared(): readonly (readonly string[] | undefined)[];
  /** The error a caller gets who may not use the one named. */
  refusal(name: string, scopes: readonly string[]): McpError;
}

/** What a streaming extension method knows of its caller. */
export interface StreamCaller {
  env: any;
  auth?: Auth;
  /** Whose budget of listen streams the stream spends: the principal's, or the client address's. */
  clientKey: string;
}

export interface Extension {
  /** The identifier under `capabilities.extensions`, e.g. `io.modelcontextprotocol/skills`. */
  id: string;
  /** The settings object declared under that identifier (`{}` for none). */
  settings: Record<string, unknown>;
  /** A top-level capability deployed clients read for the same settings (Events: ChatGPT's `capabilities.events`). */
  topLevelCapability?: string;
  /** JSON-RPC methods the extension adds, served on both revisions. */
  methods?: Record<string, ExtensionMethod>;
  /** Resources listed by resources/list and read by resources/read. */
  resources?: ResourceDefinition<any>[];
  /** Resources read by URI but not listed (a skill's supporting files). */
  resource?: (uri: string) => ResourceDefinition<any> | undefined;
  /** The operations its methods name, for the one authorization (events: each type's scopes). */
  guard?: ExtensionGuard;
  /** The tools (as listed) for a client that did not declare this extension. */
  toolsWithout?: (tools: Record<string, unknown>[]) => Record<string, unknown>[];
  /** Whether the settings a client declared make it a client of this extension (default: declaring it does). */
  clientOf?: (settings: Record<string, unknown>) => boolean;
  /**
   * Serves the app's extensions from its compiled registry: `defineExtension` sets the extension
   * host (src/engine/mcp/ext/host.ts) here, so only an app with an extension has that code. The registry is
   * `unknown` to this file because registry.ts builds on it; the host takes it as the Registry it is.
   */
  install(registry: unknown, app: AppDefinition<any>, extensions: Extension[]): void;
}

/** A tool's interactive view (MCP Apps): the `ui://` resource it names and the extension that serves it. */
export interface View {
  uri: string;
  resource: ResourceDefinition<any>;
  extension: Extension;
  /** The `_meta` of a tool that shows this view, from the tool's own. */
  toolMeta: (meta?: Record<string, unknown>) => Record<string, unknown>;
}

/** The arguments a tool is called with (before valibot applies defaults and transforms). */
export type ToolArgs<T> =
  T extends ToolDefinition<infer I, any, any, any> ? (I extends ObjectSchema ? v.InferInput<I> : Record<string, unknown>) : never;

/**
 * Identity helpers that give handlers (and the app's tests) their argument types. Those of
 * resources, templates and prompts are in define.ts: they bring the methods that serve them.
 */
export const defineTool = <
  const Name extends string,
  I extends ObjectSchema = ObjectSchema,
  O extends v.GenericSchema | undefined = undefined,
  Env = DefaultEnv,
>(
  tool: ToolDefinition<I, O, Env, Name>,
) => tool;
export const defineApp = <
  Env = DefaultEnv,
  const Tools extends readonly ToolDefinition<any, any, Env, string>[] = ToolDefinition<any, any, Env>[],
>(
  app: AppDefinition<Env> & { tools?: Tools },
): Omit<AppDefinition<Env>, "tools"> & { tools?: Tools } => app;
