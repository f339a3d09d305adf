/** How a lane asks the executor to report a request: the settings, the metrics binding, the app's hooks. */
import { tracing } from "cloudflare:workers";
import type { Config } from "./config";
import type { Env } from "./env";
import { registeredTarget, type Registry } from "./mcp/registry";
import type { JsonRpcRequest } from "./mcp/jsonrpc";
import { pseudonym, readTrace, type Reporting, type TraceContext } from "./mcp/telemetry";
import { operationAttributes, type SpanLike, type Tracer } from "./mcp/tracing";

/** The platform's tracer, unless TRACING=off. */
export const tracerFor = (config: Config): Tracer | undefined => (config.tracing ? tracing : undefined);

export function reportingFor(config: Config, env: Pick<Env, "MCP_METRICS">, reg: Registry, trace: TraceContext, sessionId?: string, requestId?: string | number): Reporting {
  return {
    volume: config.logRequests,
    metrics: env.MCP_METRICS,
    hooks: reg.hooks,
    trace,
    sessionId,
    salt: config.stateSecret,
    registered: (method, target) => registeredTarget(reg, method, target),
    tracer: tracerFor(config),
    requestId,
  };
}

/** What a 2025 initialize's span says, the Worker answering it without the executor: its version and new session (hashed). */
export const tagInitialize = async (span: SpanLike, req: JsonRpcRequest, protocolVersion: string, sessionId: string, config: Config) =>
  span.setAttributes({ ...operationAttributes("initialize", undefined, protocolVersion, readTrace(req.params?._meta).traceparent, req.id), "mcp.session.id": await pseudonym(sessionId, config.stateSecret) });
