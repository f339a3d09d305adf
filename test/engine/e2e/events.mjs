// Why: MCP Events promise deliveries a stock Standard Webhooks verifier accepts, on time, retried, and
// kept across a full restart of the server. This runs the conformance fixture (test_event,
// emit_test_event; EVENTS.md §14) under real `wrangler dev` with MCP_DEV=on, and a receiver on
// 127.0.0.1 that checks every request with the `standardwebhooks` package (never the engine's code):
// three deliveries within 10 s of the emit; a receiver answering 500, 500, 200 gets the third attempt
// within 60 s and nothing after the 2xx; an event whose first attempt failed is delivered after
// `wrangler dev` is killed and started again on the same state.
//
//   node test/engine/e2e/events.mjs      (npm run test:all runs it too)
import { randomBytes } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { sleep } from "../../../scripts/lib/procs.mjs";
import { assert } from "./checks.mjs";
import { acrossRestarts } from "./restarts.mjs";
import { freePort } from "./server.mjs";

const CONFIG = "test/engine/conformance/wrangler.toml";
const TOKEN = "mcp-conformance-scope-full";
const secret = `whsec_${randomBytes(32).toString("base64")}`;

/** The receiver: verifies, answers the handshake, answers deliveries from a script (then 200). */
async function startReceiver() {
  const port = await freePort();
  const state = { deliveries: [], controls: [], bad: [], script: [] };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      /** @type {any} */
      let payload;
      try {
        payload = new Webhook(secret).verify(body, headers);
      } catch (err) {
        state.bad.push(String(err));
        res.writeHead(400).end();
        return;
      }
      if (payload.type === "verification") {
        state.controls.push(payload);
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ challenge: payload.challenge }));
        return;
      }
      if (payload.type) {
        state.controls.push(payload);
        res.writeHead(200).end();
        return;
      }
      const status = state.script.shift() ?? 200;
      state.deliveries.push({ at: Date.now(), id: headers["webhook-id"], status, payload });
      res.writeHead(status).end();
    });
  });
  await new Promise((r) => server.listen(Number(port), "127.0.0.1", () => r(undefined)));
  return { url: `http://127.0.0.1:${port}/hook`, state, close: () => new Promise((r) => server.close(r)) };
}

/** The spans named `name` in the local trace store of `wrangler dev` at `url` (as spans.mjs reads them), waiting for `min`. */
async function spansNamed(url, name, min = 1) {
  let rows = [];
  for (let i = 0; i < 50; i++) {
    const res = await fetch(new URL("/cdn-cgi/local/explorer/api/local/observability/query", url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        sql: "SELECT name, outcome, json(attributes) AS attributes FROM spans WHERE name = ? ORDER BY start_ms",
        params: [name],
      }),
    });
    const body = await res.json();
    assert(res.ok && body.success, `trace store query: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const { columns, rows: raw } = body.result;
    rows = raw.map((r) => Object.fromEntries(columns.map((c, i) => [c, c === "attributes" && r[i] ? JSON.parse(r[i]) : r[i]])));
    if (rows.length >= min) return rows;
    await sleep(200);
  }
  throw new Error(`expected ${min} span(s) named "${name}", found ${rows.length}`);
}

let nextId = 1;
async function rpc(url, method, params) {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "events-e2e", version: "0" },
      },
    },
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    Authorization: `Bearer ${TOKEN}`,
  };
  if (method === "tools/call") headers["Mcp-Name"] = params.name;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  const json = JSON.parse(text.includes("data: ") ? text.split("data: ").pop() : text);
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

async function waitFor(what, check, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** The drill; answers the checks' counts. */
export async function runEventsE2e() {
  const receiver = await startReceiver();
  try {
    return await acrossRestarts("MCP Events", { config: CONFIG, vars: { MCP_DEV: "on" } }, async ({ check, url, restart }) => {
      const emit = (topic, count = 1) => rpc(url(), "tools/call", { name: "emit_test_event", arguments: { topic, text: "e2e", count } });
      const subscribe = () =>
        rpc(url(), "events/subscribe", {
          name: "test_event",
          arguments: { topic: "e2e" },
          delivery: { mode: "webhook", url: receiver.url, secret },
          cursor: null,
        });
      let sub;
      await check("subscribe verifies the callback before answering", async () => {
        sub = await subscribe();
        assert(receiver.state.controls[0]?.type === "verification", "no verification before the answer");
      });
      await check("three deliveries within 10 s of the emit, each verified by standardwebhooks, webhook-id = eventId", async () => {
        const t0 = Date.now();
        await emit("e2e", 3);
        await emit("elsewhere", 1);
        await waitFor("3 deliveries", () => receiver.state.deliveries.length >= 3, 10_000);
        const seqs = receiver.state.deliveries.map((d) => d.payload.data.seq).sort();
        assert(JSON.stringify(seqs) === "[1,2,3]", `seqs ${seqs}`);
        assert(
          receiver.state.deliveries.every((d) => d.id === d.payload.eventId),
          "webhook-id is not the eventId",
        );
        console.log(`      emit → third delivery ${Math.max(...receiver.state.deliveries.map((d) => d.at)) - t0} ms`);
      });
      await check(
        "500, 500, 200: the third attempt within 60 s, none after the 2xx",
        async () => {
          receiver.state.deliveries.length = 0;
          receiver.state.script = [500, 500];
          const t0 = Date.now();
          await emit("e2e");
          await waitFor("3 attempts", () => receiver.state.deliveries.length >= 3, 60_000);
          console.log(`      third attempt after ${receiver.state.deliveries[2].at - t0} ms`);
          const first = receiver.state.deliveries[0].id;
          assert(
            receiver.state.deliveries.slice(0, 3).every((d) => d.id === first),
            "the attempts carry different webhook-ids",
          );
          // A subscription's next event is sent only once its last was answered: the next one's arrival is
          // the barrier after which a fourth attempt of the first would have come (no fixed wait).
          await emit("e2e");
          await waitFor("the next event", () => receiver.state.deliveries.some((d) => d.id !== first), 30_000);
          const attempts = receiver.state.deliveries.filter((d) => d.id === first).length;
          assert(attempts === 3, `${attempts} attempts`);
        },
        70_000,
      );
      await check(
        "spans: `events/emit test_event` names the shards it woke; each attempt is an `events/deliver test_event` span with its outcome and status",
        async () => {
          const [emitted] = (await spansNamed(url(), "events/emit test_event")).filter((s) => s.attributes?.["mcp.event.shards"] >= 1);
          assert(emitted?.attributes?.["mcp.event.name"] === "test_event", `emit span ${JSON.stringify(emitted)}`);
          const attempts = await spansNamed(url(), "events/deliver test_event", 6);
          const seen = attempts.map((s) => `${s.attributes?.["mcp.event.outcome"]}:${s.attributes?.["http.response.status_code"]}`);
          assert(seen.filter((x) => x === "retry:500").length >= 2, `no retry spans: ${seen}`);
          assert(seen.filter((x) => x === "delivered:200").length >= 4, `delivered spans: ${seen}`);
          const retry = attempts.find((s) => s.attributes?.["mcp.event.outcome"] === "retry");
          assert(retry?.attributes?.["mcp.event.subscription.id"] === sub?.id, `subscription id ${JSON.stringify(retry)}`);
          // The payload's values and the topic are "e2e", as a word: the subscription id is 32 hex digits
          // (a digest of the receiver's URL, whose port changes each run) and holds "e2e" once in some 140
          // runs, so a bare substring test failed on a clean span.
          const leaks = (s) => {
            const text = JSON.stringify(s.attributes ?? {});
            return /\be2e\b/.test(text) || text.includes(receiver.url) || text.includes("127.0.0.1");
          };
          assert(!attempts.some(leaks), `a delivery span carries a payload value or the URL: ${JSON.stringify(attempts.find(leaks))}`);
        },
        20_000,
      );
      let pending;
      await check("a delivery that failed is still pending when the server is killed", async () => {
        receiver.state.deliveries.length = 0;
        receiver.state.script = [503];
        await emit("e2e");
        await waitFor("the first attempt", () => receiver.state.deliveries.length >= 1, 10_000);
        pending = receiver.state.deliveries[0].id;
      });
      await restart();
      await check(
        "after the restart it is delivered, and refresh keeps the id with a delivery status",
        async () => {
          await waitFor(
            "the delivery after the restart",
            () => receiver.state.deliveries.some((d) => d.id === pending && d.status === 200),
            30_000,
          );
          const again = await subscribe();
          assert(again.id === sub?.id && again.deliveryStatus?.active === true, JSON.stringify(again));
        },
        40_000,
      );
      await check("every request the receiver got verified with standardwebhooks", async () => {
        assert(receiver.state.bad.length === 0, receiver.state.bad.join("; "));
      });
    });
  } finally {
    await receiver.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runEventsE2e();
  console.log(`events e2e: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
