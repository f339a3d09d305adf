// Why: "what a million calls cost" is the bench's own measurements times Cloudflare's list prices;
// the prices live here, once, with the date they were read, so a reader can check them and the
// next person can update them in one place.
//
// Cloudflare's published list prices for the Workers Paid plan (USD), per unit beyond the monthly
// amounts the plan includes (those are left out: a million calls on top of a busy month pay these):
//   Workers (Standard): requests and CPU time, https://developers.cloudflare.com/workers/platform/pricing/
//   Durable Objects: requests (an RPC or fetch to an object, an alarm; 20 incoming WebSocket messages
//     count as one) and duration (wall-clock while active, at 128 MB per object),
//     https://developers.cloudflare.com/durable-objects/platform/pricing/
//   SQLite-backed Durable Object storage: rows written (rows read are 1/1000 of that and left out)
//   Workers Analytics Engine: data points written, https://developers.cloudflare.com/analytics/analytics-engine/pricing/
//   Workers Logs: log events (each console line and each invocation's own record),
//     https://developers.cloudflare.com/workers/observability/logs/workers-logs/#pricing
// As of PRICES_AS_OF, from those pages as last read by the author; this machine has no network to
// read them again, so check them before quoting a figure.
export const PRICES_AS_OF = "2025-11, Workers Paid plan";

export const PRICES = {
  workerRequest: 0.3 / 1e6,
  workerCpuMs: 0.02 / 1e6,
  doRequest: 0.15 / 1e6,
  /** Per GB-second; an object is billed at 128 MB (0.125 GB) however little it uses. */
  doGbSecond: 12.5 / 1e6,
  doMemoryGb: 0.125,
  /** Incoming WebSocket messages to a Durable Object are billed as requests at this ratio. */
  doWebSocketMessagesPerRequest: 20,
  sqliteRowWritten: 1.0 / 1e6,
  analyticsDataPoint: 0.25 / 1e6,
  logEvent: 0.6 / 1e6,
};
