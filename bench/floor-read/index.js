// The same-log floor (bench/floor-log) that also reads the request's JSON body and answers with the
// id it carries: the least any server that answers a JSON-RPC POST does beyond a fixed reply. Beside
// floor-log it shows what leaving the body unread costs workerd: this floor read 0.85–0.92× of
// floor-log in four readings on 2026-12-07 (bench/spans.mjs), so a call's ratio to floor-log
// understates the engine's own part.
export default {
  async fetch(request) {
    const started = Date.now();
    const message = await request.json();
    console.log(
      JSON.stringify({
        mcp: "request",
        revision: "2026-07-28",
        lane: "modern",
        method: message.method,
        name: message.params?.name,
        outcome: "result",
        durationMs: Date.now() - started,
      }),
    );
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "ok" }], isError: false } });
    return new Response(body, { headers: { "Content-Type": "application/json" } });
  },
};
