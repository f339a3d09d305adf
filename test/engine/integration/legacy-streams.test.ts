/**
 * SSE in 2025-11-25 sessions (the 2025 Streamable HTTP transport): POST streams with a
 * priming event and per-stream ids, progress and logging, the standalone GET
 * stream fed by the hub, and Last-Event-ID resumption of one stream only —
 * also after the session object was evicted.
 */
import { evictAllDurableObjects } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { expectRpcError } from "../helpers/mcp";
import {
  type SseEvent,
  call,
  cancelAllReaders,
  getStream,
  notify,
  openSession,
  publish,
  request,
  result,
  sse,
  splitId,
  untilClosed,
} from "../helpers/legacy";

afterEach(cancelAllReaders);

const countdown = (from: number, progressToken?: string | number) => ({
  name: "countdown",
  arguments: { from },
  ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
});

/** Asserts every event has an id of one stream, with strictly increasing seqs; returns the stream name. */
function expectOneStreamIncreasing(events: SseEvent[]): string {
  const ids = events.map((e) => splitId(e.id));
  const stream = ids[0]!.stream;
  for (const id of ids) expect(id.stream).toBe(stream);
  for (let i = 1; i < ids.length; i++) expect(ids[i]!.seq).toBeGreaterThan(ids[i - 1]!.seq);
  return stream;
}

describe("POST streams", () => {
  it("2025-11-25: a countdown with a progressToken answers SSE: priming event, progress and log notifications with increasing ids, then the result", async () => {
    const s = await openSession();
    const res = await request(s.id, "tools/call", countdown(3, "tok-1"), { id: "cd-1" });
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    const reader = sse(res);
    const events = await reader.rest(5000);

    const priming = events[0]!;
    expect(priming.data).toBe("");
    expect(priming.id).toBeTruthy();
    expect(events.every((e) => e.id !== undefined)).toBe(true);
    expectOneStreamIncreasing(events);

    const messages = events.slice(1).map((e) => e.message!);
    const progress = messages.filter((m) => m.method === "notifications/progress");
    expect(progress.map((p) => p.params.progress)).toEqual([0, 1, 2, 3]);
    for (const p of progress) expect(p.params).toMatchObject({ progressToken: "tok-1", total: 3 });
    const logs = messages.filter((m) => m.method === "notifications/message");
    expect(logs.map((l) => l.params.data)).toEqual(["countdown at 3", "countdown at 2", "countdown at 1"]);
    for (const l of logs) expect(l.params.level).toBe("info");

    const last = messages.at(-1)!;
    expect(last).toMatchObject({ jsonrpc: "2.0", id: "cd-1", result: { content: [{ type: "text", text: "Liftoff!" }] } });
    expect(last.result).not.toHaveProperty("resultType");
    expect(messages.filter((m) => "result" in m || "error" in m)).toHaveLength(1);
  });

  it("2025-11-25: the priming event is the first thing on the stream, before any notification", async () => {
    const s = await openSession();
    const reader = sse(await request(s.id, "tools/call", countdown(1, 1)));
    const first = await reader.next();
    expect(first).toBeDefined();
    expect(first!.data).toBe("");
    expect(splitId(first!.id).seq).toBe(0);
    const second = await reader.next();
    expect(second?.message?.method).toBe("notifications/progress");
    expect(splitId(second!.id).stream).toBe(splitId(first!.id).stream);
  });

  it("2025-11-25: an integer progressToken is echoed as an integer", async () => {
    const s = await openSession();
    const events = await sse(await request(s.id, "tools/call", countdown(1, 77))).rest();
    const progress = events.filter((e) => e.message?.method === "notifications/progress");
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.message!.params.progressToken).toBe(77);
  });

  it("2025-11-25: log notifications respect logging/setLevel", async () => {
    const s = await openSession();
    expect(await result(s.id, "logging/setLevel", { level: "warning" })).toEqual({});
    const events = await sse(await request(s.id, "tools/call", countdown(2, "lvl"))).rest();
    const methods = events.filter((e) => e.message?.method).map((e) => e.message!.method);
    expect(methods).toContain("notifications/progress");
    expect(methods).not.toContain("notifications/message");

    // Lowering the level again brings the info logs back.
    expect(await result(s.id, "logging/setLevel", { level: "info" })).toEqual({});
    const again = await sse(await request(s.id, "tools/call", countdown(2, "lvl2"))).rest();
    expect(again.filter((e) => e.message?.method === "notifications/message")).toHaveLength(2);
  });

  it("2025-11-25: a call that sends nothing before its result is answered with plain JSON", async () => {
    const s = await openSession();
    const body = await call(s.id, "tools/call", { name: "roll_dice", arguments: { sides: 6, count: 2 } }, { id: "dice" });
    expect(body.id).toBe("dice");
    expect(body.result.content[0].text).toMatch(/^Rolled 2d6: \d, \d \(total \d+\)$/);
  });

  it("2025-11-25: a countdown without progressToken at log level error sends nothing early and answers JSON", async () => {
    const s = await openSession();
    await result(s.id, "logging/setLevel", { level: "error" });
    const body = await call(s.id, "tools/call", countdown(1));
    expect(body.result.content[0].text).toBe("Liftoff!");
  });

  it("2025-11-25: a 2025-06-18 session gets ids but no priming event (older clients choke on empty data)", async () => {
    const s = await openSession({ protocolVersion: "2025-06-18" });
    const events = await sse(
      await request(s.id, "tools/call", countdown(1, "old"), { headers: { "MCP-Protocol-Version": "2025-06-18" } }),
    ).rest();
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.data !== "" && e.id !== undefined)).toBe(true);
    expect(events[0]!.message?.method).toBe("notifications/progress");
  });

  it("2025-11-25: notifications/cancelled for a running call ends its stream without a result", async () => {
    const s = await openSession();
    const reader = sse(await request(s.id, "tools/call", countdown(10, "cancel-me"), { id: "running" }));
    await reader.next();
    expect((await reader.nextMessage())?.message?.method).toBe("notifications/progress");
    const ack = await notify(s.id, "notifications/cancelled", { requestId: "running" });
    expect(ack.status).toBe(202);
    const rest = await reader.rest(3000);
    expect(rest.some((e) => e.message && ("result" in e.message || "error" in e.message))).toBe(false);
    expect(rest.filter((e) => e.message?.method === "notifications/progress").length).toBeLessThan(10);
  });

  it("2025-11-25: each POST stream has its own stream name in its ids", async () => {
    const s = await openSession();
    const a = await sse(await request(s.id, "tools/call", countdown(1, "a"))).rest();
    const b = await sse(await request(s.id, "tools/call", countdown(1, "b"))).rest();
    expect(expectOneStreamIncreasing(a)).not.toBe(expectOneStreamIncreasing(b));
  });
});

describe("the standalone GET stream", () => {
  it("2025-11-25: GET opens the standalone stream with a priming event", async () => {
    const s = await openSession();
    const res = await getStream(s.id);
    expect(res.headers.get("X-Accel-Buffering")).toBe("no");
    const reader = sse(res);
    const first = await reader.next();
    expect(first?.data).toBe("");
    expect(splitId(first!.id).seq).toBe(0);
    expect(await reader.next(200)).toBeUndefined();
    expect(reader.ended).toBe(false);
  });

  it("2025-11-25: a hub publish of tools/list_changed arrives on the GET stream with the next id", async () => {
    const s = await openSession();
    const reader = sse(await getStream(s.id));
    const priming = await reader.next();
    await publish({ method: "notifications/tools/list_changed" });
    const ev = await reader.until((m) => m.method === "notifications/tools/list_changed");
    expect(ev?.message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    // The id names the same stream, and moves past the priming one (in the hub's log, where the notification is).
    expect(splitId(ev!.id).stream).toBe(splitId(priming!.id).stream);
    expect(splitId(ev!.id).hub).toBeGreaterThan(splitId(priming!.id).hub!);
  });

  it("2025-11-25: resources/updated reaches only the session that subscribed to the uri", async () => {
    const [sub, other] = await Promise.all([openSession(), openSession()]);
    expect(await result(sub.id, "resources/subscribe", { uri: "info://about" })).toEqual({});
    const subReader = sse(await getStream(sub.id));
    const otherReader = sse(await getStream(other.id));
    await subReader.next();
    await otherReader.next();

    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    const got = await subReader.until((m) => m.method === "notifications/resources/updated");
    expect(got?.message?.params).toEqual({ uri: "info://about" });
    expect(await otherReader.until((m) => m.method === "notifications/resources/updated", 500)).toBeUndefined();
  });

  it("2025-11-25: after resources/unsubscribe, resources/updated no longer arrives", async () => {
    const s = await openSession();
    await result(s.id, "resources/subscribe", { uri: "info://about" });
    await result(s.id, "resources/unsubscribe", { uri: "info://about" });
    const reader = sse(await getStream(s.id));
    await reader.next();
    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    expect(await reader.until((m) => m.method === "notifications/resources/updated", 500)).toBeUndefined();
  });
});

describe("resumption with Last-Event-ID", () => {
  /** Starts a countdown, reads the priming event and the first message, then drops the connection. */
  async function startAndDrop(sessionId: string, from = 3) {
    const reader = sse(await request(sessionId, "tools/call", countdown(from, "resume"), { id: "resume-call" }));
    const priming = (await reader.next())!;
    const first = (await reader.next())!;
    expect(first.message?.method).toBe("notifications/progress");
    await reader.cancel();
    return { stream: splitId(priming.id).stream, lastId: first.id! };
  }

  it("2025-11-25: a dropped POST stream is not a cancellation: GET with Last-Event-ID replays the later events and the result", async () => {
    const s = await openSession();
    const { stream, lastId } = await startAndDrop(s.id);
    const replay = await sse(await getStream(s.id, lastId)).rest(5000);
    expect(replay.length).toBeGreaterThan(0);
    expect(replay.every((e) => e.data !== "")).toBe(true);
    for (const e of replay) {
      expect(splitId(e.id).stream).toBe(stream);
      expect(splitId(e.id).seq).toBeGreaterThan(splitId(lastId).seq);
    }
    expectOneStreamIncreasing(replay);
    const last = replay.at(-1)!.message!;
    expect(last).toMatchObject({ id: "resume-call", result: { content: [{ text: "Liftoff!" }] } });
    // The first progress notification (already seen) is not sent again.
    expect(replay.filter((e) => e.message?.method === "notifications/progress").map((e) => e.message!.params.progress)).toEqual([1, 2, 3]);
  });

  it("2025-11-25: replay never includes another stream's events", async () => {
    const s = await openSession();
    // Another POST stream and the GET stream both carry events in the same session.
    const otherEvents = await sse(await request(s.id, "tools/call", countdown(1, "other"))).rest();
    const get = sse(await getStream(s.id));
    await get.next();
    await publish({ method: "notifications/prompts/list_changed" });
    expect(await get.until((m) => m.method === "notifications/prompts/list_changed")).toBeDefined();

    const { stream, lastId } = await startAndDrop(s.id);
    const replay = await sse(await getStream(s.id, lastId)).rest(5000);
    for (const e of replay) expect(splitId(e.id).stream).toBe(stream);
    expect(replay.some((e) => e.message?.method === "notifications/prompts/list_changed")).toBe(false);
    expect(replay.some((e) => e.message?.params?.progressToken === "other")).toBe(false);
    expect(otherEvents.length).toBeGreaterThan(0);
  });

  it("2025-11-25: resuming from the priming id replays the whole stream", async () => {
    const s = await openSession();
    const original = await sse(await request(s.id, "tools/call", countdown(2, "whole"))).rest();
    const replay = await sse(await getStream(s.id, original[0]!.id)).rest();
    expect(replay.map((e) => e.id)).toEqual(original.slice(1).map((e) => e.id));
    expect(replay.map((e) => e.data)).toEqual(original.slice(1).map((e) => e.data));
  });

  it("2025-11-25: replays of a finished stream do not use up the session's open-stream limit", async () => {
    const s = await openSession();
    const original = await sse(await request(s.id, "tools/call", countdown(1, "again"))).rest();
    // More replays than MAX_STREAMS_PER_SESSION (16): each connection must be released when its replay ends.
    for (let i = 0; i < 20; i++) {
      const replay = await sse(await getStream(s.id, original[0]!.id)).rest();
      expect(replay.map((e) => e.id)).toEqual(original.slice(1).map((e) => e.id));
    }
    const fresh = sse(await getStream(s.id));
    expect((await fresh.next())!.data).toBe("");
    await fresh.cancel();
  });

  it("2025-11-25: Last-Event-ID replay works after every Durable Object was evicted", async () => {
    const s = await openSession();
    const { stream, lastId } = await startAndDrop(s.id);
    // The countdown finishes (its stream closes with every event stored), then every in-memory instance goes.
    await untilClosed(s.id, stream);
    await evictAllDurableObjects();
    const replay = await sse(await getStream(s.id, lastId)).rest(5000);
    for (const e of replay) expect(splitId(e.id).stream).toBe(stream);
    expect(replay.at(-1)!.message).toMatchObject({ id: "resume-call", result: { content: [{ text: "Liftoff!" }] } });
    expect(replay.filter((e) => e.message?.method === "notifications/progress")).toHaveLength(3);
  });

  it("2025-11-25: GET with Last-Event-ID of the standalone stream replays its later notifications", async () => {
    const s = await openSession();
    const get = sse(await getStream(s.id));
    const priming = (await get.next())!;
    await publish({ method: "notifications/tools/list_changed" });
    await publish({ method: "notifications/prompts/list_changed" });
    const a = await get.until((m) => m.method === "notifications/tools/list_changed");
    const b = await get.until((m) => m.method === "notifications/prompts/list_changed");
    expect(a && b).toBeTruthy();
    await get.cancel();

    const resumed = sse(await getStream(s.id, a!.id));
    const next = await resumed.until((m) => m.method === "notifications/prompts/list_changed", 2000);
    expect(next?.id).toBe(b!.id);
    expect(resumed.events.some((e) => e.message?.method === "notifications/tools/list_changed")).toBe(false);
    expect(splitId(next!.id).stream).toBe(splitId(priming.id).stream);
  });

  it.each(["p999-1", "nonsense", "g1-abc"])("2025-11-25: an unknown Last-Event-ID (%s) is 400", async (lastEventId) => {
    const s = await openSession();
    const res = await getStream(s.id, lastEventId);
    await expectRpcError(res, 400, -32600);
  });
});
