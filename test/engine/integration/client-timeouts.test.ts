/**
 * Request timeouts of the engine's MCP client (src/engine/client): a request the
 * server never answers ends with an error and is cancelled the revision's
 * way; progress keeps a long request alive.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, McpClientError, type Fetch } from "../../../src/engine/client";
import { MCP_URL, engineFetch, recording, scripted } from "../helpers/client";

/** A server that accepts every request and never answers it (its SSE stream stays open). */
const silent: Fetch = scripted((m) =>
  m.method === "initialize"
    ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "silent", version: "1" } }
    : m.method === "server/discover"
      ? { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public" }
      : new Response(new ReadableStream(), { headers: { "Content-Type": "text/event-stream" } }),
);

describe("client request timeouts", () => {
  it("2025-11-25: an initialize the server never answers fails after timeoutMs", async () => {
    const mute = scripted(() => new Response(new ReadableStream(), { headers: { "Content-Type": "text/event-stream" } }));
    await expect(McpClient.connect("http://mute.test/mcp", { protocol: "2025-11-25", fetch: mute, timeoutMs: 200 })).rejects.toThrow(
      /initialize timed out/,
    );
  });

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it(`${protocol}: a request the server never answers fails after the client's timeoutMs`, async () => {
      const client = await McpClient.connect("http://silent.test/mcp", { protocol, fetch: silent, sessionStream: false, timeoutMs: 200 });
      const t0 = Date.now();
      const err = await client.request("tools/list").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      expect((err as Error).message).toMatch(/tools\/list timed out/);
      expect(Date.now() - t0).toBeLessThan(5_000);
      // A call's own timeoutMs wins over the client's.
      await expect(client.callTool("x", {}, { timeoutMs: 50 })).rejects.toThrow(/timed out: no answer or progress for 50 ms/);
    });

    it(`${protocol}: progress restarts the clock, and a call that goes quiet is cancelled`, async () => {
      const { fetch, sent } = recording(engineFetch);
      const client = await McpClient.connect(MCP_URL, { protocol, fetch, sessionStream: false });
      try {
        // countdown reports progress every 100 ms for a second: a 400 ms timeout never fires.
        const steps: number[] = [];
        const r = await client.callTool("countdown", { from: 10 }, { timeoutMs: 400, onProgress: (p) => steps.push(p.progress) });
        expect(r.content).toEqual([{ type: "text", text: "Liftoff!" }]);
        expect(steps.length).toBeGreaterThanOrEqual(10);
        // prepare_report outlines for 1.5 s without a word: it is given up and cancelled.
        await expect(client.callTool("prepare_report", { topic: "silence", pauseMs: 1_500 }, { timeoutMs: 300 })).rejects.toThrow(
          /timed out/,
        );
        if (protocol === "2025-11-25") {
          const call = sent.filter((m) => m.method === "tools/call").at(-1)!;
          await vi.waitFor(() =>
            expect(sent).toContainEqual(
              expect.objectContaining({ method: "notifications/cancelled", params: expect.objectContaining({ requestId: call.id }) }),
            ),
          );
        }
      } finally {
        await client.close();
      }
    });
  }
});
