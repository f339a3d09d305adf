/**
 * MCP Events, advertised and listed (test/engine/app/events-app.ts): `server/discover` names the
 * extension under both keys ChatGPT and the SEP read, events/list pages the types a caller may see,
 * with their schemas as JSON Schema; 2025-11-25 sessions are not offered the extension at all.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eventsWorker } from "../app/events-worker";
import { call } from "../helpers/events";
import { buildModernRequest, initializeMessage, legacyHeaders, type RpcMessage } from "../wire";

describe("events/list and the capability (2026-07-28)", () => {
  it("advertises the extension under capabilities.extensions and the top-level events key", async () => {
    const { body } = await call("server/discover", {}, "alice");
    expect(body.result.capabilities.extensions["io.modelcontextprotocol/events"]).toEqual({});
    expect(body.result.capabilities.events).toEqual({});
  });

  it("pages the types with their input and payload JSON Schemas and the modes served", async () => {
    const first = await call("events/list", {}, "alice");
    expect(first.body.result.resultType).toBe("complete");
    expect(first.body.result.events.map((e: { name: string }) => e.name)).toEqual(["test_event", "scoped_event"]);
    const second = await call("events/list", { cursor: first.body.result.nextCursor }, "alice");
    expect(second.body.result.events.map((e: { name: string }) => e.name)).toEqual(["plain_event"]);
    expect(second.body.result.nextCursor).toBeUndefined();
    const testEvent = first.body.result.events[0];
    expect(testEvent).toMatchObject({
      description: "A test occurrence on a topic.",
      delivery: ["poll", "push", "webhook"],
      inputSchema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
      payloadSchema: { type: "object", required: ["topic", "text", "seq"] },
    });
  });

  it("lists only the types the caller's scopes reach", async () => {
    const { body } = await call("events/list", {}, "alice.noscope");
    expect(body.result.events.map((e: { name: string }) => e.name)).toEqual(["test_event", "plain_event"]);
  });

  it("serves a scoped type to a caller whose scope implies its scopes (defineAuthorization's implies)", async () => {
    const { body } = await call("events/list", {}, "walt.writer");
    expect(body.result.events.map((e: { name: string }) => e.name)).toEqual(["test_event", "scoped_event"]);
    // And streamed to it: the stream opens (SSE), where a caller without the scope is refused.
    const stream = async (token: string) => {
      const { message, headers } = buildModernRequest("events/stream", { name: "scoped_event", arguments: {}, cursor: null });
      return eventsWorker.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...headers, Authorization: `Bearer ${token}` },
          body: JSON.stringify(message),
        }),
        env as never,
        createExecutionContext(),
      );
    };
    const opened = await stream("walt.writer");
    expect(opened.headers.get("Content-Type")).toBe("text/event-stream");
    await opened.body?.cancel();
    const refused = await stream("walt.noscope");
    expect(((await refused.json()) as RpcMessage).error).toMatchObject({ code: -32012 });
  });

  it("answers a bad cursor with -32602", async () => {
    const { status, body } = await call("events/list", { cursor: "nonsense" }, "alice");
    expect(status).toBe(200);
    expect(body.error!.code).toBe(-32602);
  });
});

describe("2025-11-25 sessions", () => {
  it("are not offered events: no capability at initialize, and events/* is -32601", async () => {
    const send = async (message: object, sessionId?: string) => {
      const ctx = createExecutionContext();
      const res = await eventsWorker.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...legacyHeaders(sessionId), Authorization: "Bearer alice" },
          body: JSON.stringify(message),
        }),
        env as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const init = await send(initializeMessage());
    const session = init.headers.get("Mcp-Session-Id")!;
    const text = await init.text();
    const result = JSON.parse(text.includes("data:") ? text.split("data: ").pop()! : text).result;
    expect(result.capabilities.extensions?.["io.modelcontextprotocol/events"]).toBeUndefined();
    expect(result.capabilities.events).toBeUndefined();
    await send({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    const list = await send({ jsonrpc: "2.0", id: 2, method: "events/list", params: {} }, session);
    const listText = await list.text();
    const answer = JSON.parse(listText.includes("data:") ? listText.split("data: ").pop()! : listText);
    expect(answer.error.code).toBe(-32601);
  });
});
