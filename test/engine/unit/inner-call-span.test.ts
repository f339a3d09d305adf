/**
 * An inner call's span (docs/tools-at-scale.md): `call_tool` runs the inner tool in a span of its
 * own, named and tagged as a direct call's, opened inside the outer call's span so that it nests
 * under it. Node has no platform tracer, so a fake one records each span and the one it was opened
 * in; test/engine/integration/tool-search.test.ts covers the rest of the inner call through /mcp.
 */
import { describe, expect, it } from "vitest";
import { defineApp, defineTool } from "../../../src/engine/mcp/app";
import { execute } from "../../../src/engine/mcp/execute";
import { compileApp } from "../../../src/engine/mcp/registry";
import { MODERN } from "../../../src/engine/mcp/revisions";
import { toolSearch } from "../../../src/engine/mcp/surfaces/tool-search";
import type { SpanLike, Tracer } from "../../../src/engine/mcp/tracing";

interface Recorded {
  name: string;
  parent?: string;
  attributes: Record<string, unknown>;
}

function nestingTracer(spans: Recorded[]): Tracer {
  const open: Recorded[] = [];
  return {
    getActiveSpan: () => ({ isTraced: true }),
    enterSpan(name, work) {
      const span: Recorded = { name, parent: open.at(-1)?.name, attributes: {} };
      spans.push(span);
      open.push(span);
      const handle: SpanLike = { setAttributes: (a) => Object.assign(span.attributes, a), setStatus: () => {} };
      return Promise.resolve(work(handle)).finally(() => open.splice(open.indexOf(span), 1)) as never;
    },
  };
}

const reg = compileApp(
  defineApp({
    info: { name: "spans", version: "0" },
    tools: [defineTool({ name: "plain", handler: () => "ok" })],
    surface: toolSearch(),
  }),
);

describe("an inner call's span", () => {
  it("is the inner tool's tools/call span, nested under the outer call's", async () => {
    const spans: Recorded[] = [];
    const outcome = await execute(
      "tools/call",
      { name: "call_tool", arguments: { name: "plain" } },
      {
        revision: MODERN,
        reg,
        protocolVersion: "2026-07-28",
        clientCapabilities: {},
        answers: {},
        state: undefined,
        signal: new AbortController().signal,
        emit: () => {},
        notify: {} as never,
        env: {},
        reporting: { volume: "off", trace: {}, tracer: nestingTracer(spans), registered: (g) => g?.name },
      },
    );
    expect(outcome).toMatchObject({ kind: "result", result: { content: [{ type: "text", text: "ok" }] } });
    expect(spans.map(({ name, parent }) => ({ name, parent }))).toEqual([
      { name: "tools/call call_tool", parent: undefined },
      { name: "tools/call plain", parent: "tools/call call_tool" },
    ]);
    expect(spans[1]!.attributes["gen_ai.tool.name"]).toBe("plain");
  });
});
