// Why: MCP Events fan one emit out to every subscription on its topic from the type's Durable Object.
// This measures, under real `wrangler dev` (the conformance fixture, MCP_DEV=on, a receiver on
// 127.0.0.1), for 100 and 1,000 webhook subscriptions on one topic: how long the publisher waits for
// emit_test_event to return, and emit → delivered at the receiver, p50 and p99; and the CPU the
// Worker's workerd process (which runs the Worker and the type's Durable Object) spends per delivery,
// from /proc as bench/lib/procstat.mjs reads it (Linux), from just before the emit until the last
// delivery arrived. Figures from a shared machine under `wrangler dev`: an order of magnitude, not a
// production latency. docs/cost.md quotes them.
//
//   node test/engine/e2e/events-bench.mjs [counts…]     (default: 100 1000)
import { randomBytes } from "node:crypto";
import http from "node:http";
import { freePort, startWrangler } from "./server.mjs";
import { sleep } from "../../../scripts/lib/procs.mjs";
import { cpuDelta, cpuMs, wranglerProcesses } from "../../../bench/lib/procstat.mjs";

const counts = process.argv.slice(2).map(Number).filter(Boolean);
const secret = `whsec_${randomBytes(32).toString("base64")}`;
const port = await freePort();
let arrivals = [];
const receiver = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const json = JSON.parse(body);
    if (json.type === "verification")
      return res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ challenge: json.challenge }));
    arrivals.push(Date.now());
    res.writeHead(204).end();
  });
});
await new Promise((r) => receiver.listen(Number(port), "127.0.0.1", () => r(undefined)));

let id = 1;
async function rpc(url, method, params) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "events-bench", version: "0" },
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    Authorization: "Bearer mcp-conformance-scope-full",
  };
  if (method === "tools/call") headers["Mcp-Name"] = params.name;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params: { ...params, _meta: meta } }),
  });
  const text = await res.text();
  const json = JSON.parse(text.includes("data: ") ? text.split("data: ").pop() : text);
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const server = await startWrangler({ config: "test/engine/conformance/wrangler.toml", vars: { MCP_DEV: "on" }, logLevel: "warn" });
try {
  for (const n of counts.length ? counts : [100, 1000]) {
    const topic = `bench-${n}`;
    for (let i = 0; i < n; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, n - i) }, (_, k) =>
          rpc(server.url, "events/subscribe", {
            name: "test_event",
            arguments: { topic },
            delivery: { mode: "webhook", url: `http://127.0.0.1:${port}/hook/${n}/${i + k}`, secret },
            cursor: null,
          }),
        ),
      );
    arrivals = [];
    const procs = wranglerProcesses(new URL(server.origin).port);
    const before = cpuMs(procs);
    const t0 = Date.now();
    await rpc(server.url, "tools/call", { name: "emit_test_event", arguments: { topic, text: "bench" } });
    const returned = Date.now() - t0;
    const deadline = Date.now() + 120_000;
    while (arrivals.length < n && Date.now() < deadline) await sleep(20);
    const cpu = cpuDelta(before, cpuMs(procs));
    const lat = arrivals.map((a) => a - t0).sort((a, b) => a - b);
    const perDelivery = cpu
      ? `; workerd CPU ${(cpu.worker / Math.max(lat.length, 1)).toFixed(2)} ms a delivery (${cpu.worker} ms in all)`
      : "";
    console.log(
      `${n} subscriptions: publisher returned in ${returned} ms; delivered ${lat.length}/${n}; emit → delivered p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms, last ${lat.at(-1)} ms${perDelivery}`,
    );
  }
} finally {
  await server.stop();
  receiver.close();
}
