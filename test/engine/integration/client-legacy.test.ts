/**
 * The engine's MCP client (src/engine/client) on a 2025-11-25 session: cancellation,
 * tasks asked for only where the server takes them, and a task's questions
 * and progress. Against the engine test app in this workerd, or a scripted
 * server where the engine cannot show the case.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, type Fetch } from "../../../src/engine/client";
import { MCP_URL, engineFetch, recording, scripted } from "../helpers/client";
import { until } from "../helpers/until";

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
      await vi.waitFor(() =>
        expect(sent).toContainEqual(
          expect.objectContaining({ method: "notifications/cancelled", params: expect.objectContaining({ requestId: call.id }) }),
        ),
      );
    } finally {
      await client.close();
    }
  });

  it("tells the server its roots changed, having declared roots.listChanged", async () => {
    const { fetch, sent } = recording();
    const client = await McpClient.connect(MCP_URL, {
      protocol: LEGACY,
      fetch,
      sessionStream: false,
      handlers: { roots: () => ({ roots: [] }) },
    });
    try {
      await client.rootsChanged();
      expect(sent.find((m) => m.method === "initialize")?.params?.capabilities).toMatchObject({ roots: { listChanged: true } });
      expect(sent.at(-1)).toEqual({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    } finally {
      await client.close();
    }
  });

  it("a question the server cancels stops the handler and gets no answer, while the call goes on", async () => {
    const encoder = new TextEncoder();
    let push!: (message: unknown) => void;
    let finish!: () => void;
    const server = scripted((m) => {
      if (m.method === "initialize")
        return { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: { name: "asks", version: "1" } };
      if (m.method === "tools/list") return { tools: [{ name: "ask", inputSchema: { type: "object" } }] };
      if (m.method !== "tools/call") return {};
      // The call's stream: the server asks a question, then (below) cancels it and answers the call without it.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          push = (message) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(message)}\n\n`));
          push({
            jsonrpc: "2.0",
            id: "q1",
            method: "elicitation/create",
            params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
          });
        },
      });
      finish = () => push({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "fine without it" }] } });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
    const { fetch, sent } = recording(server);
    let reason: unknown;
    const elicitation = (_params: unknown, signal?: AbortSignal) =>
      new Promise<never>((_, reject) => {
        signal?.addEventListener("abort", () => {
          reason = signal.reason;
          reject(signal.reason);
          finish();
        });
        // While the user is being asked, the server changes its mind.
        push({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "q1", reason: "no longer needed" } });
      });
    const client = await McpClient.connect("http://scripted.test/mcp", {
      protocol: LEGACY,
      fetch,
      sessionStream: false,
      handlers: { elicitation },
    });
    const result = await client.callTool("ask", {});
    expect(result.content).toEqual([{ type: "text", text: "fine without it" }]);
    expect(String(reason)).toMatch(/server cancelled its request: no longer needed/);
    // The client's own record of the questions it is answering: once q1 has left it, its answer (if it
    // were sent) has been posted, since the post follows in the same turn.
    const answering = (client as unknown as { lane: { answering: Map<unknown, unknown> } }).lane.answering;
    await until(() => expect(answering.has("q1")).toBe(false));
    expect(sent.filter((m) => m.id === "q1")).toEqual([]);
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
