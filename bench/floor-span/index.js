// The same-log floor (bench/floor-log) plus the one span the engine makes for a 2026-07-28
// tools/call when the invocation is traced: the same name, the same attributes, set once as the
// engine sets them (src/engine/mcp/tracing.ts). Beside floor-log, both traced, it reads what the
// runtime and the local trace collector take to record one such span, with no engine code around it.
import { tracing } from "cloudflare:workers";
import floorLog from "../floor-log/index.js";

export default {
  fetch(request, env, ctx) {
    if (!tracing.getActiveSpan()?.isTraced) return floorLog.fetch(request, env, ctx);
    return tracing.enterSpan("tools/call convert_temperature", (span) => {
      const response = floorLog.fetch(request, env, ctx);
      span.setAttributes({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": "2026-07-28",
        "jsonrpc.request.id": "1",
        "gen_ai.tool.name": "convert_temperature",
      });
      return response;
    });
  },
};
