/**
 * The 2026-07-28 lane: stateless, in the Worker that received the request.
 * Validation follows the ladder of DIGEST §4.12 — version header, _meta
 * envelope, version match, supported version, routing headers, method,
 * Mcp-Param-* — then the core dispatches. The answer is JSON unless the
 * handler emits a notification first, in which case it becomes SSE.
 */
import type { Config } from "../config";
import type { HandlerContext, Notifier } from "../mcp/context";
import { INPUT_METHODS, MODERN_METHODS, dispatch, hasMethod } from "../mcp/dispatch";
import { encodeInputRequired, encodeModernResult, toMcpError } from "../mcp/encode";
import { ErrorCode, McpError, invalidParams, methodNotFound } from "../mcp/errors";
import { Input, InputRequired } from "../mcp/input";
import { notification, resultResponse, type JsonRpcRequest } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type LogLevel } from "../mcp/types";
import { META, MODERN_VERSION, SUPPORTED_VERSIONS, isLegacyVersion } from "../mcp/versions";
import { checkParamHeaders, checkRoutingHeaders, headerValue } from "./headers";
import { closeRound, openRound, type RoundInput } from "./input-state";
import { json, rpcError } from "./responses";
import { SseStream } from "./sse";

export interface LaneDeps {
  reg: Registry;
  config: Config;
  env: unknown;
  waitUntil(p: Promise<unknown>): void;
  notify: Notifier;
  principal?: string;
  /** Serves subscriptions/listen (it needs the hub). */
  listen(request: JsonRpcRequest, envelope: Envelope): Promise<Response>;
}

export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
  progressToken?: string | number;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Steps 1–8 of the ladder; throws the McpError (with its HTTP status) of the first failed step. */
export function validateModernRequest(request: Request, msg: JsonRpcRequest, reg: Registry): Envelope {
  const params = msg.params ?? {};
  const headerVersion = headerValue(request.headers, "MCP-Protocol-Version");
  if (headerVersion === undefined) throw new McpError(ErrorCode.HeaderMismatch, "Missing MCP-Protocol-Version header", undefined, 400);

  const meta = params._meta;
  if (!isObject(meta)) throw invalidParams("params._meta is required on every 2026-07-28 request", undefined, 400);
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") throw invalidParams(`params._meta["${META.protocolVersion}"] is required`, undefined, 400);
  const caps = meta[META.clientCapabilities];
  if (!isObject(caps)) throw invalidParams(`params._meta["${META.clientCapabilities}"] is required (an object)`, undefined, 400);

  if (headerVersion !== version)
    throw new McpError(ErrorCode.HeaderMismatch, `MCP-Protocol-Version header "${headerVersion}" does not match _meta "${version}"`, undefined, 400);
  if (version !== MODERN_VERSION) {
    // A legacy revision only exists inside an initialize session; listing it as "supported" here
    // would send a client that retries with a mutual version straight back to the same error.
    const legacy = isLegacyVersion(version);
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      legacy
        ? `Protocol version ${version} needs an initialize session; per-request _meta is served for ${MODERN_VERSION}`
        : `Unsupported protocol version: ${version}`,
      { supported: legacy ? [MODERN_VERSION] : SUPPORTED_VERSIONS, requested: version },
      400,
    );
  }

  checkRoutingHeaders(request.headers, msg.method, params);
  if (msg.method !== "subscriptions/listen" && !hasMethod(MODERN_METHODS, reg, msg.method)) throw methodNotFound(msg.method);

  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel))
    throw invalidParams(`Invalid log level: ${String(logLevel)}`, undefined, 400);
  const progressToken = meta.progressToken;
  if (progressToken !== undefined && typeof progressToken !== "string" && !Number.isSafeInteger(progressToken))
    throw invalidParams("progressToken must be a string or an integer", undefined, 400);
  const clientInfo = meta[META.clientInfo];

  if (msg.method === "tools/call" && typeof params.name === "string") {
    const tool = reg.tools.get(params.name);
    if (tool) checkParamHeaders(request.headers, tool, params.arguments);
  }
  return {
    protocolVersion: version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: isObject(clientInfo) ? (clientInfo as unknown as Implementation) : undefined,
    logLevel: logLevel as LogLevel | undefined,
    progressToken: progressToken as string | number | undefined,
  };
}

export async function serveModernRequest(request: Request, msg: JsonRpcRequest, deps: LaneDeps): Promise<Response> {
  let envelope: Envelope;
  try {
    envelope = validateModernRequest(request, msg, deps.reg);
  } catch (err) {
    const e = toMcpError(err);
    return rpcError(msg.id, e.toJSON(), e.status ?? 400);
  }
  if (msg.method === "subscriptions/listen") return deps.listen(msg, envelope);
  return run(request, msg, envelope, deps);
}

interface Outcome {
  body: unknown;
  status: number;
}

/** Runs the handler; answers JSON, or switches to SSE at the first notification it emits. */
async function run(request: Request, msg: JsonRpcRequest, envelope: Envelope, deps: LaneDeps): Promise<Response> {
  const { reg, config } = deps;
  const params = msg.params ?? {};
  const abort = new AbortController();
  // A client that goes away cancels its request (2026-07-28).
  request.signal?.addEventListener("abort", () => abort.abort());

  let sse: SseStream | undefined;
  let finished = false;
  let switchToSse!: () => void;
  const switched = new Promise<null>((resolve) => (switchToSse = () => resolve(null)));
  const emit = (method: string, p: Record<string, unknown>) => {
    if (finished || abort.signal.aborted) return;
    if (!sse) {
      sse = new SseStream(() => abort.abort());
      sse.startKeepAlive();
      switchToSse();
    }
    sse.send(notification(method, p));
  };

  let lastProgress = -Infinity;
  const minLevel = envelope.logLevel ? LOG_LEVELS.indexOf(envelope.logLevel) : Infinity;
  const bind = {
    method: msg.method,
    target: String(params.name ?? params.uri ?? ""),
    principal: deps.principal ?? "",
  };

  const work = (async (): Promise<Outcome> => {
    let round: RoundInput = { answers: {}, state: undefined };
    try {
      if (INPUT_METHODS.has(msg.method)) round = await openRound(params, bind, config.stateSecret);
      const ctx: HandlerContext = {
        era: "modern",
        protocolVersion: envelope.protocolVersion,
        clientCapabilities: envelope.clientCapabilities,
        clientInfo: envelope.clientInfo,
        signal: abort.signal,
        progress(progress, total, message) {
          if (envelope.progressToken === undefined || !(progress > lastProgress)) return;
          lastProgress = progress;
          emit("notifications/progress", { progressToken: envelope.progressToken, progress, total, message });
        },
        log(level, data, logger) {
          if (LOG_LEVELS.indexOf(level) < minLevel) return;
          emit("notifications/message", logger ? { level, logger, data } : { level, data });
        },
        input: new Input(round.answers, round.state, envelope.clientCapabilities),
        notify: deps.notify,
        closeStream() {},
        env: deps.env,
        principal: deps.principal,
      };
      const result = await dispatch(MODERN_METHODS, reg, msg.method, params, ctx);
      return { body: resultResponse(msg.id, encodeModernResult(msg.method, result, reg, deps.principal)), status: 200 };
    } catch (err) {
      if (err instanceof InputRequired && INPUT_METHODS.has(msg.method)) {
        try {
          const { inputRequests, requestState } = await closeRound(err, round, bind, config.stateSecret, config.inputStateTtlSeconds);
          return { body: resultResponse(msg.id, encodeInputRequired(stripLegacyFields(inputRequests), requestState, reg)), status: 200 };
        } catch (sealErr) {
          err = sealErr;
        }
      }
      const e = toMcpError(err);
      return { body: { jsonrpc: "2.0", id: msg.id, error: e.toJSON() }, status: e.status ?? 200 };
    } finally {
      finished = true;
    }
  })();

  const first = await Promise.race([work, switched]);
  if (first) return json(first.body, first.status);
  deps.waitUntil(
    work.then((outcome) => {
      if (!abort.signal.aborted) sse!.send(outcome.body);
      sse!.close();
    }),
  );
  return sse!.response;
}

/** URL elicitations carry no elicitationId in 2026-07-28. */
function stripLegacyFields(requests: Record<string, import("../mcp/input").InputRequest>) {
  const out: typeof requests = {};
  for (const [key, r] of Object.entries(requests)) {
    if (r.method === "elicitation/create" && r.params.mode === "url") {
      const { elicitationId: _id, ...params } = r.params;
      out[key] = { method: r.method, params };
    } else out[key] = r;
  }
  return out;
}
