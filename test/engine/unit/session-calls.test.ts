/**
 * The 2025 session's call rules, run in Node through the same functions the session object calls
 * (onRequest, onResponse, onNotification) over the harness's real store, log and alarm: a call that
 * needs input gets a stream with the server's request on it and a pending row with a deadline; the
 * client's answer runs it again and its result ends the stream; a wrong answer leaves the request
 * pending; cancelling a waiting call ends its stream without a result.
 */
import { describe, expect, it } from "vitest";
import { ANONYMOUS } from "../../../src/engine/mcp/auth";
import { onNotification, onRequest, onResponse } from "../../../src/engine/objects/session-messages";
import { sessionHarness, settle } from "./session-harness";

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

async function startAsking(h: ReturnType<typeof sessionHarness>) {
  const answer = await onRequest(h.host, call(1, "ask_name"), ANONYMOUS);
  expect(answer.kind).toBe("stream");
  const stream = (answer as { stream: string }).stream;
  const asked = h.events(stream);
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatchObject({ jsonrpc: "2.0", method: "elicitation/create", params: { message: "Your name?" } });
  return { stream, rpcId: asked[0]!.id as string };
}

describe("a call that needs the client's input", () => {
  it("is answered with JSON when it needs nothing, and stores nothing", async () => {
    const h = sessionHarness();
    const answer = await onRequest(h.host, call(1, "echo", { text: "hi" }), ANONYMOUS);
    // Serialised once, in the session: the Worker sends the text as it is.
    expect(answer).toEqual({
      kind: "json",
      text: JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } }),
    });
    expect(h.store.ready).toBe(false);
    expect(h.alarm()).toBeNull();
  });

  it("asks on its own stream, keeps the request pending until its deadline, and the alarm covers that deadline", async () => {
    const h = sessionHarness({ PENDING_REQUEST_SECONDS: "60" });
    const before = Date.now();
    const { stream } = await startAsking(h);
    expect(h.store.pendingCount(stream)).toBe(1);
    expect(h.store.hasCall(stream)).toBe(true);
    await settle();
    // The pending request's deadline (60 s) comes long before the idle expiry (an hour).
    expect(h.alarm()).toBeGreaterThanOrEqual(before + 60_000);
    expect(h.alarm()).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("runs again with the client's answer: the result is the stream's last event, and the stream, the call and the request are gone", async () => {
    const h = sessionHarness();
    const { stream, rpcId } = await startAsking(h);
    const socket = h.connect(stream);
    expect(
      await onResponse(h.host, { jsonrpc: "2.0", id: rpcId, result: { action: "accept", content: { name: "Ada" } } }, ANONYMOUS),
    ).toEqual({
      kind: "accepted",
    });
    await settle();
    const all = h.events(stream);
    expect(all.map((e) => e.id)).toEqual([rpcId, 1]);
    expect(all[1]).toEqual({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Hello, Ada!" }] } });
    expect(h.store.isClosed(stream)).toBe(true);
    expect(h.store.pendingCount()).toBe(0);
    expect(h.store.hasCall(stream)).toBe(false);
    // A connected client got the answer live, then the end of the stream.
    expect(socket.frames.map((f) => (f.end ? "end" : f.e))).toEqual([`${stream}-2`, "end"]);
  });

  it("keeps the request pending when the answer has the wrong shape, so a well-formed one still completes the call", async () => {
    const h = sessionHarness();
    const { stream, rpcId } = await startAsking(h);
    const refused = await onResponse(h.host, { jsonrpc: "2.0", id: rpcId, result: { action: "maybe" } }, ANONYMOUS);
    expect(refused).toMatchObject({ kind: "refused", refusal: "invalid" });
    expect(h.store.pendingCount(stream)).toBe(1);
    await onResponse(h.host, { jsonrpc: "2.0", id: rpcId, result: { action: "decline" } }, ANONYMOUS);
    await settle();
    expect(h.events(stream).at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "Hello, whoever you are!" }] },
    });
  });

  it("refuses an answer to a request it never sent, and one sent twice", async () => {
    const h = sessionHarness();
    const { rpcId } = await startAsking(h);
    expect(await onResponse(h.host, { jsonrpc: "2.0", id: "s999", result: {} }, ANONYMOUS)).toMatchObject({ kind: "refused" });
    await onResponse(h.host, { jsonrpc: "2.0", id: rpcId, result: { action: "cancel" } }, ANONYMOUS);
    expect(await onResponse(h.host, { jsonrpc: "2.0", id: rpcId, result: { action: "cancel" } }, ANONYMOUS)).toMatchObject({
      kind: "refused",
    });
  });

  it("ends a waiting call's stream without a result when the client cancels it", async () => {
    const h = sessionHarness();
    const { stream } = await startAsking(h);
    await onNotification(h.host, "notifications/cancelled", { requestId: 1 });
    expect(h.store.isClosed(stream)).toBe(true);
    expect(h.store.hasCall(stream)).toBe(false);
    expect(h.store.pendingCount()).toBe(0);
    expect(h.events(stream).some((e) => e.id === 1)).toBe(false);
  });

  it("refuses a call whose questions would pass MAX_PENDING_PER_SESSION, with an error that names the setting", async () => {
    const h = sessionHarness({ MAX_PENDING_PER_SESSION: "1" });
    await startAsking(h);
    // Refused before it asks anything, so before it needs a stream: the answer is plain JSON.
    const second = await onRequest(h.host, call(2, "ask_name"), ANONYMOUS);
    expect(second.kind).toBe("json");
    expect(JSON.parse((second as { text: string }).text)).toMatchObject({
      id: 2,
      error: { code: -32603, message: expect.stringContaining("MAX_PENDING_PER_SESSION") },
    });
    expect(h.store.pendingCount()).toBe(1);
  });
});
