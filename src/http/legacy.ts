/**
 * The 2025-11-25 lane (and 2025-06-18 / 2025-03-26): `initialize` creates a
 * session object; every later POST, GET and DELETE names it with
 * Mcp-Session-Id and is forwarded to it. This file only does the HTTP side:
 * headers, status codes, and turning the object's answers into JSON or SSE.
 */
import type { Config, Env } from "../config";
import { ErrorCode, invalidParams } from "../mcp/errors";
import { resultResponse, type JsonRpcRequest, type Message } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import type { ClientCapabilities, Implementation } from "../mcp/types";
import { LEGACY_VERSIONS, isLegacyVersion, isModernVersion } from "../mcp/versions";
import type { LegacyAnswer } from "../objects/session";
import { toBase64url } from "./base64url";
import { relayStream } from "./relay";
import { accepted, json, methodNotAllowed, reject, rpcError } from "./responses";

export interface LegacyDeps {
  reg: Registry;
  config: Config;
  env: Env;
  principal: string;
}

/** Our ids: 256 random bits, base64url. Anything else cannot be a session of ours. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

const newSessionId = () => toBase64url(crypto.getRandomValues(new Uint8Array(32)));

const sessionStub = (env: Env, id: string) => env.MCP_SESSION.get(env.MCP_SESSION.idFromName(id));

const notFound = () => reject(404, ErrorCode.InvalidRequest, "Session not found; send initialize again");

/** The session named by the request, or the HTTP error to answer. */
function sessionOf(request: Request, env: Env): Response | DurableObjectStub<import("../objects/session").SessionObject> {
  const id = request.headers.get("Mcp-Session-Id")?.trim();
  // A 2026-07-28 client has no session: GET and DELETE do not exist for it (POST only).
  if (!id && request.method !== "POST" && isModernVersion(request.headers.get("MCP-Protocol-Version")?.trim())) return methodNotAllowed("POST");
  if (!id) return reject(400, ErrorCode.InvalidRequest, "Bad Request: Mcp-Session-Id header is required (send initialize first)");
  if (!SESSION_ID.test(id)) return notFound();
  return sessionStub(env, id);
}

/** MCP-Protocol-Version on session traffic: absent means the negotiated one; anything unknown is 400. */
function checkVersionHeader(request: Request): Response | null {
  const v = request.headers.get("MCP-Protocol-Version")?.trim();
  if (v === undefined || isLegacyVersion(v)) return null;
  return reject(400, ErrorCode.InvalidRequest, `Bad Request: unsupported MCP-Protocol-Version "${v}" for a session (supported: ${LEGACY_VERSIONS.join(", ")})`);
}

async function answer(result: LegacyAnswer, stub: DurableObjectStub<import("../objects/session").SessionObject>): Promise<Response> {
  if ("stream" in result) return relayStream(stub, result.stream, result.after);
  if (result.status === 202) return accepted();
  return json(result.json ?? {}, result.status);
}

export async function serveLegacyPost(request: Request, msg: Message, deps: LegacyDeps): Promise<Response> {
  if (msg.kind === "request" && msg.message.method === "initialize" && !request.headers.has("Mcp-Session-Id")) {
    return initialize(msg.message, deps);
  }
  const bad = checkVersionHeader(request);
  if (bad) return bad;
  const stub = sessionOf(request, deps.env);
  if (stub instanceof Response) return stub;
  return answer(await stub.handle({ message: msg, principal: deps.principal }), stub);
}

async function initialize(req: JsonRpcRequest, deps: LegacyDeps): Promise<Response> {
  const p = req.params ?? {};
  const isObj = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
  if (typeof p.protocolVersion !== "string" || !isObj(p.capabilities) || !isObj(p.clientInfo)) {
    return rpcError(req.id, invalidParams("initialize needs params.protocolVersion, params.capabilities and params.clientInfo").toJSON(), 400);
  }
  // Echo a legacy revision we speak; otherwise offer our newest legacy one (never 2026-07-28: it has no handshake).
  const protocolVersion = isLegacyVersion(p.protocolVersion) ? p.protocolVersion : LEGACY_VERSIONS[0];
  const sessionId = newSessionId();
  await sessionStub(deps.env, sessionId).initialize({
    sessionId,
    principal: deps.principal,
    protocolVersion,
    clientCapabilities: p.capabilities as ClientCapabilities,
    clientInfo: p.clientInfo as Implementation,
  });
  const { reg } = deps;
  const result = {
    protocolVersion,
    capabilities: reg.capabilities,
    serverInfo: reg.info,
    ...(reg.instructions ? { instructions: reg.instructions } : {}),
  };
  return json(resultResponse(req.id, result), 200, { "Mcp-Session-Id": sessionId });
}

export async function serveLegacyGet(request: Request, deps: LegacyDeps): Promise<Response> {
  const accept = request.headers.get("Accept") ?? "";
  if (!/text\/event-stream|\*\/\*/.test(accept)) return reject(406, ErrorCode.InvalidRequest, "Not Acceptable: GET needs Accept: text/event-stream");
  const stub = sessionOf(request, deps.env);
  if (stub instanceof Response) return stub;
  const bad = checkVersionHeader(request);
  if (bad) return bad;
  const lastEventId = request.headers.get("Last-Event-ID")?.trim() || undefined;
  return answer(await stub.openGet({ principal: deps.principal, lastEventId }), stub);
}

export async function serveLegacyDelete(request: Request, deps: LegacyDeps): Promise<Response> {
  const stub = sessionOf(request, deps.env);
  if (stub instanceof Response) return stub;
  const bad = checkVersionHeader(request);
  if (bad) return bad;
  return (await stub.terminate(deps.principal)) ? new Response(null, { status: 200 }) : notFound();
}
