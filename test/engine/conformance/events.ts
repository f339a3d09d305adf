/**
 * The MCP Events contract of this project's fixture (EVENTS.md §14): `test_event` on a topic, with a
 * replay log, and `emit_test_event`, which emits `count` occurrences for a topic with `seq` increasing.
 * Webhooks need a principal (the fixture's bearer tokens); under `npm run dev:conformance` (MCP_DEV=on)
 * callbacks at http://127.0.0.1 are accepted, so a receiver on the test machine works.
 */
import * as v from "valibot";
import { defineEvent, defineTool, emit, events } from "../../../src/mcp";

const testEvent = defineEvent({
  name: "test_event",
  description: "A conformance test occurrence on a topic.",
  input: v.object({ topic: v.string() }),
  payload: v.object({ topic: v.string(), text: v.string(), seq: v.number() }),
  delivery: ["poll", "push", "webhook"],
  replay: { maxEvents: 10_000 },
});

const emitTestEvent = defineTool({
  name: "emit_test_event",
  description: "Emits `count` test_event occurrences for a topic (seq 1, 2, …).",
  input: v.object({
    topic: v.string(),
    text: v.string(),
    count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 1),
  }),
  handler: async ({ topic, text, count }, ctx) => {
    for (let seq = 1; seq <= count; seq++) await emit(ctx.env, "test_event", { topic, text, seq }, { match: { topic } });
    return `emitted ${count} test_event for ${topic}`;
  },
});

// Roomy bounds, so the events bench (test/engine/e2e/events-bench.mjs) can hold 1,000 subscriptions of one principal on one receiver host.
export const testEvents = events([testEvent], { maxSubscriptionsPerPrincipal: 2000, verificationsPerMinute: 2000 });

export const eventTools = [emitTestEvent];
