/**
 * The /mcp edge as an ordered list of named steps (STEPS below, then the lane). Each step reads the
 * request and what earlier steps found (a Passage), and either answers (a Response, which ends the
 * request) or lets it on (undefined/null). worker.ts builds the per-app setup once (EdgeSetup) and
 * hands every /mcp request to `serveMcp`; this file is the order a request meets the edge in.
 */
import { readConfig, type Config } from "../config";
import type { Env } from "../env";
import { callerOf } from "../mcp/auth";
import { toMcpError, type McpError } from "../mcp/errors";
import { parseMessage, readableId, type Message, type RequestId } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { createNotifier } from "../objects/addresses";
import type { TaskRuntime } from "../tasks";
import { authenticate, challenge, type Principal, type TokenVerifier } from "./auth";
import { classifyEra } from "./classify";
import { preflight, withCors } from "./cors";
import { checkHeaderSizes, checkHostAndOrigin, checkPostMediaTypes, readBody as readBodyBytes } from "./gate";
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost, type LegacyDeps } from "./legacy";
import { serveListen } from "./listen";
import { serveModernRequest } from "./modern";
import { inAcceptedForm, type Quirk } from "./quirks";
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
  principal?: (request: Request, env: Env, ctx: WorkerContext) => string | Principal | undefined;
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

/** A request on its way through the steps, and what they found; a field a step sets is unset before it. */
interface Passage {
  readonly edge: EdgeSetup;
  readonly request: Request;
  readonly env: Env;
  readonly ctx: WorkerContext;
  readonly config: Config;
  /** Set by `cors` once the request is past the preflight: every later answer carries the CORS headers. */
  cors?: boolean;
  origin: string | null;
  /** Set by `authenticate`: the registry, the caller, and what either lane needs of an admitted request. */
  admitted: LegacyDeps;
  /** POST only, set by `readBody`: the Accept quirk served, if any (http/quirks.ts), and the body. */
  media?: Quirk;
  body: string;
  /** POST only, set by `parse`: the message, or why it is not one, and the id to answer (none: null). */
  msg?: Message;
  invalid?: McpError;
  id: RequestId | null;
}

type Step = (p: Passage) => Response | null | undefined | Promise<Response | null | undefined>;

const TOO_MANY_REQUESTS = "this client sent too many requests";

/** The Host and Origin checks (DNS rebinding); the first request also says if the state secret is missing. */
function gate(p: Passage): Response | undefined {
  if (!p.edge.said.secret) {
    p.edge.said.secret = true;
    if (!p.config.stateSecret)
      console.error(
        JSON.stringify({
          mcp: "missing_secret",
          message: `${MISSING_SECRET}. 2026-07-28 tools that ask the user for input will fail with -32603 until it is set.`,
        }),
      );
  }
  const gated = checkHostAndOrigin(p.request, p.config);
  if (gated instanceof Response) return gated;
  p.origin = gated.origin;
}

/** A preflight is answered here; every answer after this step carries the CORS headers. */
function cors(p: Passage): Response | undefined {
  if (p.request.method === "OPTIONS") return preflight(p.request, p.origin);
  p.cors = true;
}

const headerSizes: Step = (p) => checkHeaderSizes(p.request, p.config.maxHeaderBytes);

/**
 * Who is calling: the one Caller of this request, built here for every way a request is
 * authenticated (the `principal` hook of the OAuth entry or a router, a custom `verifyToken`, a
 * static token, a JWT, or none), or the 400/401/403 to answer. Handlers, policies, sessions and
 * tasks get this value; the rate limits count its `rateLimitKey`.
 */
async function authenticateCaller(p: Passage): Promise<Response | undefined> {
  const { edge, request, config } = p;
  const reg = edge.registry();
  const who = await principalOf(p, reg);
  if (who instanceof Response) return who;
  const caller = callerOf(who, rateLimitKey(request, who?.id ?? ""), reg.claimsOf);
  // A step-up refusal of an operation is the challenge below; whoever authenticated for this Worker
  // (the OAuth entry) serves the metadata, as for its 401.
  const scopeChallenge = (id: RequestId, scopes: readonly string[]) =>
    challenge(
      request,
      edge.path,
      403,
      "Insufficient scope",
      "insufficient_scope",
      scopes,
      !!edge.principal || edge.hasMetadata(config),
      id,
    );
  p.admitted = { reg, config, env: p.env, caller, scopeChallenge };
}

/** The principal the request proves (undefined: anonymous), or the 401 to answer. */
async function principalOf(p: Passage, reg: Registry): Promise<Principal | undefined | Response> {
  const { edge, request, config } = p;
  const { verify, optional } = edge.verifierOf(config);
  if (!edge.principal && (!verify || optional)) warnScopedWithoutAuth(edge, reg);
  if (edge.principal) {
    const said = edge.principal(request, p.env, p.ctx);
    const who = typeof said === "string" ? { id: said, scopes: [] } : said;
    return who?.id ? who : challenge(request, edge.path, 401, "Unauthorized");
  }
  if (!verify || (optional && !request.headers.has("Authorization"))) return undefined;
  return authenticate(request, verify, edge.path, edge.baselineOf(config, reg), edge.hasMetadata(config), edge.verifierName(config));
}

// Said once per isolate (`npm run dev` shows it): an app that declares scopes, served by a Worker
// that authenticates nobody, refuses every scoped operation (authorization.ts words it).
function warnScopedWithoutAuth(edge: EdgeSetup, reg: Registry): void {
  if (!edge.said.scoped && reg.unauthenticatedWarning)
    console.warn(JSON.stringify({ mcp: "scopes_without_auth", message: reg.unauthenticatedWarning }));
  edge.said.scoped = true;
}

/** POST only: its media types (a quirk of Accept is served unless STRICT_HEADERS=on), then its bytes, within the limit. */
async function readBody(p: Passage): Promise<Response | undefined> {
  if (p.request.method !== "POST") return;
  const media = checkPostMediaTypes(p.request, p.config.strictHeaders);
  if (media instanceof Response) return media;
  if (media) p.admitted.quirks = p.media = media;
  const body = await readBodyBytes(p.request, p.config.maxBodyBytes);
  if (body instanceof Response) return body;
  p.body = body;
}

/** POST only: one JSON-RPC message; one that is not is answered after it spent its budget (`malformed`). */
function parse(p: Passage): undefined {
  if (p.request.method !== "POST") return;
  try {
    p.msg = parseMessage(p.body, p.config.maxJsonDepth);
    p.id = p.msg.kind === "request" ? p.msg.message.id : null;
  } catch (err) {
    p.invalid = toMcpError(err);
    p.id = idOf(p.body);
  }
}

/** Every request spends the caller's budget, a malformed POST too; a POST's 429 answers its id. */
const rateLimit: Step = (p) => overLimit(p.env.MCP_RATE_LIMIT, p.admitted.caller.rateLimitKey, TOO_MANY_REQUESTS, "MCP_RATE_LIMIT", p.id);

const malformed: Step = (p) => p.invalid && rpcError(p.id, p.invalid.toJSON(), refusedStatus(p.invalid.code));

/**
 * The operation the body names is authorized by the first step of the middleware chain, where the
 * lane runs it (src/engine/mcp/authorization.ts): on both revisions, reported like any outcome, and a
 * caller nobody authenticated is refused a scoped operation there too (secure by default). The edge
 * hands over.
 */
const authorize: Step = () => undefined;

/** The edge's steps, in order; a request none of them answers goes to its lane. */
const STEPS: readonly Step[] = [gate, cors, headerSizes, authenticateCaller, readBody, parse, rateLimit, malformed, authorize];

/** The lane: a POST goes to its revision's; GET and DELETE only exist for 2025 sessions (2026-07-28 is POST only). */
function lane(p: Passage): Promise<Response> | Response {
  if (p.msg) return servePost(p, p.msg);
  if (p.request.method === "GET") return serveLegacyGet(p.request, p.admitted);
  if (p.request.method === "DELETE") return serveLegacyDelete(p.request, p.admitted);
  return methodNotAllowed("GET, POST, DELETE");
}

async function servePost(p: Passage, msg: Message): Promise<Response> {
  const { request, env, admitted, id } = p;
  const media = p.media ?? null;
  if (classifyEra(msg, request.headers, p.config.strictHeaders) === "legacy") {
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
      quirks: admitted.quirks,
      reg,
      config: p.config,
      env,
      notify: createNotifier(env),
      caller,
      scopeChallenge: admitted.scopeChallenge,
      tasks: p.edge.tasks,
      waitUntil: (w) => p.ctx.waitUntil(w),
      listen: (m) => serveListen(m, reg, env, caller),
    }),
  );
}

/** Serves one /mcp request: the steps in order until one answers, else the lane. */
export async function serveMcp(edge: EdgeSetup, request: Request, env: Env, ctx: WorkerContext): Promise<Response> {
  // What the steps find starts unset (see Passage).
  const p = { edge, request, env, ctx, config: readConfig(env), id: null } as Passage;
  let answer: Response | null | undefined;
  for (const step of STEPS) {
    const out = step(p);
    answer = out instanceof Promise ? await out : out;
    if (answer) break;
  }
  answer ??= await lane(p);
  return p.cors ? withCors(answer, p.origin) : answer;
}

/** The id of a message that failed validation, so the error can echo it. */
function idOf(body: string): RequestId | null {
  try {
    return readableId(JSON.parse(body));
  } catch {
    return null;
  }
}
