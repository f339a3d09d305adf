import { refusedScopes } from "../mcp/auth";
import { invalidParams, type McpError } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { checkProgressToken, resultResponse, type JsonRpcRequest, type Message, type RequestId } from "../mcp/jsonrpc";
import { legacyCapabilities } from "../mcp/registry";
import type { ClientCapabilities, Implementation } from "../mcp/types";
import { negotiate, versionHeaderProblem } from "../mcp/revisions/2025-11-25";
import { isModernVersion } from "../mcp/versions";
import { hubStub, isSessionId, newSessionId, sessionStub } from "../objects/addresses";
import { SESSION_NOT_FOUND, type SessionAnswer, type SessionRequester, type SessionStart } from "../objects/contracts";
import { inSpan, type SpanLike } from "../mcp/tracing";
import { tagServed, tracerFor } from "../reporting";
import { oneVersion } from "./quirks";
import { noted } from "../mcp/quirks";
import type { Admitted } from "./admitted";
import { openSessionId, sealSessionId } from "./session-id";
import { accepted, json, jsonText, methodNotAllowed, refuse, rpcError } from "./responses";
import { SESSION_REFUSAL_STATUS } from "./status";
// Imported last, so the bundle places the stream pipe (and sse.ts) after session-id.ts and seal.ts:
// gzip then finds more of its repeats within its 32 KiB window (about 80 B, by scripts/bundle-map.mjs).
import { pipeSessionStream } from "./session-stream";

type Stub = ReturnType<typeof sessionStub>;

// Refusals of session traffic answer the request's id when the body held one (the spec's rule for errors).
const notFound = (id: RequestId | null) => refuse(SESSION_REFUSAL_STATUS["unknown-session"], SESSION_NOT_FOUND, undefined, id);

/** MCP-Protocol-Version, a value a proxy repeated folded into one unless STRICT_HEADERS=on (http/quirks.ts). */
const versionHeader = (request: Request, strict: boolean) => oneVersion(request.headers.get("MCP-Protocol-Version")?.trim(), strict);

/**
 * The session named by the request, or the HTTP error to answer. A sealed id is opened here, so a
 * forged, foreign or outlived one is 404 without asking any object.
 */
async function sessionOf(request: Request, deps: Admitted, id: RequestId | null): Promise<Response | { stub: Stub; seal?: SessionStart }> {
  const sessionId = request.headers.get("Mcp-Session-Id")?.trim();
  // A 2026-07-28 client has no session: GET and DELETE do not exist for it (POST only).
  if (!sessionId && request.method !== "POST" && isModernVersion(versionHeader(request, deps.config.strictHeaders)))
    return methodNotAllowed("POST");
  if (!sessionId) return refuse(400, "Bad Request: Mcp-Session-Id header is required (send initialize first)", undefined, id);
  if (isSessionId(sessionId)) return { stub: sessionStub(deps.env, sessionId) };
  const seal = await openSessionId(sessionId, deps.caller.principal, deps.config, deps.config.sessionMaxMs);
  return seal ? { stub: sessionStub(deps.env, sessionId), seal } : notFound(id);
}

/**
 * MCP-Protocol-Version on session traffic: one the revision refuses is 400 here, and the session
 * object refuses (400) a revision other than the one it negotiated, which only it knows.
 */
function checkVersionHeader(request: Request, id: RequestId | null, strict: boolean): Response | null {
  const problem = versionHeaderProblem(versionHeader(request, strict), !strict);
  return problem === undefined ? null : refuse(400, problem, undefined, id);
}

/**
 * Asks the request's session object and answers with what it says; the HTTP error instead when the
 * version header or the session is refused. POST checks the header first, GET and DELETE the session.
 */
async function askSession(
  request: Request,
  deps: Admitted,
  versionFirst: boolean,
  ask: (stub: Stub, caller: SessionRequester) => Promise<SessionAnswer | Response>,
  /** The id of the request POSTed, if it is one: the edge's and the session's refusals answer it. */
  id: RequestId | null = null,
): Promise<Response> {
  const strict = deps.config.strictHeaders;
  const badVersion = versionFirst && checkVersionHeader(request, id, strict);
  if (badVersion) return badVersion;
  const session = await sessionOf(request, deps, id);
  if (session instanceof Response) return session;
  const bad = !versionFirst && checkVersionHeader(request, id, strict);
  if (bad) return bad;
  const { stub, seal } = session;
  const sent = request.headers.get("MCP-Protocol-Version")?.trim();
  const protocolVersion = oneVersion(sent, strict);
  // A repeated value folded into one is a quirk the session's log line counts; the session adds its own (a newer revision).
  const quirks = protocolVersion === sent ? deps.quirks : noted(deps.quirks, "version-repeated");
  const answered = await ask(stub, {
    principal: deps.caller.principal,
    ...(deps.caller.authenticated ? { caller: deps.caller } : { clientKey: deps.caller.rateLimitKey }),
    protocolVersion,
    seal,
    strictHeaders: strict,
    quirks,
  });
  return answered instanceof Response ? answered : answer(answered, stub, deps, id);
}

async function answer(result: SessionAnswer, stub: Stub, deps: Admitted, id: RequestId | null = null): Promise<Response> {
  const { env } = deps;
  switch (result.kind) {
    case "stream":
      return pipeSessionStream(stub, result.stream, result.after, result.hub && { stub: hubStub(env, result.hub.shard), seat: result.hub });
    case "accepted":
      return accepted();
    case "json":
      return jsonText(result.text);
    case "reply": {
      // A handler's InsufficientScope: the step-up challenge, as the edge answers a declared scope's.
      const { id: replyId, error } = result.message as { id: RequestId; error?: { code: number } };
      const scopes = refusedScopes(error);
      return scopes ? deps.scopeChallenge(replyId, scopes) : json(result.message);
    }
    case "refused":
      // The session's own refusals (404, the negotiated version's 400) name no id: the request's is the one to answer.
      return rpcError(result.id ?? id, result.error, SESSION_REFUSAL_STATUS[result.refusal]);
  }
}

export async function serveLegacyPost(request: Request, msg: Message, deps: Admitted): Promise<Response> {
  if (msg.kind === "request" && msg.message.method === "initialize" && !request.headers.has("Mcp-Session-Id")) {
    return inSpan(tracerFor(deps.config), "initialize", (span) => initialize(msg.message, deps, span));
  }
  if (msg.kind === "request") {
    try {
      checkProgressToken(msg.message.params?._meta);
    } catch (err) {
      return rpcError(msg.message.id, (err as McpError).toJSON(), 400);
    }
  }
  const traceparent = request.headers.get("traceparent") ?? undefined;
  const id = msg.kind === "request" ? msg.message.id : null;
  return askSession(
    request,
    deps,
    true,
    (stub, caller) => stub.handle({ ...caller, message: msg, traceparent, maxLive: deps.config.sessionMaxLive }),
    id,
  );
}

async function initialize(req: JsonRpcRequest, deps: Admitted, span?: SpanLike): Promise<Response> {
  const p = req.params ?? {};
  if (typeof p.protocolVersion !== "string" || !isObject(p.capabilities) || !isObject(p.clientInfo)) {
    const error = invalidParams("initialize needs params.protocolVersion, params.capabilities and params.clientInfo");
    // A failed initialize ends its span with the error, as every operation's span does.
    if (span) await tagServed(span, req, "", undefined, deps.config, error);
    return rpcError(req.id, error.toJSON(), 400);
  }
  const protocolVersion = negotiate(p.protocolVersion);
  const start = {
    principal: deps.caller.principal,
    protocolVersion,
    clientCapabilities: p.capabilities as ClientCapabilities,
    clientInfo: p.clientInfo as unknown as Implementation,
    // An anonymous session's budgets are its creator's address's, as the rate limits key it.
    ...(deps.caller.principal ? {} : { clientKey: deps.caller.rateLimitKey }),
    createdAt: Date.now(),
  };
  // A sealed id needs no object until the session holds state; one that cannot be sealed is stored now.
  let sessionId = await sealSessionId(start, deps.config);
  if (sessionId === undefined) {
    sessionId = newSessionId();
    const stub = sessionStub(deps.env, sessionId);
    const started = (await stub.initialize({ sessionId, ...start }, deps.config.sessionMaxLive)) as SessionAnswer;
    if (started.kind === "refused") return answer({ ...started, id: req.id }, stub, deps);
  }
  if (span) await tagServed(span, req, protocolVersion, sessionId, deps.config);
  const { reg } = deps;
  const result = {
    protocolVersion,
    capabilities: legacyCapabilities(reg, deps.caller.principal),
    serverInfo: reg.info,
    ...(reg.instructions ? { instructions: reg.instructions } : {}),
  };
  return json(resultResponse(req.id, result), 200, { "Mcp-Session-Id": sessionId });
}

export async function serveLegacyGet(request: Request, deps: Admitted): Promise<Response> {
  const accept = request.headers.get("Accept") ?? "";
  if (!/text\/event-stream|\*\/\*/.test(accept)) return refuse(406, "Not Acceptable: GET needs Accept: text/event-stream");
  const lastEventId = request.headers.get("Last-Event-ID")?.trim() || undefined;
  return askSession(request, deps, false, (stub, caller) => stub.openGet({ ...caller, lastEventId, maxLive: deps.config.sessionMaxLive }));
}

export function serveLegacyDelete(request: Request, deps: Admitted): Promise<Response> {
  return askSession(request, deps, false, async (stub, caller) => {
    const done = await stub.terminate(caller);
    return done.kind === "accepted" ? new Response(null, { status: 200 }) : done;
  });
}
