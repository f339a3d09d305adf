/**
 * events/poll through /mcp (test/engine/app/events-app.ts): a null cursor starts from now, then each
 * poll returns what its arguments match since its cursor, in order, `maxEvents` at a time with
 * `hasMore`; an opaque cursor a client cannot forge, `truncated` when the bounded log dropped some, and
 * a type without replay offers no polling. A webhook subscriber that resubscribes with its last cursor
 * gets what it missed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, freshSecret, receiver, stubReceivers, until } from "../helpers/events";

beforeAll(stubReceivers);
afterAll(() => vi.restoreAllMocks());

const poll = (params: Record<string, unknown>, token = "alice") => call("events/poll", { name: "test_event", ...params }, token);
const emitTest = (topic: string, text: string, count = 1) =>
  call("tools/call", { name: "emit_test_event", arguments: { topic, text, count } }, "emitter");

describe("events/poll", () => {
  it("starts from now with a null cursor, then returns the matching events in order, maxEvents at a time", async () => {
    await emitTest("p1", "before the first poll");
    const start = (await poll({ arguments: { topic: "p1" }, cursor: null })).body.result;
    expect(start).toMatchObject({ resultType: "complete", events: [], truncated: false, hasMore: false });
    expect(start.nextPollMs).toBeGreaterThanOrEqual(1000);
    expect(typeof start.cursor).toBe("string");

    await emitTest("p1", "one", 3);
    await emitTest("p2", "other topic");
    const page1 = (await poll({ arguments: { topic: "p1" }, cursor: start.cursor, maxEvents: 2 })).body.result;
    expect(page1.events.map((e: any) => e.data.seq)).toEqual([1, 2]);
    expect(page1.hasMore).toBe(true);
    expect(page1.events[0]).toMatchObject({ name: "test_event", data: { topic: "p1", text: "one" } });
    expect(page1.events[0].eventId).toBeTruthy();
    const page2 = (await poll({ arguments: { topic: "p1" }, cursor: page1.cursor, maxEvents: 2 })).body.result;
    expect(page2.events.map((e: any) => e.data.seq)).toEqual([3]);
    expect(page2.hasMore).toBe(false);
    const empty = (await poll({ arguments: { topic: "p1" }, cursor: page2.cursor })).body.result;
    expect(empty.events).toEqual([]);
    expect(empty.cursor).toBe(page2.cursor);
  });

  it("says truncated when the bounded log no longer holds what followed the cursor", async () => {
    const start = (await poll({ arguments: { topic: "flood" }, cursor: null })).body.result;
    // The fixture keeps 50 occurrences.
    await emitTest("flood", "x", 60);
    const result = (await poll({ arguments: { topic: "flood" }, cursor: start.cursor, maxEvents: 100 })).body.result;
    expect(result.truncated).toBe(true);
    expect(result.events).toHaveLength(50);
    expect(result.events.at(-1).data.seq).toBe(60);
  });

  it("refuses a forged cursor, one from the future, a type without replay, an unknown type and bad arguments", async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ arguments: { topic: "a" }, cursor: "forged" }, -32602],
      [{ arguments: { topic: "a" }, cursor: 42 }, -32602],
      // Well-formed, but past the log's head: never this log's cursor, so InvalidParams too.
      [{ arguments: { topic: "a" }, cursor: btoa("ev1:999999999") }, -32602],
      [{ name: "plain_event", arguments: {}, cursor: null }, -32014],
      [{ name: "nope", arguments: {}, cursor: null }, -32011],
      [{ arguments: {}, cursor: null }, -32602],
      [{ arguments: { topic: "a" }, cursor: null, maxEvents: 0 }, -32602],
    ];
    for (const [params, code] of cases) {
      const { status, body } = await poll(params);
      expect(status, JSON.stringify(params)).toBe(200);
      expect(body.error!.code, JSON.stringify(params)).toBe(code);
    }
  });

  it("needs no principal for a type without scopes", async () => {
    const { body } = await call("events/poll", { name: "test_event", arguments: { topic: "anon" }, cursor: null });
    expect(typeof body.result.cursor).toBe("string");
  });
});

describe("webhook replay from a cursor", () => {
  it("delivers what a lapsed subscriber missed when it subscribes again with its last cursor", async () => {
    const hook = receiver();
    const secret = freshSecret();
    const params = {
      name: "test_event",
      arguments: { topic: "resume" },
      delivery: { mode: "webhook", url: hook.url, secret },
      cursor: null,
    };
    const first = (await call("events/subscribe", params, "lena")).body.result;
    await call("events/unsubscribe", { name: "test_event", arguments: { topic: "resume" }, delivery: { url: hook.url } }, "lena");
    await emitTest("resume", "missed", 2);
    const again = (await call("events/subscribe", { ...params, cursor: first.cursor }, "lena")).body.result;
    expect(again.truncated).toBe(false);
    await until(() => expect(hook.deliveries.map((d) => d.json.data.seq).sort()).toEqual([1, 2]));
  });
});
