/**
 * The engine's MCP client (src/client) on a 2025-11-25 session: cancellation,
 * tasks asked for only where the server takes them, and a task's questions
 * and progress. Against the engine test app in this workerd, or a scripted
 * server where the engine cannot show the case.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, type Fetch } from "../../src/client";
import { MCP_URL, engineFetch, recording, scripted } from "../helpers/client";

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const LEGACY = "2025-11-25";

describe("client, 2025-11-25 session", () => {
  it("aborting a call before its answer's headers arrive still sends notifications/cancelled", async () => {
    // The server starts the call at once, but its answer's headers are held back (a slow proxy, a busy server).
    const held: Fetch = (input, init) => {
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : undefined;
      if (body?.method !== "tools/call") return engineFetch(input, init);
      const started = engineFetch(input, { ...init, signal: null });
      return new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => {
          void started.then((res) => res.body?.cancel());
          reject(init.signal?.reason);
        }),
      );
    };
    const { fetch, sent } = recording(held);
    const client = await McpClient.connect(MCP_URL, { protocol: LEGACY, fetch, sessionStream: false });
    try {
      await expect(client.callTool("countdown", { from: 10 }, { signal: AbortSignal.timeout(150) })).rejects.toThrow();
      const call = sent.find((m) => m.method === "tools/call")!;
      await vi.waitFor(() => expect(sent).toContainEqual(expect.objectContaining({ method: "notifications/cancelled", params: expect.objectContaining({ requestId: call.id }) })));
    } finally {
      await client.close();
    }
  });

  it("asks for a task only when the server declares tasks for tools/call", async () => {
    const calls: Record<string, unknown>[] = [];
    const fetch = scripted((m) => {
      switch (m.method) {
        case "initialize":
          // A server whose tool says it can run as a task, without the capability that makes task requests legal.
          return { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: { name: "no-tasks", version: "1" } };
        case "tools/list":
          return { tools: [{ name: "slow", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } }] };
        case "tools/call":
          calls.push(m.params!);
          return { content: [{ type: "text", text: "done" }] };
      }
      return {};
    });
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: LEGACY, fetch, sessionStream: false, tasks: true });
    const result = await client.callTool("slow", {});
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toHaveProperty("task");
  });

  it("a task's question is answered with the task named in _meta, and its progress reaches onProgress", async () => {
    const { fetch, sent } = recording();
    const progress: number[] = [];
    const client = await McpClient.connect(MCP_URL, {
      protocol: LEGACY,
      fetch,
      tasks: { ttlMs: 120_000 },
      handlers: { elicitation: () => ({ action: "accept", content: { words: 7 } }) },
    });
    try {
      // A task's progress goes to the session's GET stream: wait until it is open.
      (await client.listen({})).close();
      const result = await client.callTool("prepare_report", { topic: "moss" }, { onProgress: (p) => progress.push(p.progress) });
      expect(result.content).toEqual([{ type: "text", text: expect.stringContaining("7 words on moss") }]);
      const call = sent.find((m) => m.method === "tools/call")!;
      expect(call.params?.task).toEqual({ ttl: 120_000 });
      const answer = sent.find((m) => m.result !== undefined && m.method === undefined)!;
      expect(answer.result).toMatchObject({ action: "accept", _meta: { [RELATED_TASK]: { taskId: expect.any(String) } } });
      expect(progress).toEqual(expect.arrayContaining([1, 2]));
    } finally {
      await client.close();
    }
  });
});

