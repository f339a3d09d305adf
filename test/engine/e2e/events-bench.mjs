// Why: the events drill of `npm run bench` (bench/lib/events.mjs) on its own, for a quick reading
// while working on MCP Events: for each count of webhook subscriptions on one topic, held by one
// principal (one shard) and by 100 (spread over the shards), the publisher's wait, emit → delivered
// p50 and p99, the workerd CPU per delivery and what a million deliveries cost. Figures from a
// shared machine under `wrangler dev`: an order of magnitude, not a production latency.
//
//   node test/engine/e2e/events-bench.mjs [counts…]     (default: 100 1000)
import { eventsPhase } from "../../../bench/lib/events.mjs";

const counts = process.argv.slice(2).map(Number).filter(Boolean);
const { errors } = await eventsPhase({ counts: counts.length ? counts : undefined }, (line) => console.log(line));
if (errors.length) {
  console.error(errors.join("\n"));
  process.exit(1);
}
