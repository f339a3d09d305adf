/**
 * The /mcp edge as named steps in order (serveMcp, then admit, then the lane). Each step takes the
 * stage the request reached (Arrival, Gated, Admitted…: each type holds only what earlier steps set)
 * and either answers (a Response, which ends the request) or gives the next stage. worker.ts builds
 * the per-app setup once (EdgeSetup) and hands every /mcp request to `serveMcp`; this file is the
 * order a request meets the edge in.
 */
import { writeLog } from "../mcp/telemetry";
import { readConfig, type Config } from "../config";
import type { Env } from "../env";
import { callerOf, type Identity } from "../mcp/auth";
import type { Admitted } from "./admitted";
import { toMcpError, type McpError } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { parseMessage, readableId, type Message, type RequestId } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { createNotifier } from "../objects/addresses";
import type { TaskRuntime } from "../tasks";
import { authenticate, challenge, type TokenVerifier } from "./auth";
import { classifyEra } from "./classify";
import { preflight, withCors } from "./cors";
import { checkHeaderSizes, checkHostAndOrigin, checkPostMediaTypes, readBody as readBodyBytes } from "./gate";
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost } from "./legacy";
import { serveListen } from "./listen";
import { serveModernRequest } from "./modern";
import { inAcceptedForm } from "./quirks";
import { noted, type Quirk } from "../mcp/quirks";
import { overLimit, rateLimitKey } from "./rate-limit";
import { accepted, methodNotAllowed, rpcError } from "./responses";
import { MISSING_SECRET } from "./seal";
import { refusedStatus } from "./status";

/**
 * What the engine uses of the Worker's execution context. Routers (Hono, itty-router) pass their own
 * context objects, so only this much is required of them.
 */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  /** Set by whatever authenticated the request before this Worker (an OAuth provider, for one). */
  props?: any;
}

/** What the edge knows of its app and options, built once per app by worker.ts (createEdge). */
export interface EdgeSetup {
  /** Where the MCP endpoint is served; the 401/403 challenges name its metadata. */
  path: string;
  tasks: TaskRuntime | undefined;
  /** WorkerOptions.principal: who is calling, said by whatever authenticated the request first. */
  principal?: (request: Request, env: Env, ctx: WorkerContext) => string | Identity | undefined;
  /** How a failed token check names its source in the log ("verifyToken" or "AUTH_MODE=…"). */
  verifierName(config: Config): string;
  /** The app's compiled registry (compiled on the first request). */
  registry(): Registry;
  /** The token check for this configuration; `optional`: only `npm run dev`'s tokens are checked. */
  verifierOf(config: Config): { verify?: TokenVerifier; optional: boolean };
  /** Whether this server serves RFC 9728 metadata. */
  hasMetadata(config: Config): boolean;
  /** The scopes a 401 challenge and the metadata ask for. */
  baselineOf(config: Config, reg: Registry): string[];
  /** Once-per-isolate notes already said (missing secret, scopes without authentication). */
  said: { secret: boolean; scoped: boolean };
}

/** A request as it arrives: what every step reads. */
interface Arrival {
  readonly edge: EdgeSetup;
  readonly request: Request;
  readonly env: Env;
  readonly ctx: WorkerContext;
  readonly config: Config;
}

/** Past the Host and Origin checks: the origin every later answer's CORS headers name. */
interface Gated extends Arrival {
  readonly origin: string | null;
}

/** A POST's body, read within the limit: the Accept quirk it was served with, if any. */
interface Read {
  readonly media: Quirk | null;
  readonly body: string;
}

/** A POST's body parsed: the message, or why it is not one, and the id to answer (none: null). */
type Parsed = { readonly msg: Message; readonly id: RequestId | null } | { readonly invalid: McpError; readonly id: RequestId | null };

const TOO_MANY_REQUESTS = "this client sent too many requests";

/** The Host and Origin checks (DNS rebinding); the first request also says if the state secret is missing. */
function gate(a: Arrival): Gated | Response {
  if (!a.edge.said.secret) {
    a.edge.said.secret = true;
    if (!a.config.stateSecret)
      writeLog("error", "missing_secret", {
        message: `${MISSING_SECRET}. 2026-07-28 tools that ask the user for input will fail with -32603 until it is set.`,
      });
  }
  const gated = checkHostAndOrigin(a.request, a.config);
  return gated instanceof Response ? gated : { ...a, origin: gated.origin };
}

/**
 * Who is calling: the one Caller of this request, built here for every way a request is
 * authenticated (the `principal` hook of the OAuth entry or a router, a custom `verifyToken`, a
 * static token, a JWT, or none), or the 400/401/403 to answer. Handlers, policies, sessions and
 * tasks get this value; the rate limits count its `rateLimitKey`.
 */
async function authenticateCaller(g: Gated): Promise<Admitted | Response> {
  const { edge, request, config } = g;
  const reg = edge.registry();
  const who = await principalOf(g, reg);
  if (who instanceof Response) return who;
  const caller = callerOf(who, rateLimitKey(request, who?.id ?? ""), reg.claimsOf);
  // A step-up refusal of an operation is the challenge below; whoever authenticated for this Worker
  // (the OAuth entry) serves the metadata, as for its 401.
  const scopeChallenge = (id: RequestId, scopes: readonly string[]) =>
    challenge(request, {
      mcpPath: edge.path,
      status: 403,
      message: "Insufficient scope",
      error: "insufficient_scope",
      scopes,
      metadata: !!edge.principal || edge.hasMetadata(config),
      id,
    });
  return { reg, config, env: g.env, caller, scopeChallenge };
}

/** The principal the request proves (undefined: anonymous), or the 401 to answer. */
async function principalOf(a: Arrival, reg: Registry): Promise<Identity | undefined | Response> {
  const { edge, request, config } = a;
  const { verify, optional } = edge.verifierOf(config);
  if (!edge.principal && (!verify || optional)) warnScopedWithoutAuth(edge, reg);
  if (edge.principal) {
    const said = edge.principal(request, a.env, a.ctx);
    const who = typeof said === "string" ? { id: said, scopes: [] } : said;
    return who?.id ? who : challenge(request, { mcpPath: edge.path, status: 401, message: "Unauthorized" });
  }
  if (!verify || (optional && !request.headers.has("Authorization"))) return undefined;
  return authenticate(request, verify, edge.path, edge.baselineOf(config, reg), edge.hasMetadata(config), edge.verifierName(config));
}

// Said once per isolate (`npm run dev` shows it): an app that declares scopes, served by a Worker
// that authenticates nobody, refuses every scoped operation (authorization.ts words it).
function warnScopedWithoutAuth(edge: EdgeSetup, reg: Registry): void {
  if (!edge.said.scoped && reg.unauthenticatedWarning) writeLog("warn", "scopes_without_auth", { message: reg.unauthenticatedWarning });
  edge.said.scoped = true;
}

/** A POST's media types (a quirk of Accept is served unless STRICT_HEADERS=on), then its bytes, within the limit. */
async function readBody(a: Arrival): Promise<Read | Response> {
  const media = checkPostMediaTypes(a.request, a.config.strictHeaders);
  if (media instanceof Response) return media;
  const body = await readBodyBytes(a.request, a.config.maxBodyBytes);
  return body instanceof Response ? body : { media, body };
}

/** One JSON-RPC message; one that is not is answered after it spent its budget (`malformed`). */
function parse(a: Arrival, body: string): Parsed {
  try {
    const msg = parseMessage(body, a.config.maxJsonDepth);
    return { msg, id: msg.kind === "request" ? msg.message.id : null };
  } catch (err) {
    return { invalid: toMcpError(err), id: idOf(body) };
  }
}

/** Every request spends the caller's budget, a malformed POST too; a POST's 429 answers its id. */
const rateLimit = (a: Arrival, admitted: Admitted, id: RequestId | null) =>
  overLimit(a.env.MCP_RATE_LIMIT, admitted.caller.rateLimitKey, TOO_MANY_REQUESTS, "MCP_RATE_LIMIT", id);

/**
 * The steps past CORS, in order; each answers (a Response ends the request) or hands the next its
 * stage. The operation a POST names is authorized where the lane runs it, by the first step of the
 * middleware chain (src/engine/mcp/execute.ts), on both revisions; a request none of the steps
 * answers goes to its lane.
 */
async function admit(g: Gated): Promise<Response> {
  const sized = checkHeaderSizes(g.request, g.config.maxHeaderBytes);
  if (sized) return sized;
  const admitted = await authenticateCaller(g);
  if (admitted instanceof Response) return isStepUp(admitted) && g.request.method === "POST" ? everyScopeNeeded(g, admitted) : admitted;
  if (g.request.method !== "POST") return (await rateLimit(g, admitted, null)) ?? lane(g, admitted);
  const read = await readBody(g);
  if (read instanceof Response) return read;
  if (read.media) admitted.quirks = noted(admitted.quirks, read.media);
  const parsed = parse(g, read.body);
  const limited = await rateLimit(g, admitted, parsed.id);
  if (limited) return limited;
  if ("invalid" in parsed) return rpcError(parsed.id, parsed.invalid.toJSON(), refusedStatus(parsed.invalid.code));
  return servePost(g, admitted, read.media, parsed.msg, parsed.id);
}

const isStepUp = (r: Response) => r.status === 403 && (r.headers.get("WWW-Authenticate") ?? "").includes('error="insufficient_scope"');

/**
 * A token short of the baseline (AUTH_SCOPES, the app's default), on a POST that names an operation
 * of its own scopes: one challenge names both, so a client steps up once rather than twice (first
 * to the baseline, then to the operation's scopes). Anything else keeps the verifier's refusal.
 */
async function everyScopeNeeded(g: Gated, refused: Response): Promise<Response> {
  const read = await readBody(g);
  if (read instanceof Response) return refused;
  const parsed = parse(g, read.body);
  if (!("msg" in parsed) || parsed.msg.kind !== "request") return refused;
  const { method, params } = parsed.msg.message;
  const reg = g.edge.registry();
  const baseline = g.edge.baselineOf(g.config, reg);
  const needed = reg.scopesNeeded?.(method, isObject(params) ? params : {}) ?? [];
  if (needed.every((s) => baseline.includes(s))) return refused;
  const scopes = [...new Set([...baseline, ...needed])];
  return challenge(g.request, {
    mcpPath: g.edge.path,
    status: 403,
    message: `Forbidden: ${method} needs the scope(s) ${scopes.join(" ")}`,
    error: "insufficient_scope",
    scopes,
    metadata: g.edge.hasMetadata(g.config),
    id: parsed.id,
  });
}

/** GET and DELETE only exist for 2025 sessions (2026-07-28 is POST only). */
function lane(g: Gated, admitted: Admitted): Promise<Response> | Response {
  if (g.request.method === "GET") return serveLegacyGet(g.request, admitted);
  if (g.request.method === "DELETE") return serveLegacyDelete(g.request, admitted);
  return methodNotAllowed("GET, POST, DELETE");
}

/** A POST goes to its revision's lane. */
async function servePost(g: Gated, admitted: Admitted, media: Quirk | null, msg: Message, id: RequestId | null): Promise<Response> {
  const { request, env } = g;
  if (classifyEra(msg, request.headers, g.config.strictHeaders) === "legacy") {
    if (msg.kind === "request" && msg.message.method === "initialize" && !request.headers.has("Mcp-Session-Id")) {
      // Each session is a Durable Object with storage: creating them has its own, smaller budget.
      const limited = await overLimit(
        env.MCP_SESSION_RATE_LIMIT,
        admitted.caller.rateLimitKey,
        "this client opened too many sessions",
        "MCP_SESSION_RATE_LIMIT",
        id,
      );
      if (limited) return limited;
    }
    return inAcceptedForm(media, id, await serveLegacyPost(request, msg, admitted));
  }
  if (msg.kind !== "request") return accepted();
  const { reg, caller } = admitted;
  return inAcceptedForm(
    media,
    id,
    await serveModernRequest(request, msg.message, {
      ...admitted,
      notify: createNotifier(env),
      tasks: g.edge.tasks,
      waitUntil: (w) => g.ctx.waitUntil(w),
      listen: (m) => serveListen(m, reg, env, caller),
    }),
  );
}

/**
 * Serves one /mcp request: the gate, the preflight, then the steps past CORS (admit), whose every
 * answer carries the CORS headers.
 */
export async function serveMcp(edge: EdgeSetup, request: Request, env: Env, ctx: WorkerContext): Promise<Response> {
  const gated = gate({ edge, request, env, ctx, config: readConfig(env) });
  if (gated instanceof Response) return gated;
  if (request.method === "OPTIONS") return preflight(request, gated.origin);
  return withCors(await admit(gated), gated.origin);
}

/** The id of a message that failed validation, so the error can echo it. */
function idOf(body: string): RequestId | null {
  try {
    return readableId(JSON.parse(body));
  } catch {
    return null;
  }
}
