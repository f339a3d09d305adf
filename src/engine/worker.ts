/**
 * Builds the Worker for an app: the router, the /mcp edge (gate, auth, limits,
 * era classification, the two lanes) and the error stage, plus the Durable
 * Object classes the app's sessions and notifications live in.
 */
import { DurableObject } from "./objects/durable-object";
import { readConfig, type Config } from "./config";
import type { Env } from "./env";
import type { AppDefinition } from "./mcp/app";
import { ErrorCode, messageOf, toMcpError } from "./mcp/errors";
import { parseMessage, readableId } from "./mcp/jsonrpc";
import { compileApp, type Registry } from "./mcp/registry";
import {
  PRM_PATH,
  authenticate,
  authorizationServers,
  challenge,
  protectedResourceMetadata,
  verifierFor,
  type JwtAuth,
  type Principal,
  type TokenVerifier,
} from "./http/auth";
import { callerOf, type Caller } from "./mcp/auth";
import type { RequestId } from "./mcp/jsonrpc";
import { classifyEra } from "./http/classify";
import { preflight, withCors } from "./http/cors";
import { checkHeaderSizes, checkHostAndOrigin, checkPostMediaTypes, readBody } from "./http/gate";
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost, type LegacyDeps } from "./http/legacy";
import { serveListen } from "./http/listen";
import { serveModernRequest } from "./http/modern";
import { inAcceptedForm } from "./http/quirks";
import { accepted, methodNotAllowed, reject, rpcError } from "./http/responses";
import { overLimit, rateLimitKey } from "./http/rate-limit";
import { MISSING_SECRET } from "./http/seal";
import { refusedStatus } from "./http/status";
import { createNotifier } from "./objects/addresses";
import { McpHub } from "./objects/hub";
import { sessionObjectFor } from "./objects/session";
import { taskRuntimeOf } from "./mcp/tasks";
import type { TaskRuntime } from "./tasks";
import type { EventsExtension } from "./events";

export const MCP_PATH = "/mcp";

const TOO_MANY_REQUESTS = "this client sent too many requests";

/**
 * What the engine uses of the Worker's execution context. Routers (Hono, itty-router) pass their own
 * context objects, so only this much is required of them.
 */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  /** Set by whatever authenticated the request before this Worker (an OAuth provider, for one). */
  props?: any;
}

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
  // without it fails here, at start-up, with what to write instead.
  const tasks = taskRuntimeOf(app.tools) as TaskRuntime | undefined;
  // Start-up only defines the Durable Object classes; the request handlers are built (and V8
  // compiles them) on the first request.
  let edge: McpWorker["handle"] | undefined;
  const handle: McpWorker["handle"] = (request, env, ctx) => (edge ??= createEdge(app, options, path, tasks))(request, env, ctx);
  return {
    McpHub,
    McpSession: sessionObjectFor(app, tasks?.session),
    McpTask: tasks ? tasks.taskObjectFor(app) : NoTasks,
    // The events extension brings its object class (src/engine/events/); an app without it has none.
    McpEvents: (app.extensions?.find((e) => "McpEvents" in e) as EventsExtension | undefined)?.McpEvents ?? NoTasks,
    McpUser: (app.userState?.objectClass as typeof NoTasks | undefined) ?? NoTasks,
    handle,
    async fetch(request, env, ctx) {
      return (await handle(request, env, ctx)) ?? reject(404, ErrorCode.MethodNotFound, `Not found; the MCP endpoint is ${path}`);
    },
  };
}

/** The /mcp edge for an app: `handle` of `createMcpWorker`. */
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
        console.error(
          JSON.stringify({
            mcp: "app_definition_invalid",
            message: `The app's definitions are invalid, so every request fails: ${messageOf(err)}. \`npm run check:app\` lists every mistake.`,
          }),
        );
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
   * Who is calling: the one Caller of this request, built here for every way a request is
   * authenticated (the `principal` hook of the OAuth entry or a router, a custom `verifyToken`, a
   * static token, a JWT, or none), or the 400/401/403 to answer. Handlers, policies, sessions and
   * tasks get this value; the rate limits count its `rateLimitKey`.
   */
  async function callerFor(request: Request, env: Env, ctx: WorkerContext, config: Config, reg: Registry): Promise<Caller | Response> {
    let who: Principal | undefined;
    const { verify, optional } = verifierOf(config);
    if (!options.principal && (!verify || optional)) warnScopedWithoutAuth(reg);
    if (options.principal) {
      const said = options.principal(request, env, ctx);
      who = typeof said === "string" ? { id: said, scopes: [] } : said;
      if (!who?.id) return challenge(request, path, 401, "Unauthorized");
    } else if (verify && !(optional && !request.headers.has("Authorization"))) {
      const verified = await authenticate(
        request,
        verify,
        path,
        baselineOf(config, reg),
        hasMetadata(config),
        options.verifyToken ? "verifyToken" : `AUTH_MODE=${config.auth.mode}`,
      );
      if (verified instanceof Response) return verified;
      who = verified;
    }
    return callerOf(who, rateLimitKey(request, who?.id ?? ""), reg.claimsOf);
  }

  // Said once per isolate (`npm run dev` shows it): an app that declares scopes, served by a Worker
  // that authenticates nobody, refuses every scoped operation (authorization.ts words it).
  let scopedChecked = false;
  const warnScopedWithoutAuth = (reg: Registry) => {
    if (!scopedChecked && reg.unauthenticatedWarning)
      console.warn(JSON.stringify({ mcp: "scopes_without_auth", message: reg.unauthenticatedWarning }));
    scopedChecked = true;
  };

  // Said once per isolate, at its first request: without the secret every 2026 input round fails.
  let secretChecked = false;

  async function handleMcp(request: Request, env: Env, ctx: WorkerContext): Promise<Response> {
    const config = readConfig(env);
    if (!secretChecked) {
      secretChecked = true;
      if (!config.stateSecret)
        console.error(
          JSON.stringify({
            mcp: "missing_secret",
            message: `${MISSING_SECRET}. 2026-07-28 tools that ask the user for input will fail with -32603 until it is set.`,
          }),
        );
    }
    const gate = checkHostAndOrigin(request, config);
    if (gate instanceof Response) return gate;
    const { origin } = gate;
    if (request.method === "OPTIONS") return preflight(request, origin);
    return withCors(await handleAuthorized(request, env, ctx, config), origin);
  }

  async function handleAuthorized(request: Request, env: Env, ctx: WorkerContext, config: Config): Promise<Response> {
    const tooLarge = checkHeaderSizes(request, config.maxHeaderBytes);
    if (tooLarge) return tooLarge;
    const reg = registry();
    const caller = await callerFor(request, env, ctx, config, reg);
    if (caller instanceof Response) return caller;
    const key = caller.rateLimitKey;
    // A step-up refusal of an operation is the challenge below.
    const scopeChallenge = (id: RequestId, scopes: readonly string[]) =>
      // Whoever authenticated for this Worker (the OAuth entry) serves the metadata, as for its 401.
      challenge(request, path, 403, "Insufficient scope", "insufficient_scope", scopes, !!options.principal || hasMetadata(config), id);
    // What either lane needs of this request once it is let in.
    const admitted = { reg, config, env, caller, scopeChallenge };
    // A POST spends its budget once its id is read, so that a 429 answers the request it refuses.
    if (request.method === "POST") return handlePost(request, env, ctx, admitted);
    const limited = await overLimit(env.MCP_RATE_LIMIT, key, TOO_MANY_REQUESTS, "MCP_RATE_LIMIT");
    if (limited) return limited;
    // GET and DELETE only exist for 2025 sessions (2026-07-28 is POST only).
    if (request.method === "GET") return serveLegacyGet(request, admitted);
    if (request.method === "DELETE") return serveLegacyDelete(request, admitted);
    return methodNotAllowed("GET, POST, DELETE");
  }

  async function handlePost(request: Request, env: Env, ctx: WorkerContext, admitted: LegacyDeps): Promise<Response> {
    const { reg, config, caller } = admitted;
    // A quirk of Accept (http/quirks.ts) is served unless STRICT_HEADERS=on: the answer takes the form the client takes.
    const media = checkPostMediaTypes(request, config.strictHeaders);
    if (media instanceof Response) return media;
    if (media) admitted.quirks = media;
    const body = await readBody(request, config.maxBodyBytes);
    if (body instanceof Response) return body;

    let msg: ReturnType<typeof parseMessage> | undefined;
    let invalid: ReturnType<typeof toMcpError> | undefined;
    try {
      msg = parseMessage(body, config.maxJsonDepth);
    } catch (err) {
      invalid = toMcpError(err);
    }
    const id = msg ? (msg.kind === "request" ? msg.message.id : null) : idOf(body);
    // Every POST spends the budget, a malformed one too.
    const limited = await overLimit(env.MCP_RATE_LIMIT, caller.rateLimitKey, TOO_MANY_REQUESTS, "MCP_RATE_LIMIT", id);
    if (limited) return limited;
    if (!msg) return rpcError(id, invalid!.toJSON(), refusedStatus(invalid!.code));
    // The operation the body names is authorized by the first step of the middleware chain, where the
    // lane runs it (src/engine/mcp/authorization.ts): on both revisions, reported like any outcome, and a
    // caller nobody authenticated is refused a scoped operation there too (secure by default).
    if (classifyEra(msg, request.headers, config.strictHeaders) === "legacy") {
      if (msg.kind === "request" && msg.message.method === "initialize" && !request.headers.has("Mcp-Session-Id")) {
        // Each session is a Durable Object with storage: creating them has its own, smaller budget.
        const limited = await overLimit(
          env.MCP_SESSION_RATE_LIMIT,
          caller.rateLimitKey,
          "this client opened too many sessions",
          "MCP_SESSION_RATE_LIMIT",
          id,
        );
        if (limited) return limited;
      }
      return inAcceptedForm(media, id, await serveLegacyPost(request, msg, admitted));
    }
    if (msg.kind !== "request") return accepted();

    return inAcceptedForm(
      media,
      id,
      await serveModernRequest(request, msg.message, {
        quirks: admitted.quirks,
        reg,
        config,
        env,
        notify: createNotifier(env),
        caller,
        scopeChallenge: admitted.scopeChallenge,
        tasks,
        waitUntil: (p) => ctx.waitUntil(p),
        listen: (m) => serveListen(m, reg, env, caller),
      }),
    );
  }

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

  // Three fixed paths: a comparison each, not a router, which measured about 20 µs of CPU per
  // request here. A fork that wants more routes mounts `handle` in its own router.
  const mcpPath = normalPath(path);
  const metadataPaths = [normalPath(PRM_PATH), normalPath(`${PRM_PATH}${path}`)];

  async function handle(request: Request, env: Env, ctx: WorkerContext): Promise<Response | undefined> {
    try {
      const { pathname } = new URL(request.url);
      if (matches(pathname, mcpPath)) return await handleMcp(request, env, ctx);
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

/** Whether a request's path is `route`, give or take trailing slashes ("/mcp/" is "/mcp"; "/mcp/x" is not). */
const matches = (pathname: string, route: string) => pathname.startsWith(route) && /^\/*$/.test(pathname.slice(route.length));

/** The id of a message that failed validation, so the error can echo it. */
function idOf(body: string): string | number | null {
  try {
    return readableId(JSON.parse(body));
  } catch {
    return null;
  }
}
