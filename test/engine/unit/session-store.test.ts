/**
 * The 2025 session's storage rules, run in Node over an in-memory SQLite (node-storage.ts): event
 * ids and replay order, the per-stream caps in UTF-8 bytes and events, the replay window and byte cap
 * of finished streams, the deadlines the session's alarm is set from, and what ending leaves behind.
 * The same store inside workerd, through /mcp, is covered by the integration tests.
 */
import { describe, expect, it } from "vitest";
import { SessionStore, eventId, parseEventId, type SessionRow } from "../../../src/engine/objects/session-store";
import { nodeStorage } from "./node-storage";

const ROOMY = { maxEvents: 1_000, maxBytes: 1_000_000 };

function fresh() {
  const storage = nodeStorage();
  const store = new SessionStore(storage.sql, storage.kv);
  store.createSchema();
  return { store, ...storage };
}

const row = (id: string): SessionRow => ({
  id,
  protocolVersion: "2025-11-25",
  clientCapabilities: {},
  principal: "",
  subscriptions: [],
  createdAt: 0,
  lastSeenAt: 0,
  counter: 1,
});

describe("the event log", () => {
  it("numbers each stream's events from 1 in order, and a resume gets exactly the events after its id", () => {
    const { store } = fresh();
    const a = store.openStream("post", 1, 7);
    const b = store.openStream("get", 2);
    expect([
      store.append(a, "a1", ROOMY),
      store.append(b, "b1", ROOMY),
      store.append(a, "a2", ROOMY),
      store.append(a, "a3", ROOMY),
    ]).toEqual([1, 1, 2, 3]);
    const last = parseEventId(eventId(a, 1))!;
    expect(last).toEqual({ stream: a, seq: 1 });
    expect(store.eventsAfter(last.stream, last.seq)).toEqual([
      { seq: 2, data: "a2" },
      { seq: 3, data: "a3" },
    ]);
    expect(store.eventsAfter(b, 0)).toEqual([{ seq: 1, data: "b1" }]);
  });

  it("reads no event id it did not write", () => {
    for (const id of ["", "p1", "p1-", "-1", "P1-1", "p1-1-1", `p${"1".repeat(16)}-1`, "p1-1234567890123"])
      expect(parseEventId(id), id).toBeNull();
  });

  it("keeps a stream within its byte cap counted in UTF-8, dropping the oldest events first", () => {
    const { store } = fresh();
    const s = store.openStream("get", 1);
    // "é" is 2 bytes and "€" 3 in UTF-8, 1 UTF-16 unit each: a cap in characters would keep all of them.
    const limits = { maxEvents: 1_000, maxBytes: 20 };
    for (const data of ["éééé", "€€€€", "éééé", "€€€€"]) store.append(s, data, limits);
    expect(store.eventsAfter(s, 0).map((e) => e.data)).toEqual(["éééé", "€€€€"]);
  });

  it("keeps a stream within its event cap, dropping the oldest first", () => {
    const { store } = fresh();
    const s = store.openStream("get", 1);
    for (let i = 1; i <= 5; i++) store.append(s, `e${i}`, { maxEvents: 3, maxBytes: 1_000 });
    expect(store.eventsAfter(s, 0).map((e) => e.seq)).toEqual([3, 4, 5]);
  });
});

describe("finished streams", () => {
  it("go when their replay window ends, unless a call waiting for input still uses them", () => {
    const { store } = fresh();
    const [old, waiting, recent] = [store.openStream("post", 1, 1), store.openStream("post", 2, 2), store.openStream("post", 3, 3)];
    for (const s of [old, waiting, recent]) store.append(s, "x", ROOMY);
    store.closeStream(old, 100);
    store.closeStream(waiting, 100);
    store.closeStream(recent, 200);
    store.putCall({ stream: waiting, request: JSON.stringify({ id: 2, method: "tools/call" }), answers: {}, state: undefined });
    expect(store.earliestClosedAt()).toBe(100);
    store.dropStreamsClosedBefore(150);
    expect([old, waiting, recent].map((s) => store.kindOf(s) !== undefined)).toEqual([false, true, true]);
    expect(store.earliestClosedAt()).toBe(200);
  });

  it("stay within the session's byte cap for finished logs, the oldest closed going first", () => {
    const { store } = fresh();
    const streams = [1, 2, 3].map((n) => store.openStream("post", n, n));
    streams.forEach((s, i) => {
      store.append(s, "0123456789", ROOMY);
      store.closeStream(s, 100 + i);
    });
    store.trimClosed(25);
    expect(streams.map((s) => store.kindOf(s) !== undefined)).toEqual([false, true, true]);
  });
});

describe("pending server requests", () => {
  it("give the earliest deadline for the alarm, and the streams past theirs", () => {
    const { store } = fresh();
    expect(store.earliestDeadline()).toBeUndefined();
    store.addPending({ rpcId: "s1", stream: "p1", key: "name", method: "elicitation/create", deadline: 300 });
    store.addPending({ rpcId: "s2", stream: "p2", key: "ping", method: "ping", deadline: 200 });
    expect(store.earliestDeadline()).toBe(200);
    expect(store.expiredCalls(250)).toEqual(["p2"]);
    // An expired ping is taken away alone; the elicitation waits for its own deadline.
    expect(store.takeExpiredPings(250)).toEqual(["p2"]);
    expect(store.earliestDeadline()).toBe(300);
    expect(store.takePending("s1")).toMatchObject({ stream: "p1", key: "name" });
    expect(store.takePending("s1")).toBeUndefined();
    expect(store.pendingCount()).toBe(0);
  });

  it("go with their call, which a resumed request finds by its client id", () => {
    const { store } = fresh();
    const s = store.openStream("post", 1, "req-9");
    store.putCall({ stream: s, request: JSON.stringify({ id: "req-9", method: "tools/call" }), answers: { a: 1 }, state: { step: 2 } });
    store.addPending({ rpcId: "s1", stream: s, key: "a", method: "elicitation/create", deadline: 1 });
    expect(store.findCallByRequestId("req-9")).toBe(s);
    expect(store.getCall(s)).toMatchObject({ answers: { a: 1 }, state: { step: 2 } });
    store.deleteCall(s);
    expect([store.hasCall(s), store.pendingCount(s)]).toEqual([false, 0]);
  });
});

describe("the session row", () => {
  it("a session that never held state reads nothing and writes nothing", async () => {
    const storage = nodeStorage();
    const store = new SessionStore(storage.sql, storage.kv);
    expect(await store.load()).toEqual({ row: undefined, endedUntil: undefined });
    expect([store.latestGetStream(), store.pendingCount(), store.takePending("s1"), store.findCallByRequestId(1)]).toEqual([
      undefined,
      0,
      undefined,
      undefined,
    ]);
    expect(storage.sql.exec("SELECT name FROM sqlite_master").toArray()).toEqual([]);
  });

  it("ending leaves only the mark that refuses the id until it expires, with the alarm that removes it", async () => {
    const { store, kv, sql, alarm } = fresh();
    await store.putSession(row("s"));
    store.append(store.openStream("get", 1), "x", ROOMY);
    await store.destroy();
    expect(sql.exec("SELECT name FROM sqlite_master").toArray()).toEqual([]);
    expect(await store.load()).toEqual({ row: undefined, endedUntil: undefined });
    await store.markEnded(5_000);
    expect(await store.load()).toEqual({ row: undefined, endedUntil: 5_000 });
    expect(alarm()).toBe(5_000);
    expect(await kv.get("session")).toBeUndefined();
  });
});
