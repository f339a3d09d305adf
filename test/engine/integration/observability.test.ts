/**
 * What an operator sees (README "Observability"): one JSON log line per request with names,
 * outcome, duration, hashed caller and session, and the caller's trace id, on both lanes; tool
 * exceptions logged once with their stack and error id; the trace context passed on to server →
 * client requests; an optional Analytics Engine data point per call; the app's own hooks.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as v from "valibot";
import { createMcpWorker, defineApp, defineResourceTemplate, defineTool } from "../../../src/mcp";
import { buildModernRequest, modernCall, type RpcMessage } from "../helpers/mcp";
import { cancelAllReaders, openSession, request, result, sse } from "../helpers/legacy";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const TRACE_META = { traceparent: TRACEPARENT, tracestate: "vendor=opaque", baggage: "tenant=blue" };

let lines: string[];
beforeEach(() => {
  lines = [];
  for (const level of ["log", "warn", "error", "info"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cancelAllReaders();
});

/** The engine's JSON log lines of one kind. */
const records = (kind: string) =>
  lines.flatMap((l) => {
    try {
      const j = JSON.parse(l) as Record<string, unknown>;
      return j.mcp === kind ? [j] : [];
    } catch {
      return [];
    }
  });

const throwing = defineTool({
  name: "explode",
  input: v.object({ password: v.string() }),
  handler: ({ password }) => {
    throw new TypeError(`db password=${password} failed`);
  },
});
const plain = defineTool({ name: "plain", handler: () => "ok" });

async function callWorker(
  worker: ReturnType<typeof createMcpWorker>,
  method: string,
  params: Record<string, unknown>,
  extraEnv: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  const { message, headers } = buildModernRequest(method, params, { meta });
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
    { ...env, ...extraEnv } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return (await res.json()) as RpcMessage;
}

describe("request log lines", () => {
  it("2026-07-28: a call with traceparent in _meta is logged once with the trace id, the names and the outcome, and no argument values", async () => {
    await modernCall("tools/call", { name: "convert_temperature", arguments: { value: 451, from: "fahrenheit" } }, { meta: TRACE_META });
    const [line, ...more] = records("request");
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({
      revision: "2026-07-28",
      lane: "modern",
      method: "tools/call",
      name: "convert_temperature",
      outcome: "result",
      traceId: TRACE_ID,
    });
    expect(typeof line!.durationMs).toBe("number");
    expect(lines.join("\n")).not.toMatch(/451|fahrenheit/);
  });

  it("2026-07-28: the traceparent header is used when _meta has none", async () => {
    await modernCall("tools/list", {}, { headers: { traceparent: TRACEPARENT } });
    expect(records("request")[0]).toMatchObject({ method: "tools/list", traceId: TRACE_ID });
  });

  it("2026-07-28: a malformed traceparent is ignored, not logged", async () => {
    await modernCall("tools/list", {}, { meta: { traceparent: "00-zz-not-a-trace" } });
    expect(records("request")[0]!.traceId).toBeUndefined();
    expect(lines.join("\n")).not.toMatch(/not-a-trace/);
  });

  it.each([
    ["version ff", `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ["an all-zero parent id", `00-${TRACE_ID}-0000000000000000-01`],
  ])(
    "2026-07-28: a traceparent with %s (invalid in W3C Trace Context) is ignored, in _meta and in the header",
    async (_what, traceparent) => {
      await modernCall("tools/list", {}, { meta: { traceparent } });
      await modernCall("tools/list", {}, { headers: { traceparent } });
      expect(records("request").map((r) => r.traceId)).toEqual([undefined, undefined]);
    },
  );

  it("2025-11-25: the session object logs the call with the trace id and a hash of the session id", async () => {
    const s = await openSession();
    await result(s.id, "tools/call", { name: "roll_dice", arguments: { sides: 6 }, _meta: TRACE_META });
    const line = records("request").find((r) => r.method === "tools/call");
    expect(line).toMatchObject({ revision: "2025-11-25", lane: "legacy", name: "roll_dice", outcome: "result", traceId: TRACE_ID });
    expect(line!.session).toMatch(/^[0-9a-f]{16}$/);
    expect(lines.join("\n")).not.toContain(s.id);
  });

  it("2025-11-25: a server → client request carries the caller's trace context", async () => {
    const s = await openSession({ capabilities: { elicitation: {} } });
    const reader = sse(await request(s.id, "tools/call", { name: "greet", arguments: {}, _meta: TRACE_META }));
    await reader.next(); // priming
    const ask = await reader.nextMessage();
    expect(ask?.message).toMatchObject({ method: "elicitation/create", params: { _meta: TRACE_META } });
    expect(records("request").find((r) => r.name === "greet")).toMatchObject({ outcome: "input_required", traceId: TRACE_ID });
  });

  it("a tool's exception is logged once, with its stack and the error id the model was given, and the model sees no details", async () => {
    const worker = createMcpWorker(defineApp({ info: { name: "obs", version: "0" }, tools: [throwing] }));
    const answer = await callWorker(worker, "tools/call", { name: "explode", arguments: { password: "hunter2" } }, {}, TRACE_META);
    const text = answer.result.content[0].text as string;
    expect(answer.result.isError).toBe(true);
    expect(text).not.toMatch(/hunter2|password|TypeError/);
    const errorId = /error id ([0-9a-f-]{36})/.exec(text)?.[1];
    const threw = records("tool_threw");
    expect(threw).toHaveLength(1);
    expect(threw[0]).toMatchObject({ tool: "explode", errorId, traceId: TRACE_ID });
    expect(threw[0]!.stack).toMatch(/TypeError: db password=hunter2 failed\n\s+at /);
    expect(records("request")[0]).toMatchObject({ name: "explode", outcome: "tool_error" });
  });

  it("LOG_REQUESTS=errors logs only failed requests; off logs none", async () => {
    const worker = createMcpWorker(defineApp({ info: { name: "obs", version: "0" }, tools: [throwing, plain] }));
    await callWorker(worker, "tools/call", { name: "plain" }, { LOG_REQUESTS: "errors" });
    await callWorker(worker, "tools/call", { name: "nope" }, { LOG_REQUESTS: "errors" });
    expect(records("request").map((r) => [r.name, r.outcome, r.errorCode])).toEqual([["nope", "error", -32602]]);
    lines.length = 0;
    await callWorker(worker, "tools/call", { name: "nope" }, { LOG_REQUESTS: "off" });
    expect(records("request")).toHaveLength(0);
  });

  it("with authorization on, the caller appears as a hash, never by name", async () => {
    const worker = createMcpWorker(defineApp({ info: { name: "obs", version: "0" }, tools: [plain] }), {
      principal: () => "alice@example.com",
    });
    await callWorker(worker, "tools/call", { name: "plain" });
    expect(records("request")[0]!.principal).toMatch(/^[0-9a-f]{16}$/);
    expect(lines.join("\n")).not.toContain("alice");
  });
});

describe("metrics and hooks", () => {
  it("with MCP_METRICS bound, one data point per call: revision, method, name, outcome, caller hash, duration", async () => {
    const points: unknown[] = [];
    const metrics = { writeDataPoint: (p: unknown) => void points.push(p) };
    const worker = createMcpWorker(defineApp({ info: { name: "obs", version: "0" }, tools: [plain] }));
    await callWorker(worker, "tools/call", { name: "plain" }, { MCP_METRICS: metrics });
    await callWorker(worker, "tools/list", {}, { MCP_METRICS: metrics });
    expect(points).toHaveLength(2);
    expect(points[0]).toMatchObject({
      blobs: ["2026-07-28", "tools/call", "plain", "result", "", "", ""],
      indexes: ["plain"],
      doubles: [expect.any(Number)],
    });
  });

  it("a name the client made up is no metrics dimension; a resource read through a template is counted under the template", async () => {
    const points: { blobs: string[]; indexes: string[] }[] = [];
    const metrics = { writeDataPoint: (p: (typeof points)[number]) => void points.push(p) };
    const app = defineApp({
      info: { name: "obs", version: "0" },
      tools: [plain],
      resourceTemplates: [defineResourceTemplate({ uriTemplate: "notes://{id}", name: "note", read: ({ id }) => `note ${id}` })],
    });
    const worker = createMcpWorker(app);
    for (let i = 0; i < 3; i++)
      await callWorker(worker, "tools/call", { name: `made-up-${i}-${crypto.randomUUID()}` }, { MCP_METRICS: metrics });
    await callWorker(worker, "resources/read", { uri: `notes://${crypto.randomUUID()}?token=abc` }, { MCP_METRICS: metrics });
    await callWorker(worker, "resources/read", { uri: "nowhere://x" }, { MCP_METRICS: metrics });
    expect(points.map((p) => [p.blobs[1], p.blobs[2], p.indexes[0]])).toEqual([
      ["tools/call", "", "tools/call"],
      ["tools/call", "", "tools/call"],
      ["tools/call", "", "tools/call"],
      ["resources/read", "notes://{id}", "notes://{id}"],
      ["resources/read", "", "resources/read"],
    ]);
  });

  it("the engine test app's real Analytics Engine binding takes the data points without error", async () => {
    expect(env.MCP_METRICS).toBeDefined();
    const res = await modernCall("tools/list");
    expect(res.result).toBeDefined();
  });

  it("without MCP_METRICS nothing is written and the call is served", async () => {
    const worker = createMcpWorker(defineApp({ info: { name: "obs", version: "0" }, tools: [plain] }));
    const { MCP_METRICS: _gone, ...noMetrics } = env as unknown as Record<string, unknown>;
    const ctx = createExecutionContext();
    const { message, headers } = buildModernRequest("tools/call", { name: "plain" });
    const res = await worker.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      noMetrics as never,
      ctx,
    );
    expect(((await res.json()) as RpcMessage).result.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("the app's hooks see each request, and onResult's fields join the log line", async () => {
    const seen: string[] = [];
    const app = defineApp({
      info: { name: "obs", version: "0" },
      tools: [plain],
      telemetry: {
        onRequest: (e) => void seen.push(`start ${e.method} ${e.name}`),
        onResult: (r) => (seen.push(`end ${r.outcome}`), { tenant: "blue" }),
      },
    });
    await callWorker(createMcpWorker(app), "tools/call", { name: "plain" });
    expect(seen).toEqual(["start tools/call plain", "end result"]);
    expect(records("request")[0]).toMatchObject({ tenant: "blue", name: "plain" });
  });

  it("a hook that throws is logged and does not break the call", async () => {
    const app = defineApp({
      info: { name: "obs", version: "0" },
      tools: [plain],
      telemetry: {
        onResult: () => {
          throw new Error("hook bug");
        },
      },
    });
    const answer = await callWorker(createMcpWorker(app), "tools/call", { name: "plain" });
    expect(answer.result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(records("telemetry_hook_failed")[0]).toMatchObject({ message: "hook bug" });
  });
});
