// Why: docs/tracing.md promises one OpenTelemetry span per MCP operation, on both revisions and in
// every object that does the work, with the MCP semantic-convention attributes and no values. This
// reads the spans of real requests where `wrangler dev` keeps them: its local trace store (the
// platform's streaming tail collector, a SQLite table under the persist directory), queried through
// the local explorer's read-only SQL endpoint. One drill across a restart, so a task whose run died
// with its server is seen running twice after it. Run alone: `npx node test/engine/e2e/spans.mjs`.
import { fileURLToPath } from "node:url";
import { EventStream, buildModernRequest, legacyHeaders, openLegacySession, requestMessage, webSource } from "../wire/index.ts";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { sleep } from "../../../scripts/lib/procs.mjs";
import { acrossRestarts } from "./restarts.mjs";
import { startWrangler } from "./server.mjs";

const CONFIG = "test/engine/app/wrangler.toml";
const CAPABILITIES = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** Rows of a read-only query against the trace store of the server at `url`. */
async function query(url, sql, params = []) {
  const res = await fetch(new URL("/cdn-cgi/local/explorer/api/local/observability/query", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sql, params }),
  });
  const body = await res.json();
  assert(res.ok && body.success, `trace store query: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  const { columns, rows } = body.result;
  return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, c === "attributes" && r[i] ? JSON.parse(r[i]) : r[i]])));
}

const SPAN = "SELECT trace_id, span_id, parent_id, name, outcome, json(attributes) AS attributes FROM spans";

/** The spans named `name` (newest last), waiting (bounded) until at least `min` have been stored. */
async function spansNamed(url, name, min = 1, where = "") {
  let rows = [];
  for (let i = 0; i < 50; i++) {
    rows = await query(url, `${SPAN} WHERE name = ? ${where} ORDER BY start_ms`, [name]);
    if (rows.length >= min) return rows;
    await sleep(200);
  }
  throw new Error(`expected ${min} span(s) named "${name}", found ${rows.length}`);
}

/** The chain of spans from this one up to its trace's root. */
async function ancestry(url, span) {
  const chain = [span];
  for (let s = span; s.parent_id; ) {
    [s] = await query(url, `${SPAN} WHERE trace_id = ? AND span_id = ?`, [s.trace_id, s.parent_id]);
    if (!s) break;
    chain.push(s);
  }
  return chain;
}

/** The JSON-RPC message answering `id`, from a JSON or an SSE response. */
async function answerOf(res, id) {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) return JSON.parse(await res.text());
  const stream = new EventStream(webSource(res.body));
  const e = await stream.until((m) => m.id === id && (m.result !== undefined || m.error !== undefined), 15_000);
  await stream.cancel();
  return e?.message;
}

/** One 2026-07-28 request; the whole JSON-RPC message answering it. */
async function modern(url, method, params, meta) {
  const { id, message, headers } = buildModernRequest(method, params, { capabilities: CAPABILITIES, meta });
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(20_000) });
  return { id, message: await answerOf(res, id) };
}

/** The attributes every operation span has, and none of the call's values. */
function checkOperation(span, method, version, values = []) {
  const a = span.attributes ?? {};
  assertEqual(a["mcp.method.name"], method, `${span.name}: mcp.method.name`);
  assertEqual(a["mcp.protocol.version"], version, `${span.name}: mcp.protocol.version`);
  // A value counts as carried when it stands alone: the session's hash and ids are hex or digits that
  // change each run, and hold "212" or "451" inside them once in a few hundred runs.
  const text = JSON.stringify(a);
  for (const v of values) {
    const alone = new RegExp(`(?<![\\w.])${v.replace(/[.]/g, "\\.")}(?![\\w.])`);
    assert(!alone.test(text), `${span.name} carries the value ${v}: ${text}`);
  }
}

/** @returns {Promise<{passed: number, failed: number}>} */
export function runSpans() {
  return acrossRestarts("spans", { config: CONFIG, vars: { TASK_LEASE_SECONDS: "2" } }, async ({ check, url, restart }) => {
    const s = {};
    await check(
      "2026-07-28 tools/call: a span `tools/call convert_temperature` under the request's POST, with the MCP attributes, the caller's trace id, no argument values",
      async () => {
        const { id, message } = await modern(
          url(),
          "tools/call",
          { name: "convert_temperature", arguments: { value: 451, from: "fahrenheit" } },
          { traceparent: TRACEPARENT },
        );
        assert(message.result?.structuredContent?.celsius === 232.78, `result: ${JSON.stringify(message).slice(0, 200)}`);
        const [span] = (await spansNamed(url(), "tools/call convert_temperature")).filter(
          (x) => x.attributes?.["jsonrpc.request.id"] === String(id),
        );
        assert(span, "no span with this request's id");
        checkOperation(span, "tools/call", "2026-07-28", ["451", "232.78"]);
        assertEqual(span.attributes["gen_ai.tool.name"], "convert_temperature", "gen_ai.tool.name");
        assertEqual(span.attributes["mcp.caller.traceparent"], TRACEPARENT, "mcp.caller.traceparent");
        assert(
          span.attributes["error.type"] === undefined && span.outcome === "ok",
          `a good call has no error.type: ${JSON.stringify(span)}`,
        );
        const chain = await ancestry(url(), span);
        assertEqual(chain.at(-1).name, "POST", "the root of the span's trace");
        const logs = await query(url(), "SELECT message FROM logs WHERE trace_id = ?", [span.trace_id]);
        assert(
          logs.some((l) => l.message.includes(TRACE_ID)),
          `the request's log line (with the caller's trace id) is not in the span's trace: ${JSON.stringify(logs).slice(0, 300)}`,
        );
      },
    );

    await check(
      "2026-07-28: a tool error says error.type tool_error; an unknown tool's span is `tools/call` (no made-up name) with error.type -32602",
      async () => {
        await modern(url(), "tools/call", { name: "convert_temperature", arguments: { value: -500, from: "celsius" } });
        const failed = (await spansNamed(url(), "tools/call convert_temperature", 2)).at(-1);
        assertEqual(failed.attributes["error.type"], "tool_error", "error.type");
        await modern(url(), "tools/call", { name: "no_such_tool_x1", arguments: {} });
        const unknown = (await spansNamed(url(), "tools/call")).at(-1);
        assertEqual(unknown.attributes["error.type"], "-32602", "error.type");
        assertEqual(
          unknown.attributes["gen_ai.tool.name"],
          "no_such_tool_x1",
          "gen_ai.tool.name (cut and kept as an attribute, not in the name)",
        );
      },
    );

    await check("2026-07-28: resources/read and prompts/get spans, named for the resource (template) and the prompt", async () => {
      await modern(url(), "resources/read", { uri: "units://kelvin" });
      const [read] = await spansNamed(url(), "resources/read units://{unit}");
      assertEqual(read.attributes["mcp.resource.uri"], "units://kelvin", "mcp.resource.uri");
      await modern(url(), "prompts/get", { name: "explain_unit", arguments: { unit: "kelvin" } });
      const [prompt] = await spansNamed(url(), "prompts/get explain_unit");
      checkOperation(prompt, "prompts/get", "2026-07-28");
      assertEqual(prompt.attributes["gen_ai.prompt.name"], "explain_unit", "gen_ai.prompt.name");
    });

    await check("2025-11-25: `initialize` and a session's tools/call have spans with the session id hashed, never raw", async () => {
      const send = async ({ method, headers, body }) => {
        const res = await fetch(url(), { method, headers, body });
        return { status: res.status, header: (n) => res.headers.get(n), text: await res.text() };
      };
      const { id: sessionId } = await openLegacySession(send, { capabilities: { elicitation: { form: {} } } });
      s.sessionId = sessionId;
      const [init] = await spansNamed(url(), "initialize");
      checkOperation(init, "initialize", "2025-11-25");
      const hash = init.attributes["mcp.session.id"];
      assert(/^[0-9a-f]{16}$/.test(hash ?? "") && !sessionId.includes(hash), `mcp.session.id: ${hash}`);
      const msg = requestMessage("tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } });
      const res = await fetch(url(), { method: "POST", headers: legacyHeaders(sessionId), body: JSON.stringify(msg) });
      await answerOf(res, msg.id);
      const [call] = await spansNamed(
        url(),
        "tools/call convert_temperature",
        1,
        "AND json_extract(attributes, '$.\"mcp.protocol.version\"') = '2025-11-25'",
      );
      checkOperation(call, "tools/call", "2025-11-25", ["212"]);
      assertEqual(call.attributes["mcp.session.id"], hash, "the session's hash on its call");
      assertEqual(call.attributes["jsonrpc.request.id"], String(msg.id), "jsonrpc.request.id");
      assert(
        !JSON.stringify(await query(url(), "SELECT json(attributes) AS attributes FROM spans")).includes(sessionId),
        "the raw session id is in the trace store",
      );
      assertEqual((await ancestry(url(), call)).at(-1).name, "POST", "the root of the session call's trace");
      s.sessionHash = hash;
    });

    await check(
      "2025-11-25: a session's task: the tools/call that makes it and tasks/get (served by the session itself) have spans naming the task and the session, and so has its first run",
      async () => {
        const post = async (method, params) => {
          const msg = requestMessage(method, params);
          return (
            await answerOf(await fetch(url(), { method: "POST", headers: legacyHeaders(s.sessionId), body: JSON.stringify(msg) }), msg.id)
          ).result;
        };
        const taskId = (await post("tools/call", { name: "quick_task", arguments: { n: 7 }, task: {} }))?.task?.taskId;
        assert(typeof taskId === "string", "no task");
        await post("tasks/get", { taskId });
        const task = `AND json_extract(attributes, '$."mcp.task.id"') = '${taskId}'`;
        const [created, run] = await spansNamed(url(), "tools/call quick_task", 2, task);
        checkOperation(created, "tools/call", "2025-11-25");
        checkOperation(run, "tools/call", "2025-11-25");
        assertEqual(run.attributes["mcp.session.id"], s.sessionHash, "the session's hash on the task's run");
        assertEqual((await ancestry(url(), run)).at(-1).name, "alarm", "the root of the task's first run");
        const [get] = await spansNamed(url(), "tasks/get", 1, task);
        checkOperation(get, "tasks/get", "2025-11-25");
        assertEqual(get.attributes["mcp.session.id"], s.sessionHash, "the session's hash on tasks/get");
      },
    );

    await check(
      "2025-11-25: a made-up method never names a span (`unknown method`), and a failed tasks/get or initialize says its error.type",
      async () => {
        const made = requestMessage(`x_${"y".repeat(20_000)}`, {});
        await answerOf(await fetch(url(), { method: "POST", headers: legacyHeaders(s.sessionId), body: JSON.stringify(made) }), made.id);
        const [unknown] = await spansNamed(url(), "unknown method");
        assertEqual(unknown.attributes["mcp.method.name"], "unknown method", "mcp.method.name");
        assertEqual(unknown.attributes["error.type"], "-32601", "error.type");
        const longId = "t".repeat(5_000);
        const get = requestMessage("tasks/get", { taskId: longId });
        await answerOf(await fetch(url(), { method: "POST", headers: legacyHeaders(s.sessionId), body: JSON.stringify(get) }), get.id);
        const [failed] = await spansNamed(url(), "tasks/get", 1, "AND json_extract(attributes, '$.\"error.type\"') IS NOT NULL");
        assert(
          String(failed.attributes["mcp.task.id"]).length <= 129,
          `mcp.task.id of ${String(failed.attributes["mcp.task.id"]).length} characters`,
        );
        const init = { jsonrpc: "2.0", id: "bad-init", method: "initialize", params: {} };
        await fetch(url(), {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: JSON.stringify(init),
        });
        const [badInit] = await spansNamed(url(), "initialize", 1, "AND json_extract(attributes, '$.\"error.type\"') = '-32602'");
        assertEqual(badInit.attributes["mcp.method.name"], "initialize", "mcp.method.name");
      },
    );

    await check("the hub: a notification's publish has a span per shard, saying how many streams it goes to", async () => {
      const { message, headers } = buildModernRequest(
        "subscriptions/listen",
        { notifications: { toolsListChanged: true } },
        { id: "spans-listen" },
      );
      const ctl = new AbortController();
      const res = await fetch(url(), { method: "POST", headers, body: JSON.stringify(message), signal: ctl.signal });
      const stream = new EventStream(webSource(res.body));
      try {
        await stream.next(10_000); // the acknowledgement
        await modern(url(), "tools/call", { name: "announce", arguments: {} });
        const got = await stream.until((m) => m.method === "notifications/tools/list_changed", 10_000);
        assert(got, "the listener got no notification");
      } finally {
        await stream.cancel().catch(() => {});
        ctl.abort();
      }
      const shards = await spansNamed(url(), "notifications/tools/list_changed", 4);
      const deliveries = shards.reduce((n, x) => n + (x.attributes?.["mcp.hub.deliveries"] ?? 0), 0);
      assert(deliveries >= 1, `deliveries over the shards: ${deliveries}`);
      const chain = await ancestry(url(), shards[0]);
      assert(
        chain.some((x) => x.name === "tools/call announce"),
        `the publish is not inside the call that made it: ${chain.map((x) => x.name)}`,
      );
    });

    await check("2026-07-28 task: tools/call that makes a task and tasks/get have spans naming the task", async () => {
      const { message } = await modern(
        url(),
        "tools/call",
        { name: "prepare_report", arguments: { topic: "tides", pauseMs: 4000 } },
        { traceparent: TRACEPARENT },
      );
      s.taskId = message.result?.taskId;
      assert(typeof s.taskId === "string", `expected a task: ${JSON.stringify(message).slice(0, 200)}`);
      await modern(url(), "tasks/get", { taskId: s.taskId });
      const [get] = await spansNamed(url(), "tasks/get", 1, `AND json_extract(attributes, '$."mcp.task.id"') = '${s.taskId}'`);
      checkOperation(get, "tasks/get", "2026-07-28");
    });

    await check(
      "2026-07-28 task: its first run, right after the create answered, has a span naming the task, in the trace of the task's alarm",
      async () => {
        const { message } = await modern(url(), "tools/call", { name: "quick_task", arguments: { n: 3 } }, { traceparent: TRACEPARENT });
        const taskId = message.result?.taskId;
        assert(typeof taskId === "string", `expected a task: ${JSON.stringify(message).slice(0, 200)}`);
        const [created, run] = await spansNamed(
          url(),
          "tools/call quick_task",
          2,
          `AND json_extract(attributes, '$."mcp.task.id"') = '${taskId}'`,
        );
        assertEqual((await ancestry(url(), created)).at(-1).name, "POST", "the creating call's root");
        assertEqual((await ancestry(url(), run)).at(-1).name, "alarm", "the first run's root");
        assertEqual(
          run.attributes["mcp.caller.traceparent"],
          TRACEPARENT,
          "the run carries the traceparent of the request that made the task",
        );
        assert(run.attributes["mcp.task.cut_short"] === undefined && run.outcome === "ok", `a first run: ${JSON.stringify(run)}`);
      },
    );

    await check("the server is killed mid-run and a new one starts on the same state", restart, 90_000);

    await check(
      "the task runs twice after the restart (the lease, then the answer), each run a span naming the task; the first says a run was cut short",
      async () => {
        let got;
        for (let i = 0; i < 100 && got?.status !== "input_required"; i++, await sleep(300))
          got = (await modern(url(), "tasks/get", { taskId: s.taskId })).message.result;
        assertEqual(got?.status, "input_required", "status after the restart");
        await modern(url(), "tasks/update", { taskId: s.taskId, inputResponses: { length: { action: "accept", content: { words: 5 } } } });
        for (let i = 0; i < 100 && got?.status !== "completed"; i++, await sleep(300))
          got = (await modern(url(), "tasks/get", { taskId: s.taskId })).message.result;
        assertEqual(got?.status, "completed", "status after the answer");
        const task = `AND json_extract(attributes, '$."mcp.task.id"') = '${s.taskId}'`;
        const spans = await spansNamed(url(), "tools/call prepare_report", 3, task);
        // The creating call (answered in its request) and the runs after the restart; the run that died
        // with the first server left no span (its process ended before the platform closed it).
        const [created, ...runs] = spans;
        assertEqual((await ancestry(url(), created)).at(-1).name, "POST", "the creating call's root");
        assert(runs.length >= 2, `runs after the restart: ${runs.length}`);
        assertEqual(runs[0].attributes["mcp.task.cut_short"], 1, "the first run after the restart counts the run that died");
        for (const run of runs)
          assertEqual(
            run.attributes["mcp.caller.traceparent"],
            TRACEPARENT,
            "each run carries the traceparent of the request that made the task",
          );
        assertEqual((await ancestry(url(), runs[0])).at(-1).name, "alarm", "the lease's run is an alarm's");
      },
      60_000,
    );
  });
}

/** TRACING=off: the same call makes no operation span, and its log line is still written. */
export async function runSpansOff() {
  const { check, counts } = createChecks("spans off");
  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { TRACING: "off" } });
    await check("TRACING=off: a tools/call has no span of its own, the request's POST span and its log line remain", async () => {
      const { message } = await modern(server.url, "tools/call", { name: "convert_temperature", arguments: { value: 0, from: "celsius" } });
      assert(message.result?.structuredContent?.fahrenheit === 32, `result: ${JSON.stringify(message).slice(0, 200)}`);
      let posts = [];
      for (let i = 0; i < 50 && posts.length === 0; i++, await sleep(200)) posts = await query(server.url, `${SPAN} WHERE name = 'POST'`);
      assert(posts.length > 0, "no POST span: the trace store is not recording");
      assertEqual((await query(server.url, `${SPAN} WHERE name LIKE 'tools/call%'`)).length, 0, "operation spans with TRACING=off");
      const logs = await query(server.url, "SELECT message FROM logs WHERE trace_id = ?", [posts[0].trace_id]);
      assert(
        logs.some((l) => /mcp.{0,6}request.*convert_temperature/.test(l.message)),
        `the request's log line is missing: ${JSON.stringify(logs).slice(0, 300)}`,
      );
    });
  } catch (err) {
    console.log(`  ✗ spans off: the server did not start: ${err.message}`);
    return { passed: 0, failed: 1 };
  } finally {
    await server?.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const on = await runSpans();
  const off = await runSpansOff();
  const r = { passed: on.passed + off.passed, failed: on.failed + off.failed };
  console.log(`spans: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
