/**
 * Spans and metrics carry no client-made name and no unbounded client string (docs/tracing.md,
 * docs/observability.md), and every failed operation's span ends with an error status, the 2025
 * ones served without the executor (initialize, tasks/*) too. Node has no platform tracer, so a fake
 * one records what the engine writes; test/engine/e2e/spans.mjs reads real spans from `wrangler dev`.
 */
import { describe, expect, it, vi } from "vitest";
import { defineApp, defineTool } from "../../../src/engine/mcp/app";
import { reported } from "../../../src/engine/mcp/execute";
import { compileApp } from "../../../src/engine/mcp/registry";
import { LEGACY } from "../../../src/engine/mcp/revisions";
import type { Reporting } from "../../../src/engine/mcp/telemetry";
import type { SpanLike, Tracer } from "../../../src/engine/mcp/tracing";
import { tagServed } from "../../../src/engine/reporting";
import type { Config } from "../../../src/engine/config";

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  status?: { code: string; message: string };
}

function fakeTracer(spans: Recorded[]): Tracer {
  return {
    getActiveSpan: () => ({ isTraced: true }),
    enterSpan(name, work) {
      const span: Recorded = { name, attributes: {} };
      spans.push(span);
      return work({ setAttributes: (a) => Object.assign(span.attributes, a), setStatus: (s) => (span.status = s) });
    },
  };
}

const reg = compileApp(defineApp({ info: { name: "bounds", version: "0" }, tools: [defineTool({ name: "plain", handler: () => "ok" })] }));

async function report(method: string, params: Record<string, unknown>, outcome: "error" | "result", requestId: string | number = 1) {
  const spans: Recorded[] = [];
  const points: { blobs?: string[]; indexes?: string[] }[] = [];
  const reporting: Reporting = {
    volume: "off",
    trace: {},
    tracer: fakeTracer(spans),
    metrics: { writeDataPoint: (p) => void points.push(p) },
    requestId,
  };
  await reported(method, params, { protocolVersion: "2025-11-25", revision: LEGACY, reg, reporting }, async () =>
    outcome === "error"
      ? { kind: "error", error: Object.assign(new Error("x"), { code: -32601 }) as never }
      : { kind: "result", result: {} },
  );
  return { span: spans[0]!, point: points[0]! };
}

describe("client-made strings in spans and metrics", () => {
  it("a made-up method never names a span or a metrics index; a long request id is bounded", async () => {
    const { span, point } = await report("x".repeat(20_000), {}, "error", "i".repeat(300_000));
    expect(span.name).toBe("unknown method");
    expect(span.attributes["mcp.method.name"]).toBe("unknown method");
    expect(String(span.attributes["jsonrpc.request.id"]).length).toBeLessThanOrEqual(129);
    expect(span.attributes["error.type"]).toBe("-32601");
    expect(point.indexes).toEqual(["unknown method"]);
    expect(point.blobs!.join("").length).toBeLessThan(200);
  });

  it("a server's own method names its span; an unregistered tool name does not", async () => {
    expect((await report("tools/list", {}, "result")).span.name).toBe("tools/list");
    const { span, point } = await report("tools/call", { name: "n".repeat(20_000) }, "error");
    expect(span.name).toBe("tools/call");
    expect(point.indexes).toEqual(["tools/call"]);
    expect(String(span.attributes["gen_ai.tool.name"]).length).toBeLessThanOrEqual(129);
  });

  it("mcp.task.id is bounded, and the span keeps its error.type", async () => {
    const { span } = await report("tasks/get", { taskId: "t".repeat(300_000) }, "error");
    expect(String(span.attributes["mcp.task.id"]).length).toBeLessThanOrEqual(129);
    expect(span.attributes["error.type"]).toBe("-32601");
    expect(span.status).toEqual({ code: "error", message: "-32601" });
  });
});

describe("2025 operations served without the executor", () => {
  const config = { stateSecret: "s" } as Config;
  const spanOf = () => {
    const span = { setAttributes: vi.fn(), setStatus: vi.fn() } satisfies SpanLike;
    return span;
  };

  it("a failed tasks/* or initialize ends its span with an error status; a bounded task id", async () => {
    const failed = spanOf();
    await tagServed(
      failed,
      { jsonrpc: "2.0", id: 1, method: "tasks/result", params: { taskId: "t".repeat(300_000) } },
      "2025-11-25",
      "session",
      config,
      { code: -32602 },
    );
    expect(failed.setStatus).toHaveBeenCalledWith({ code: "error", message: "-32602" });
    const attributes = failed.setAttributes.mock.calls[0]![0] as Record<string, unknown>;
    expect(attributes["error.type"]).toBe("-32602");
    expect(String(attributes["mcp.task.id"]).length).toBeLessThanOrEqual(129);
    const init = spanOf();
    await tagServed(init, { jsonrpc: "2.0", id: 1, method: "initialize" }, "", undefined, config, { code: -32602 });
    expect(init.setStatus).toHaveBeenCalledWith({ code: "error", message: "-32602" });
    const ok = spanOf();
    await tagServed(ok, { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: "t-1" } }, "2025-11-25", "session", config);
    expect(ok.setStatus).not.toHaveBeenCalled();
  });
});
