/**
 * Builds the Worker for an app: the router, the per-app setup the /mcp edge's steps use (its
 * registry, token check and metadata; the steps themselves are http/edge.ts) and the error stage,
 * plus the Durable Object classes the app's sessions and notifications live in.
 */
import { writeLog } from "./mcp/telemetry";
import { DurableObject } from "./objects/durable-object";
import { readConfig, type Config } from "./config";
import type { Env } from "./env";
import type { AppDefinition } from "./mcp/app";
import { ErrorCode, messageOf } from "./mcp/errors";
import { compileApp, type Registry } from "./mcp/registry";
import {
  PRM_PATH,
  authorizationServers,
  protectedResourceMetadata,
  verifierFor,
  type JwtAuth,
  type Principal,
  type TokenVerifier,
} from "./http/auth";
import { serveMcp, type EdgeSetup, type WorkerContext } from "./http/edge";
import { notFound, reject } from "./http/responses";
import { McpHub } from "./objects/hub";
import { sessionObjectFor } from "./objects/session";
import { taskRuntimeOf } from "./mcp/tasks";
import type { TaskRuntime } from "./tasks";
import type { EventsExtension } from "./events";

export type { WorkerContext };

export const MCP_PATH = "/mcp";

export interface WorkerOptions {
  /** Where the MCP endpoint is served (default "/mcp"). */
  path?: string;
  /** Your own token check, instead of the AUTH_MODE built-ins (static token, JWT). */
  verifyToken?: TokenVerifier;
  /**
   * AUTH_MODE=jwt's check: `jwtAuth` from the public door. Opt-in, so a Worker without it carries
   * no `jose`; with AUTH_MODE=jwt and no `jwt`, every request fails (500) and the log says why.
   */
  jwt?: JwtAuth;
  /**
   * Who is calling, when something in front of this Worker has already authenticated the request
   * (src/engine/oauth/: the OAuth provider's `ctx.props`). Used instead of any token check; sessions,
   * requestState and subscriptions are bound to it. Returning undefined answers 401. Return a
   * Principal (`{ id, scopes, clientId, claims }`) for the operations' scopes to be checked against
   * what the grant holds; a bare id holds no scopes.
   */
  principal?: (request: Request, env: Env, ctx: WorkerContext) => string | Principal | undefined;
  /**
   * With `verifyToken`: the authorization servers its tokens come from. Named, they make the RFC 9728
   * metadata served and every 401/403 challenge point at it, as AUTH_MODE=jwt does with AUTH_ISSUER.
   */
  authorizationServers?: string[];
}

/** What `createMcpWorker` gives: the handlers, and the Durable Object classes to export by these names. */
export interface McpWorker {
  /** A whole Worker: the MCP endpoint, its metadata, and 404 for anything else. */
  fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response>;
  /**
   * For mounting beside other routes: answers the MCP endpoint (and its metadata) and returns
   * undefined for any other path, so a router can go on to its next route.
   */
  handle(request: Request, env: Env, ctx: WorkerContext): Promise<Response | undefined>;
  McpHub: typeof McpHub;
  McpSession: ReturnType<typeof sessionObjectFor>;
  /** Tasks (bound as MCP_TASK); an app without task tools may leave it unbound. */
  McpTask: ReturnType<TaskRuntime["taskObjectFor"]> | typeof NoTasks;
  /** Events (bound as MCP_EVENTS, docs/events.md); an app without `events(...)` may leave it unbound. */
  McpEvents: EventsExtension["McpEvents"] | typeof NoTasks;
  /** Per-user state (bound as MCP_USER, docs/state.md); an app without `userState` may leave it unbound. */
  McpUser: typeof DurableObject<Env>;
}

/**
 * MCP_TASK's class in a Worker whose tools declare no task, MCP_EVENTS's in one without events and
 * MCP_USER's in one without `userState`: nothing ever calls it, but a wrangler.toml that binds it still deploys.
 */
class NoTasks extends DurableObject<Env> {}

export function createMcpWorker(app: AppDefinition<any>, options: WorkerOptions = {}): McpWorker {
  const path = options.path ?? MCP_PATH;
  // The task runtime comes with the tools that declare a task (`durableTask`); a task declared
  // without it fails here, at start-up, with what to write instead. Start-up calls as few functions
  // as it can (V8 compiles each on its first call, and that is most of an import's CPU): an app
  // without a task tool never calls taskRuntimeOf, and the task class is picked inline.
  let tasks: TaskRuntime | undefined;
  for (const tool of app.tools ?? [])
    if (tool.task !== undefined) {
      tasks = taskRuntimeOf(app.tools) as TaskRuntime | undefined;
      break;
    }
  const taskBase = tasks ? tasks.taskObjectFor(app) : NoTasks;
  // With `resultBudget()` (docs/results.md, src/engine/results.ts) the same class keeps cut results whole too.
  const results = app.results as { objectFor?: <T>(base: T) => T } | undefined;
  // Start-up only defines the Durable Object classes; the request handlers are built (and V8
  // compiles them) on the first request.
  let edge: McpWorker["handle"] | undefined;
  const handle: McpWorker["handle"] = (request, env, ctx) => (edge ??= createEdge(app, options, path, tasks))(request, env, ctx);
  return {
    McpHub,
    McpSession: sessionObjectFor(app, tasks?.session),
    McpTask: results?.objectFor ? results.objectFor(taskBase) : taskBase,
    // The events extension brings its object class (src/engine/events/); an app without it has none.
    McpEvents: (app.extensions?.find((e) => "McpEvents" in e) as EventsExtension | undefined)?.McpEvents ?? NoTasks,
    McpUser: (app.userState?.objectClass as typeof NoTasks | undefined) ?? NoTasks,
    handle,
    async fetch(request, env, ctx) {
      // Any other path (a typo, a browser's /favicon.ico) names no JSON-RPC exchange: a plain 404.
      return (await handle(request, env, ctx)) ?? notFound(path);
    },
  };
}

/**
 * The /mcp edge for an app, `handle` of `createMcpWorker`: the per-app setup its steps use (registry,
 * token check, metadata), the three paths, and the error stage. The steps themselves: http/edge.ts.
 */
function createEdge(app: AppDefinition<any>, options: WorkerOptions, path: string, tasks: TaskRuntime | undefined): McpWorker["handle"] {
  // Compiled once per isolate, on the first request rather than at start-up (JSON Schema generation
  // would otherwise be most of the start-up); from then on schemas, lists and lookups are constants.
  // `npm test`, `npm run dev` and `npm run deploy` name definition mistakes before they get here.
  let definitionErrorLogged = false;
  const registry = () => {
    try {
      return compileApp(app);
    } catch (err) {
      if (!definitionErrorLogged) {
        definitionErrorLogged = true;
        writeLog("error", "app_definition_invalid", {
          message: `The app's definitions are invalid, so every request fails: ${messageOf(err)}. \`npm run check:app\` lists every mistake.`,
        });
      }
      throw err;
    }
  };
  // `optional`: only `npm run dev`'s tokens are checked (AUTH_MODE=none), so a request without one stays anonymous.
  const verifiers = new WeakMap<Config, { verify?: TokenVerifier; optional: boolean }>();
  const verifierOf = (config: Config) => {
    let v = verifiers.get(config);
    if (!v) {
      const verify = options.verifyToken ?? verifierFor(config.auth, options.jwt);
      const dev =
        config.devTokenKey && options.jwt?.dev?.(config.devTokenKey, verify, config.auth.mode === "none" ? [] : config.auth.scopes);
      verifiers.set(config, (v = dev ? { verify: dev, optional: !verify } : { verify, optional: false }));
    }
    return v;
  };

  /**
   * Least scope first: what a 401 challenge and the RFC 9728 metadata ask a client for, AUTH_SCOPES
   * and the app's default scopes; an operation's own scopes are asked for by its 403 step-up.
   */
  const baselineOf = (config: Config, reg: Registry): string[] => [
    ...new Set([...(config.auth.mode === "none" ? [] : config.auth.scopes), ...(reg.baselineScopes ?? [])]),
  ];

  /** Whether this server has RFC 9728 metadata to serve: authorization on, with an authorization server to name. */
  const serversOf = (config: Config) => authorizationServers(config.auth, options.authorizationServers);
  const hasMetadata = (config: Config) => {
    const { verify, optional } = verifierOf(config);
    return verify !== undefined && !optional && serversOf(config).length > 0;
  };

  /** RFC 9728 metadata, at the path-suffixed and the root form; 404 while there is none (see hasMetadata). */
  function handleMetadata(request: Request, env: Env): Response {
    const config = readConfig(env);
    if (!hasMetadata(config))
      return reject(
        404,
        ErrorCode.MethodNotFound,
        "This server has no OAuth protected-resource metadata (authorization is off, or uses a static token)",
      );
    return protectedResourceMetadata(request, path, serversOf(config), baselineOf(config, registry()));
  }

  // What the /mcp steps (http/edge.ts) know of this app and its options.
  const edge: EdgeSetup = {
    path,
    tasks,
    principal: options.principal,
    verifierName: (config) => (options.verifyToken ? "verifyToken" : `AUTH_MODE=${config.auth.mode}`),
    registry,
    verifierOf,
    hasMetadata,
    baselineOf,
    said: { secret: false, scoped: false },
  };

  // Three fixed paths: a comparison each, not a router, which measured about 20 µs of CPU per
  // request here. A fork that wants more routes mounts `handle` in its own router.
  const mcpPath = normalPath(path);
  const metadataPaths = [normalPath(PRM_PATH), normalPath(`${PRM_PATH}${path}`)];

  async function handle(request: Request, env: Env, ctx: WorkerContext): Promise<Response | undefined> {
    try {
      // An app with `discovery()` answers its public documents (and a browser's page) first; nothing else changes.
      const found = app.discovery && (await app.discovery.serve(request, env, { info: app.info, path: mcpPath, auth: options }));
      if (found) return found;
      const pathname = pathOf(request.url);
      if (matches(pathname, mcpPath)) return await serveMcp(edge, request, env, ctx);
      if (request.method === "GET" && metadataPaths.some((p) => matches(pathname, p))) return handleMetadata(request, env);
      return undefined;
    } catch (err) {
      // Bad input never gets here (every path above answers it); this is a bug or a misconfiguration.
      console.error("Unhandled error at the MCP edge:", err);
      // Under `npm run dev` (MCP_DEV) the answer says what failed, a definition mistake most often.
      return reject(500, ErrorCode.InternalError, env.MCP_DEV === "on" ? `Internal error: ${messageOf(err)}` : "Internal error");
    }
  }

  return handle;
}

/** A configured path as requests are matched against it: repeated slashes, and a trailing one, dropped. */
const normalPath = (p: string) => p.replace(/\/+(\/|$)/g, "$1");

/**
 * The path of a request's URL. The runtime hands the Worker the URL already parsed and serialised, so
 * its path is the text between the authority and any query or fragment: read off the string, without
 * parsing the URL again on every request (a URL object per request was a few µs of each one's CPU).
 */
function pathOf(url: string): string {
  const from = url.indexOf("//") + 2;
  const start = url.indexOf("/", from);
  let end = url.length;
  const query = url.indexOf("?", from);
  if (query !== -1) end = query;
  const fragment = url.indexOf("#", from);
  if (fragment !== -1 && fragment < end) end = fragment;
  // Not the shape the runtime serialises (no authority, or a query before any path): parse it.
  if (from === 1 || start === -1 || start > end) return new URL(url).pathname;
  return url.slice(start, end);
}

/** Whether a request's path is `route`, give or take trailing slashes ("/mcp/" is "/mcp"; "/mcp/x" is not). */
const matches = (pathname: string, route: string) =>
  pathname === route || (pathname.startsWith(route) && /^\/*$/.test(pathname.slice(route.length)));
