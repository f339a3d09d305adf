// The floor with the platform parts a default engine app uses on every request, and nothing of the
// engine: Static Assets in front (run_worker_first, simulated by wrangler dev as a Worker of its own),
// one call to the Rate Limiting binding, and one log line (which wrangler dev carries through its
// inspector to its own process). Against this, the engine's requests/s under wrangler dev shows what
// its own code costs apart from what any Worker with the same settings pays locally.
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

export default {
  async fetch(request, env) {
    const started = Date.now();
    const { success } = await env.MCP_RATE_LIMIT.limit({ key: request.headers.get("CF-Connecting-IP") ?? "local" });
    if (!success) return new Response("{}", { status: 429 });
    console.log(
      JSON.stringify({
        mcp: "request",
        revision: "2026-07-28",
        lane: "modern",
        method: "tools/call",
        name: "floor",
        outcome: "result",
        durationMs: Date.now() - started,
      }),
    );
    return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  },
};
