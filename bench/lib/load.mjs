// Why: `npm run load` proves both lanes hold up under concurrent clients against a real
// `wrangler dev` of the engine test app. Each phase runs bounded traffic and returns what
// it measured; the script decides what to print (bench/lib/report.mjs).
import { LegacySession, checkConvert, convertArgs, modernCall } from "./mcp.mjs";
import { runLoad, timed } from "./runner.mjs";

/** 2026-07-28: stateless `tools/call convert_temperature`, after an unmeasured warm-up. */
export async function modernPhase(client, { total, concurrency, maxMs, warmup = Math.min(500, total) }) {
  const op = async (i) => checkConvert(i, await modernCall(client, "tools/call", convertArgs(i)));
  await runLoad({ name: "warm-up", total: warmup, concurrency, maxMs: 60_000, op });
  return runLoad({ name: `2026-07-28 tools/call convert_temperature ×${total}`, total, concurrency, maxMs, op });
}

/**
 * 2025-11-25: `sessions` concurrent sessions that each initialize, list tools, call `greet`
 * with its elicitation round trip (elicitation/create on the call's SSE stream → the client
 * POSTs its answer → the result arrives on the stream) and DELETE.
 * Returns the run, the HTTP requests and round trips it made, and each step's latencies.
 */
export async function sessionsPhase(client, { sessions, maxMs }) {
  const steps = {};
  let httpRequests = 0;
  let roundTrips = 0;
  const run = await runLoad({
    name: `2025-11-25 sessions ×${sessions} (initialize, tools/list, greet + elicitation, DELETE)`,
    total: sessions,
    concurrency: sessions,
    maxMs,
    op: async (i) => {
      const session = new LegacySession(client, { capabilities: { elicitation: {} } });
      await timed(steps, "initialize", () => session.open()); // initialize + notifications/initialized
      httpRequests += 2;
      const list = await timed(steps, "tools/list", () => session.call("tools/list"));
      httpRequests++;
      if (!list.tools?.some((t) => t.name === "greet")) throw new Error("tools/list has no greet");
      const name = `user-${i}`;
      const { result, serverRequests } = await timed(steps, "tools/call greet (with elicitation)", () =>
        session.callWithInput("tools/call", { name: "greet", arguments: {} }, (req) => {
          if (req.method !== "elicitation/create") throw new Error(`unexpected server request ${req.method}`);
          return { action: "accept", content: { name } };
        }),
      );
      httpRequests += 1 + serverRequests;
      roundTrips += serverRequests;
      if (serverRequests !== 1) throw new Error(`greet sent ${serverRequests} server requests, expected 1`);
      const text = result.content?.[0]?.text;
      if (text !== `Hello, ${name}!`) throw new Error(`greet answered ${JSON.stringify(text)}`);
      await timed(steps, "DELETE", () => session.close());
      httpRequests++;
    },
  });
  return { run, httpRequests, roundTrips, steps };
}
