// Why: the cost phase's section of the bench report (bench/lib/cost.mjs measures, this prints).
import { fmt } from "./format.mjs";

const table = (head, lines) =>
  [
    `| ${head.join(" | ")} |`,
    `|---|${head
      .slice(1)
      .map(() => "---:")
      .join("|")}|`,
    ...lines.map((l) => `| ${l.join(" | ")} |`),
  ].join("\n");
const n2 = (n) => (Number.isFinite(n) ? (n === 0 ? "0" : n < 10 ? n.toFixed(2) : n.toFixed(1)) : "–");
const usd = (n) => (Number.isFinite(n) ? `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}` : "–");

/** What the engine's rows are priced at: the template's wrangler.toml (bench/lib/cost.mjs billedSettings). */
const billedAt = (billed) =>
  billed
    ? `this template's at the defaults of its wrangler.toml (Workers Logs invocation records ${billed.engine.invocationLogs ? "on" : "off"}, Analytics Engine metrics ${billed.engine.metrics ? "bound" : "not bound"}; the counts above are of the engine test app, which binds the metrics for its tests), each peer at its own`
    : "every invocation record and metrics point priced";

/** The section: what each operation makes the platform do, and a million of it at list prices. */
export function costSection(cost) {
  const ops = Object.values(cost.ops);
  const p = cost.prices;
  const per = (x) => `$${(x * 1e6).toFixed(2)}`;
  return `## What a million calls cost, all in (Cloudflare list prices as of ${cost.pricesAsOf})

Prices (bench/lib/prices.mjs), per million beyond the Workers Paid plan's included amounts: Worker requests ${per(p.workerRequest)}, Worker CPU ${per(p.workerCpuMs)} per million ms, Durable Object requests ${per(p.doRequest)} (${p.doWebSocketMessagesPerRequest} incoming WebSocket messages count as one), Durable Object duration ${per(p.doGbSecond)} per million GB-s at ${p.doMemoryGb} GB, SQLite rows written ${per(p.sqliteRowWritten)}, Analytics Engine data points ${per(p.analyticsDataPoint)}, Workers Logs events ${per(p.logEvent)}.

What one operation makes the platform do, counted from \`wrangler dev\`'s local trace store (the spans the runtime records for every invocation and SQL statement; each operation run 10 times after one to warm, one after another), and the workerd CPU per operation served straight from workerd (Miniflare, ${cost.spans.rounds} interleaved rounds; no trace collector but for the spans' traced pair below). Durable Object time is the wall time of its invocations, each counted as at least 1 ms. The CPU includes the Durable Objects' (billed as duration, not CPU), so the Worker CPU line is an upper bound. Log events are the console lines (the engine's one request line among them, also one Analytics Engine point each with MCP_METRICS bound) plus one invocation record per Worker or object invocation.

${table(
  [
    "operation",
    "Worker requests",
    "DO requests",
    "WS messages into DOs",
    "DO wall ms",
    "SQLite rows written (alarms set)",
    "console lines",
    "AE points",
    "invocations",
    "MCP spans",
    "workerd CPU µs",
  ],
  ops.map((o) => [
    o.label,
    n2(o.counts.workerRequests),
    n2(o.counts.doRequests),
    n2(o.counts.wsMessages),
    n2(o.counts.doWallMs),
    `${n2(o.counts.rowsWritten)} (${n2(o.counts.alarmsSet ?? 0)})`,
    n2(o.counts.consoleLines),
    n2(o.counts.requestLines),
    n2(o.counts.invocations),
    n2(o.counts.mcpSpans),
    fmt.us(o.cpuUs),
  ]),
)}

A million of each, in USD, ${billedAt(cost.billed)}:

${table(
  [
    "operation",
    "Worker requests",
    "Worker CPU",
    "DO requests",
    "DO duration",
    "rows written",
    "Analytics Engine",
    "Workers Logs",
    "**total**",
  ],
  ops.map((o) => [
    o.label,
    usd(o.bill.workerRequests),
    usd(o.bill.workerCpu),
    usd(o.bill.doRequests),
    usd(o.bill.doDuration),
    usd(o.bill.rowsWritten),
    usd(o.bill.analytics),
    usd(o.bill.logs),
    `**${usd(o.bill.total)}**`,
  ]),
)}

Spans (docs/tracing.md), a 2026-07-28 \`tools/call\` in the same rounds, each on a server of its own: traced (every span recorded by the local trace collector, whose CPU is in the figure), ${fmt.us(cost.spans.on)} µs of workerd CPU with spans against ${fmt.us(cost.spans.off)} µs with \`TRACING=off\` (${fmt.ratio(cost.spans.on, cost.spans.off)}); a second server with \`TRACING=off\`, ${fmt.us(cost.spans.control)} µs (${fmt.ratio(cost.spans.control, cost.spans.off)}: the noise of this run). Untraced (sampled out: the engine makes no span, only checks), ${fmt.us(cost.spans.untracedOn)} µs against ${fmt.us(cost.spans.untracedOff)} µs (${fmt.ratio(cost.spans.untracedOn, cost.spans.untracedOff)}).`;
}
