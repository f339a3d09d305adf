/**
 * The engine's MCP client (src/engine/client) on 2026-07-28: what it caches after
 * input rounds, which answers it follows, a task whose question the app
 * cannot answer, and a pinned revision the server does not speak. Against the
 * engine test app in this workerd, or a scripted server where the engine
 * cannot show the case.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, McpClientError } from "../../../src/engine/client";
import { MCP_URL, engineFetch, json, scripted, type Sent } from "../helpers/client";

const MODERN = "2026-07-28";
const discover = {
  resultType: "complete",
  supportedVersions: [MODERN],
  capabilities: { tools: {}, resources: {}, prompts: {} },
  ttlMs: 0,
  cacheScope: "public",
};

describe("client, 2026-07-28", () => {
  it("does not cache a result obtained after an input round, though it carries ttlMs", async () => {
    const reads: Sent[] = [];
    const fetch = scripted((m) => {
      if (m.method === "server/discover") return discover;
      reads.push(m);
      if (m.params?.uri === "memo://plain")
        return { resultType: "complete", contents: [{ uri: "memo://plain", text: "plain" }], ttlMs: 60_000, cacheScope: "private" };
      // The memo is read only after the user confirms; the answer is cacheable in itself.
      if (!m.params?.inputResponses) {
        return {
          resultType: "input_required",
          inputRequests: {
            ok: { method: "elicitation/create", params: { message: "Read it?", requestedSchema: { type: "object", properties: {} } } },
          },
          requestState: "s",
        };
      }
      return { resultType: "complete", contents: [{ uri: "memo://secret", text: "secret" }], ttlMs: 60_000, cacheScope: "private" };
    });
    const elicitation = vi.fn(() => ({ action: "accept" as const, content: {} }));
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch, cache: true, handlers: { elicitation } });
    await client.readResource("memo://secret");
    await client.readResource("memo://secret");
    expect(elicitation).toHaveBeenCalledTimes(2);
    expect(reads.filter((m) => m.params?.uri === "memo://secret")).toHaveLength(4);
    // A result that needed no input is cached as before.
    await client.readResource("memo://plain");
    await client.readResource("memo://plain");
    expect(reads.filter((m) => m.params?.uri === "memo://plain")).toHaveLength(1);
  });

  it("refuses input_required on a request that may not ask, without asking the app", async () => {
    const fetch = scripted((m) => {
      if (m.method === "server/discover") return discover;
      return {
        resultType: "input_required",
        inputRequests: {
          q: { method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } },
        },
      };
    });
    const elicitation = vi.fn(() => ({ action: "accept" as const, content: {} }));
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch, handlers: { elicitation } });
    await expect(client.listTools()).rejects.toThrow(/tools\/list with resultType "input_required"/);
    await expect(client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" })).rejects.toBeInstanceOf(McpClientError);
    expect(elicitation).not.toHaveBeenCalled();
  });

  it("refuses a task as the answer to anything but tools/call", async () => {
    const fetch = scripted((m) => {
      if (m.method === "server/discover") return discover;
      return {
        resultType: "task",
        taskId: "t1",
        status: "working",
        createdAt: new Date().toISOString(),
        lastUpdatedAt: new Date().toISOString(),
        ttlMs: 60_000,
      };
    });
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch, tasks: true });
    await expect(client.getPrompt("p")).rejects.toThrow(/prompts\/get with resultType "task"/);
  });

  it("cancels a task whose question the app cannot answer, instead of leaving it waiting", async () => {
    const taskIds: string[] = [];
    const client = await McpClient.connect(MCP_URL, {
      protocol: MODERN,
      fetch: engineFetch,
      tasks: { onTask: (t) => void taskIds.push(String(t.taskId)), minPollMs: 20 },
      handlers: {
        elicitation: () => {
          throw new Error("nobody is there to answer");
        },
      },
    });
    await expect(client.callTool("prepare_report", { topic: "fog" })).rejects.toThrow(/nobody is there/);
    expect(taskIds[0]).toBeTruthy();
    await vi.waitFor(async () => expect((await client.request("tasks/get", { taskId: taskIds[0] })).status).toBe("cancelled"));
  });

  it("pinned to 2026-07-28, a server that speaks only 2025-11-25 is an error that says to use auto", async () => {
    const fetch = scripted(() =>
      json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Server not initialized" } }, 400),
    );
    const err = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).message).toMatch(/does not speak 2026-07-28.*"auto"/);
    expect((err as McpClientError).status).toBe(400);
  });
});
