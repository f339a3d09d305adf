/** How a lane asks the executor to report a request: the settings, the metrics binding, the app's hooks. */
import type { Config } from "./config";
import type { Env } from "./env";
import { registeredTarget, type Registry } from "./mcp/registry";
import type { Reporting, TraceContext } from "./mcp/telemetry";

export function reportingFor(config: Config, env: Pick<Env, "MCP_METRICS">, reg: Registry, trace: TraceContext, sessionId?: string): Reporting {
  return {
    volume: config.logRequests,
    metrics: env.MCP_METRICS,
    hooks: reg.hooks,
    trace,
    sessionId,
    salt: config.stateSecret,
    registered: (method, target) => registeredTarget(reg, method, target),
  };
}
