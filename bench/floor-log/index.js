// The floor with a log line: the bare Worker plus what every request of a default engine app writes,
// one JSON log line of the same fields and length as the 2026-07-28 tools/call's request line
// (LOG_REQUESTS=all is the default). Against this, the engine's Worker CPU per call shows what its
// own code costs apart from what any Worker that logs one line per request pays.
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }], isError: false } });

export default {
  fetch() {
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
  },
};
