/**
 * Take-or-require input on the 2025-11-25 lane (DESIGN "The application
 * API"): a tool that needs the user sends a real `elicitation/create` request
 * on its POST stream, the client answers with a JSON-RPC response POST, and
 * the tool runs again with the answer — also when the session object was
 * evicted in between, because the waiting call lives in storage.
 */
import { evictAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { expectRpcError } from "../helpers/mcp";
import {
  type EventReader,
  call,
  cancelAllReaders,
  getStream,
  instanceMarked,
  markInstance,
  notify,
  openSession,
  request,
  respond,
  sessionStub,
  sse,
  splitId,
} from "../helpers/legacy";

afterEach(cancelAllReaders);

const ELICITING = { elicitation: {} };

/** Starts greet and reads up to its elicitation request; returns the reader, the request and the last event id. */
async function startGreet(sessionId: string, callId: string | number = "greet-1") {
  const res = await request(sessionId, "tools/call", { name: "greet", arguments: {} }, { id: callId });
  const reader = sse(res);
  const priming = await reader.next();
  expect(priming?.data).toBe("");
  const ask = await reader.nextMessage();
  expect(ask?.message).toBeDefined();
  return { reader, ask: ask!.message!, askEventId: ask!.id!, stream: splitId(priming!.id).stream };
}

/** Reads the call's final response from a stream and asserts the stream then ends. */
async function resultOn(reader: EventReader) {
  const rest = await reader.rest(5000);
  const responses = rest.filter((e) => e.message && ("result" in e.message || "error" in e.message));
  expect(responses).toHaveLength(1);
  return responses[0]!.message!;
}

describe("elicitation round trip", () => {
  it("2025-11-25: greet answers SSE carrying an elicitation/create request with a server id", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { ask } = await startGreet(s.id);
    expect(ask.method).toBe("elicitation/create");
    expect(typeof ask.id === "string" || typeof ask.id === "number").toBe(true);
    expect(ask.id).not.toBe("greet-1");
    expect(ask.params).toMatchObject({
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
  });

  it("2025-11-25: the client's answer is accepted with 202 and the result arrives on the still-open stream", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id);
    const ack = await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Ada" } } });
    expect(ack.status).toBe(202);
    expect(await ack.text()).toBe("");
    const final = await resultOn(reader);
    expect(final).toMatchObject({ jsonrpc: "2.0", id: "greet-1", result: { content: [{ type: "text", text: "Hello, Ada!" }] } });
    expect(final.result.isError).toBeUndefined();
  });

  it("2025-11-25: a declined elicitation reaches the tool, which answers accordingly", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id);
    expect((await respond(s.id, ask.id!, { result: { action: "decline" } })).status).toBe(202);
    const final = await resultOn(reader);
    expect(final.result.content[0].text).toBe("No name given; hello anyway!");
  });

  it("2025-11-25: with the stream dropped, the result is fetched by GET with Last-Event-ID", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask, askEventId, stream } = await startGreet(s.id);
    await reader.cancel();
    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Grace" } } })).status).toBe(202);
    const replay = sse(await getStream(s.id, askEventId));
    const final = await resultOn(replay);
    expect(final).toMatchObject({ id: "greet-1", result: { content: [{ text: "Hello, Grace!" }] } });
    for (const e of replay.events) expect(splitId(e.id).stream).toBe(stream);
  });

  it("2025-11-25: the session object evicted between the elicitation request and the answer still delivers the result on the open stream", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id);
    const stub = sessionStub(s.id);
    await markInstance(stub);
    await evictDurableObject(stub);
    expect(await instanceMarked(stub)).toBe(false);

    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Linus" } } })).status).toBe(202);
    const final = await resultOn(reader);
    expect(final).toMatchObject({ id: "greet-1", result: { content: [{ text: "Hello, Linus!" }] } });
  });

  it("2025-11-25: after evicting every object with the stream dropped, the answer still completes the call (resumed by Last-Event-ID)", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask, askEventId } = await startGreet(s.id, 41);
    await reader.cancel();
    await evictAllDurableObjects();
    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Barbara" } } })).status).toBe(202);
    await evictAllDurableObjects();
    const final = await resultOn(sse(await getStream(s.id, askEventId)));
    expect(final).toMatchObject({ id: 41, result: { content: [{ text: "Hello, Barbara!" }] } });
  });

  it("2025-11-25: two calls waiting on the user at once each get the answer meant for them, whatever the order", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const first = await startGreet(s.id, "first");
    const second = await startGreet(s.id, "second");
    expect(first.ask.id).not.toEqual(second.ask.id);
    expect(first.stream).not.toBe(second.stream);
    expect((await respond(s.id, second.ask.id!, { result: { action: "accept", content: { name: "Second" } } })).status).toBe(202);
    expect(await resultOn(second.reader)).toMatchObject({ id: "second", result: { content: [{ text: "Hello, Second!" }] } });
    expect(first.reader.ended).toBe(false);
    expect((await respond(s.id, first.ask.id!, { result: { action: "accept", content: { name: "First" } } })).status).toBe(202);
    expect(await resultOn(first.reader)).toMatchObject({ id: "first", result: { content: [{ text: "Hello, First!" }] } });
  });

  it("2025-11-25: an answer is taken once: answering the same server request again is 400", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id);
    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Ada" } } })).status).toBe(202);
    await resultOn(reader);
    await expectRpcError(await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Eve" } } }), 400, -32600);
  });

  it("2025-11-25: a malformed answer is 400 and the request stays pending for a good one", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id);
    await expectRpcError(await respond(s.id, ask.id!, { result: { action: "maybe" } }), 400, -32602);
    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Ada" } } })).status).toBe(202);
    expect((await resultOn(reader)).result.content[0].text).toBe("Hello, Ada!");
  });

  it("2025-11-25: an answer POSTed in another session is 400 and does not complete the call", async () => {
    const [s, other] = await Promise.all([openSession({ capabilities: ELICITING }), openSession({ capabilities: ELICITING })]);
    const { reader, ask } = await startGreet(s.id);
    const res = await respond(other.id, ask.id!, { result: { action: "accept", content: { name: "Mallory" } } });
    expect(res.status).toBe(400);
    await res.body?.cancel();
    expect(await reader.nextMessage(300)).toBeUndefined();
    expect(reader.ended).toBe(false);
  });
});

describe("failures", () => {
  it("2025-11-25: a client without the elicitation capability gets an error instead of an elicitation request", async () => {
    const s = await openSession({ capabilities: {} });
    const body = await call(s.id, "tools/call", { name: "greet", arguments: {} }, { id: "no-cap" });
    expect(body.id).toBe("no-cap");
    const failed = body.error !== undefined || body.result?.isError === true;
    expect(failed, JSON.stringify(body)).toBe(true);
    expect(JSON.stringify(body.error ?? body.result)).toMatch(/elicitation/);
  });

  it("2025-11-25: notifications/cancelled for a call waiting on the user ends its stream without a result", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id, "to-cancel");
    const ack = await notify(s.id, "notifications/cancelled", { requestId: "to-cancel", reason: "user gave up" });
    expect(ack.status).toBe(202);
    const rest = await reader.rest(3000);
    expect(rest.some((e) => e.message && ("result" in e.message || "error" in e.message))).toBe(false);
    // The server request is gone with the call: a late answer is refused.
    const late = await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Late" } } });
    expect(late.status).toBe(400);
    await late.body?.cancel();
  });

  it("2025-11-25: notifications/cancelled also ends a waiting call after the session object was evicted", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id, 808);
    await evictDurableObject(sessionStub(s.id));
    expect((await notify(s.id, "notifications/cancelled", { requestId: 808 })).status).toBe(202);
    const rest = await reader.rest(3000);
    expect(rest.some((e) => e.message && ("result" in e.message || "error" in e.message))).toBe(false);
    const late = await respond(s.id, ask.id!, { result: { action: "decline" } });
    expect(late.status).toBe(400);
    await late.body?.cancel();
  });

  it("2025-11-25: an error response from the client fails the call with a JSON-RPC error", async () => {
    const s = await openSession({ capabilities: ELICITING });
    const { reader, ask } = await startGreet(s.id, "err-call");
    const ack = await respond(s.id, ask.id!, { error: { code: -1, message: "User closed the dialog" } });
    expect(ack.status).toBe(202);
    const final = await resultOn(reader);
    expect(final.id).toBe("err-call");
    expect(final.result).toBeUndefined();
    expect(typeof final.error?.code).toBe("number");
    expect(final.error?.message).toMatch(/User closed the dialog/);
  });
});
