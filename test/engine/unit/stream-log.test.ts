/**
 * A 2025 session's streams (src/engine/objects/stream-log.ts), run in Node over the real store with fake
 * pipe sockets: every message is stored before it is sent, in order, with the id a resume names; a
 * closed stream tells its connections to end; a socket that fails loses nothing the log keeps; a
 * polling disconnect that finds no connection waits for the next one.
 */
import { describe, expect, it } from "vitest";
import { SessionStore } from "../../../src/engine/objects/session-store";
import { StreamLog } from "../../../src/engine/objects/stream-log";
import { FakeSocket } from "./session-harness";
import { nodeStorage } from "./node-storage";

function fresh() {
  const storage = nodeStorage();
  const store = new SessionStore(storage.sql, storage.kv);
  store.createSchema();
  const sockets = new Map<string, FakeSocket[]>();
  let closedCount = 0;
  const log = new StreamLog(
    store,
    (stream) => (sockets.get(stream) ?? []).filter((s) => !s.closed) as unknown as WebSocket[],
    () => ({ maxEvents: 100, maxBytes: 100_000 }),
    () => closedCount++,
  );
  const connect = (stream: string, socket = new FakeSocket()) => {
    sockets.set(stream, [...(sockets.get(stream) ?? []), socket]);
    return socket;
  };
  return { store, log, connect, closed: () => closedCount };
}

describe("a session's stream log", () => {
  it("stores each message and sends it to every connection with its resumable id, in order", () => {
    const { store, log, connect } = fresh();
    const stream = log.open("post", 5, 1);
    const a = connect(stream);
    const b = connect(stream);
    log.append(stream, { n: 1 });
    log.append(stream, { n: 2 });
    for (const s of [a, b])
      expect(s.frames).toEqual([
        { e: `${stream}-1`, d: '{"n":1}' },
        { e: `${stream}-2`, d: '{"n":2}' },
      ]);
    expect(store.eventsAfter(stream, 1).map((e) => e.data)).toEqual(['{"n":2}']);
  });

  it("keeps in the log what a failed connection did not get, for its resume", () => {
    const { store, log, connect } = fresh();
    const stream = log.open("get", 1);
    const gone = connect(stream);
    gone.closed = true;
    const broken = connect(
      stream,
      Object.assign(new FakeSocket(), {
        send: () => {
          throw new Error("gone");
        },
      }),
    );
    expect(() => log.append(stream, { n: 1 })).not.toThrow();
    expect(broken.frames).toEqual([]);
    expect(store.eventsAfter(stream, 0)).toHaveLength(1);
  });

  it("closes a stream for good: its connections are told to end (or when to come back), and its log stays", () => {
    const { store, log, connect, closed } = fresh();
    const post = log.open("post", 1, 1);
    const get = log.open("get", 2);
    const p = connect(post);
    const g = connect(get);
    log.append(post, { result: true });
    log.close(post);
    log.close(get, 1000);
    expect(p.frames.at(-1)).toEqual({ end: true });
    expect(g.frames.at(-1)).toEqual({ end: true, retry: 1000 });
    expect([p.closed, g.closed]).toEqual([true, true]);
    expect([store.isClosed(post), store.isClosed(get)]).toEqual([true, true]);
    expect(store.eventsAfter(post, 0)).toHaveLength(1);
    expect(closed()).toBe(2);
  });

  it("leaves a polling disconnect for the stream's next connection when none is open, once", () => {
    const { store, log } = fresh();
    const stream = log.open("post", 1, 1);
    log.disconnect(stream, 2500);
    expect(store.isClosed(stream)).toBe(false);
    expect(log.takeRetry(stream)).toBe(2500);
    expect(log.takeRetry(stream)).toBeUndefined();
  });
});
