// The same-log floor (bench/floor-log) plus the one span the engine makes for a 2026-07-28
// tools/call when the invocation is traced: the same name, the same attributes, set once as the
// engine sets them (src/engine/mcp/tracing.ts). Beside floor-log, both traced, it reads what the
// runtime and the local trace collector take to record one such span, with no engine code around it.
import { tracing } from "cloudflare:workers";

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

function answer() {
  const started = Date.now();
  console.log(
    JSON.stringify({
      mcp: "request",
      revision: "2026-07-28",
      lane: "modern",
      method: "tools/call",
      name: "convert_temperature",
      outcome: "result",
      durationMs: Date.now() - started,
    }),
  );
  return new Response(BODY, { headers: { "Content-Type": "application/json" } });
}

export default {
  fetch() {
    if (!tracing.getActiveSpan()?.isTraced) return answer();
    return tracing.enterSpan("tools/call convert_temperature", (span) => {
      const response = answer();
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
