/**
 * Durable Object faults in the middle of streams, pending elicitations and
 * listen subscriptions: `abortAllDurableObjects` (every instance reset, as a
 * crash or a deploy would) and `evictAllDurableObjects` (graceful, sockets
 * closed). Nothing acknowledged is lost: a 2025 call waiting on the user can
 * still be answered and its result fetched with Last-Event-ID, a broken GET
 * stream resumes with the events logged before and during the outage, and a
 * 2026 client whose stream broke retries (the 2026 rule: a broken stream
 * loses the request) and is served.
 */
import { abortAllDurableObjects, evictAllDurableObjects } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { SseReader, modernPost, modernResult, type RpcMessage } from "../helpers/mcp";
import {
  type EventReader,
  cancelAllReaders,
  getStream,
  openSession,
  publish,
  request,
  respond,
  result,
  sse,
  splitId,
} from "../helpers/legacy";

const modernReaders: SseReader[] = [];
afterEach(async () => {
  await cancelAllReaders();
  await Promise.all(modernReaders.splice(0).map((r) => r.cancel()));
});

const ELICIT = { elicitation: {} };
const CONVERT = { name: "convert_temperature", arguments: { value: 0, from: "celsius" } };

type Fault = "abort" | "evict (sockets closed)";
const FAULTS: [Fault, () => Promise<void>][] = [
  ["abort", () => abortAllDurableObjects()],
  ["evict (sockets closed)", () => evictAllDurableObjects({ webSockets: "close" })],
];

/** Starts greet in a session and reads up to its elicitation request. */
async function startGreet(sessionId: string, callId: string | number) {
  const reader = sse(await request(sessionId, "tools/call", { name: "greet", arguments: {} }, { id: callId }));
  const priming = await reader.next();
  expect(priming?.data).toBe("");
  const ask = await reader.nextMessage();
  expect(ask?.message?.method).toBe("elicitation/create");
  return { reader, ask: ask!.message!, askEventId: ask!.id!, primingId: priming!.id! };
}

/** Reads a stream until it ends; asserts it ended (a broken connection), returning what came. */
async function expectBroken(reader: EventReader) {
  const rest = await reader.rest(3000);
  expect(reader.ended).toBe(true);
  return rest;
}

const final = (events: { message?: RpcMessage }[], id: string | number) =>
  events.find((e) => e.message?.id === id && ("result" in e.message || "error" in e.message))?.message;

describe.each(FAULTS)("2025-11-25 sessions: %s of every Durable Object", (_name, fault) => {
  it("2025-11-25: a call waiting on the user survives; its stream broke, the answer is accepted and the result is fetched with Last-Event-ID", async () => {
    const s = await openSession({ capabilities: ELICIT });
    const { reader, ask, askEventId } = await startGreet(s.id, "waiting");
    await fault();
    const broken = await expectBroken(reader);
    expect(final(broken, "waiting")).toBeUndefined();

    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Ada" } } })).status).toBe(202);
    const replay = sse(await getStream(s.id, askEventId));
    const got = await replay.until((m) => m.id === "waiting");
    expect(got?.message).toMatchObject({ id: "waiting", result: { content: [{ text: "Hello, Ada!" }] } });
    expect(splitId(got!.id).stream).toBe(splitId(askEventId).stream);
  });

  it("2025-11-25: an answer that arrives before the fault is not lost: the result is replayed after it", async () => {
    const s = await openSession({ capabilities: ELICIT });
    const { reader, ask, primingId } = await startGreet(s.id, 77);
    expect((await respond(s.id, ask.id!, { result: { action: "accept", content: { name: "Grace" } } })).status).toBe(202);
    expect(final(await reader.rest(3000), 77)).toBeDefined();
    await fault();
    const replay = await sse(await getStream(s.id, primingId)).rest(3000);
    expect(replay.map((e) => e.message?.method ?? e.message?.id)).toEqual(["elicitation/create", 77]);
    expect(final(replay, 77)).toMatchObject({ result: { content: [{ text: "Hello, Grace!" }] } });
  });

  it("2025-11-25: a GET stream broken by the fault resumes with Last-Event-ID: events logged before and during the outage are replayed", async () => {
    const s = await openSession();
    const get = sse(await getStream(s.id));
    await get.next(); // priming
    await publish({ method: "notifications/tools/list_changed" });
    await publish({ method: "notifications/prompts/list_changed" });
    const first = await get.until((m) => m.method === "notifications/tools/list_changed");
    const second = await get.until((m) => m.method === "notifications/prompts/list_changed");
    expect(first && second).toBeTruthy();

    await fault();
    await expectBroken(get);
    // Published while the client is disconnected: logged on the session's GET stream.
    await publish({ method: "notifications/resources/list_changed" });

    const resumed = sse(await getStream(s.id, first!.id));
    const replayedSecond = await resumed.until((m) => m.method === "notifications/prompts/list_changed");
    expect(replayedSecond?.id).toBe(second!.id);
    const during = await resumed.until((m) => m.method === "notifications/resources/list_changed");
    expect(during).toBeDefined();
    expect(splitId(during!.id).stream).toBe(splitId(first!.id).stream);
    expect(resumed.events.some((e) => e.message?.method === "notifications/tools/list_changed")).toBe(false);
    // And it stays live: a notification published now arrives on it.
    await publish({ method: "notifications/tools/list_changed" });
    expect(await resumed.until((m) => m.method === "notifications/tools/list_changed")).toBeDefined();
  });

  it("2025-11-25: a call running (not waiting) when the fault hits ends with its result or, if its handler was lost, an error on its stream; the retry is served", async () => {
    const s = await openSession();
    const reader = sse(
      await request(s.id, "tools/call", { name: "countdown", arguments: { from: 5 }, _meta: { progressToken: "cd" } }, { id: "running" }),
    );
    await reader.next(); // priming
    const progress = await reader.until((m) => m.method === "notifications/progress");
    expect(progress).toBeDefined();
    await fault();
    const broken = await expectBroken(reader);
    // Resume from the last event seen.
    const resumed = await sse(await getStream(s.id, progress!.id)).rest(3000);
    const end = final([...broken, ...resumed], "running");
    if (_name === "abort") {
      // The handler was lost with the instance: the stream says so instead of leaving the client waiting forever.
      expect(end?.error?.code).toBe(-32603);
      expect(end?.error?.message).toMatch(/send it again/);
      expect(end?.result).toBeUndefined();
    } else {
      // A graceful eviction lets the running handler finish first: its result is delivered.
      expect(end?.result?.content[0].text).toBe("Liftoff!");
    }
    // The retry (a new request) runs to completion.
    const retry = await sse(await request(s.id, "tools/call", { name: "countdown", arguments: { from: 2 } }, { id: "retry" })).rest(5000);
    expect(final(retry, "retry")).toMatchObject({ result: { content: [{ text: "Liftoff!" }] } });
  });

  it("2025-11-25: the session and its counters survive: new streams never reuse an id of a stream logged before the fault", async () => {
    const s = await openSession();
    const before = await sse(
      await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } }, { id: "before" }),
    ).rest(3000);
    await fault();
    expect(await result(s.id, "ping")).toEqual({});
    const after = await sse(
      await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 2 } }, { id: "after" }),
    ).rest(3000);
    expect(splitId(after[0]!.id).stream).not.toBe(splitId(before[0]!.id).stream);
    // The old stream still replays its own events, not the new ones.
    const replay = await sse(await getStream(s.id, before[0]!.id)).rest(3000);
    expect(final(replay, "before")).toBeDefined();
    expect(final(replay, "after")).toBeUndefined();
  });
});

describe("2026-07-28: the modern lane through Durable Object faults", () => {
  async function listen(id: string) {
    const res = await modernPost("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id });
    expect(res.status).toBe(200);
    const reader = new SseReader(res);
    modernReaders.push(reader);
    const ack = await reader.next(3000);
    expect(ack?.method).toBe("notifications/subscriptions/acknowledged");
    return reader;
  }

  const nextOf = async (reader: SseReader, match: (m: RpcMessage) => boolean, timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = await reader.next(Math.max(1, deadline - Date.now()));
      if (!m || match(m)) return m;
    }
  };

  it.each(FAULTS)(
    "2026-07-28: a listen stream broken by %s of the hub ends with its listen result; a re-issued listen receives notifications",
    async (_name, fault) => {
      const old = await listen("listen-before");
      await fault();
      const last = await nextOf(old, (m) => m.id === "listen-before");
      expect(last?.result).toMatchObject({ resultType: "complete" });
      expect(await old.next(500)).toBeUndefined();
      expect(old.ended).toBe(true);

      const renewed = await listen("listen-after");
      await publish({ method: "notifications/tools/list_changed" });
      const n = await nextOf(renewed, (m) => m.method === "notifications/tools/list_changed");
      expect(n?.params?._meta?.["io.modelcontextprotocol/subscriptionId"]).toBe("listen-after");
    },
  );

  it.each(FAULTS)(
    "2026-07-28: an input_required result issued before %s still completes on retry (the state travels with the client)",
    async (_name, fault) => {
      const round1 = await modernResult("tools/call", { name: "greet", arguments: {} }, { capabilities: ELICIT });
      expect(round1.resultType).toBe("input_required");
      await fault();
      const r = await modernResult(
        "tools/call",
        {
          name: "greet",
          arguments: {},
          requestState: round1.requestState,
          inputResponses: { who: { action: "accept", content: { name: "Linus" } } },
        },
        { capabilities: ELICIT },
      );
      expect(r).toMatchObject({ resultType: "complete", content: [{ text: "Hello, Linus!" }] });
    },
  );

  it("2026-07-28: a streamed call whose connection breaks is lost (cancelled); the client's retry is served in full", async () => {
    const ac = new AbortController();
    const res = await modernPost(
      "tools/call",
      { name: "countdown", arguments: { from: 3 } },
      { meta: { progressToken: "p" }, signal: ac.signal },
    );
    const reader = new SseReader(res);
    modernReaders.push(reader);
    expect((await reader.next(2000))?.method).toBe("notifications/progress");
    await abortAllDurableObjects(); // the modern lane holds nothing in them
    ac.abort();
    await reader.cancel();

    const retry = new SseReader(
      await modernPost("tools/call", { name: "countdown", arguments: { from: 3 } }, { id: "retry", meta: { progressToken: "p2" } }),
    );
    modernReaders.push(retry);
    const all = await retry.all(5000);
    expect(all.filter((m) => m.method === "notifications/progress").map((m) => m.params.progress)).toEqual([0, 1, 2, 3]);
    expect(all.at(-1)).toMatchObject({ id: "retry", result: { resultType: "complete", content: [{ text: "Liftoff!" }] } });
    // And a plain call after all that.
    expect((await modernResult("tools/call", CONVERT)).structuredContent.fahrenheit).toBe(32);
  });
});
