/**
 * The extensions a client declares (`McpClientOptions.extensions`): sent under
 * `capabilities.extensions` on both revisions, beside the tasks extension when the client takes
 * tasks, and honoured by a server that shapes its answers by them (MCP Apps: tools with a view keep
 * `_meta.ui` only for a host that declares the extension).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { McpClient, type Fetch } from "../../../src/engine/client";
import { UI_EXTENSION, VIEW_MIME_TYPE, createMcpWorker, defineApp, defineTool, defineView } from "../../../src/mcp";
import { MCP_URL, recording } from "../helpers/client";

const chart = defineView({ uri: "ui://chart/view.html", name: "chart", asset: "/views/chart.html" });
const viewApp = createMcpWorker(
  defineApp({
    info: { name: "view-app", version: "0.0.0" },
    tools: [
      defineTool({
        name: "plot",
        description: "Plots a number.",
        input: v.object({ n: v.number() }),
        view: chart,
        handler: ({ n }) => `plotted ${n}`,
      }),
    ],
  }),
);
const viewAppFetch: Fetch = async (input, init) => {
  const ctx = createExecutionContext();
  const res = await viewApp.fetch(new Request(input instanceof Request ? input : String(input), init), env as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
};

const UI = { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } };

describe("extensions a client declares", () => {
  it("2026-07-28: a host that declares MCP Apps sees the view on the tool; one that does not gets the text-only tool", async () => {
    const host = await McpClient.connect(MCP_URL, { protocol: "2026-07-28", fetch: viewAppFetch, extensions: UI });
    const plain = await McpClient.connect(MCP_URL, { protocol: "2026-07-28", fetch: viewAppFetch });
    const [withUi] = (await host.listTools()).tools;
    const [without] = (await plain.listTools()).tools;
    expect((withUi?._meta as { ui?: unknown } | undefined)?.ui).toEqual({ resourceUri: "ui://chart/view.html" });
    expect(without?._meta).toBeUndefined();
  });

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it(`${protocol}: declared extensions travel under capabilities.extensions, beside tasks where the revision declares it`, async () => {
      const { fetch, sent } = recording();
      const client = await McpClient.connect(MCP_URL, {
        protocol,
        fetch,
        tasks: true,
        extensions: { ...UI, "io.modelcontextprotocol/skills": {} },
      });
      try {
        await client.listTools();
        const first = sent.find((m) => m.method === (protocol === "2026-07-28" ? "server/discover" : "initialize"))!;
        const caps = (
          protocol === "2026-07-28"
            ? (first.params!._meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"]
            : first.params!.capabilities
        ) as {
          extensions?: Record<string, unknown>;
        };
        const expected = {
          ...UI,
          "io.modelcontextprotocol/skills": {},
          ...(protocol === "2026-07-28" ? { "io.modelcontextprotocol/tasks": {} } : {}),
        };
        expect(caps.extensions).toEqual(expected);
      } finally {
        await client.close();
      }
    });
  }
});
