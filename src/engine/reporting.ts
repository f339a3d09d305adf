/** How a lane asks the executor to report a request: the settings, the metrics binding, the app's hooks. */
import type { Quirks } from "./mcp/quirks";
import { tracing } from "cloudflare:workers";
import type { Config } from "./config";
import type { Env } from "./env";
import { registeredTarget, type Registry } from "./mcp/registry";
import type { JsonRpcRequest } from "./mcp/jsonrpc";
import { pseudonym, type Reporting, type TraceContext } from "./mcp/telemetry";
import { endAttributes, operationAttributes, type SpanLike, type Tracer } from "./mcp/tracing";

/** The platform's tracer, unless TRACING=off. */
export const tracerFor = (config: Config): Tracer | undefined => (config.tracing ? tracing : undefined);

/** `quirks`: the hosted-client quirks the edge served in the request (http/quirks.ts), for its log line and data point. */
export function reportingFor(
  config: Config,
  env: Pick<Env, "MCP_METRICS">,
  reg: Registry,
  trace: TraceContext,
  sessionId?: string,
  requestId?: string | number,
  quirks?: Quirks,
): Reporting {
  return {
    quirks,
    volume: config.logRequests,
    metrics: env.MCP_METRICS,
    hooks: reg.hooks,
    trace,
    sessionId,
    salt: config.stateSecret,
    registered: (guard) => registeredTarget(reg, guard),
    tracer: tracerFor(config),
    requestId,
  };
}

/**
 * The span of the one 2025 request served without the executor (initialize, in the Worker, before
 * there is a session to run it in): the method's attributes, the session
 * (hashed), the task asked about, and the code of the JSON-RPC error it ended with, with an error
 * status, as the executor's spans end.
 */
export const tagServed = async (
  span: SpanLike,
  req: JsonRpcRequest,
  protocolVersion: string,
  sessionId: string | undefined,
  config: Config,
  error?: { code: number },
) =>
  endAttributes(
    span,
    operationAttributes(req.method, undefined, undefined, protocolVersion, undefined, req.id),
    { outcome: error ? "error" : "result", errorCode: error?.code, session: sessionId && (await pseudonym(sessionId, config.stateSecret)) },
    req.params?.taskId,
  );
