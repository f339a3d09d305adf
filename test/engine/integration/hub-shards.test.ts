/**
 * The sharded hub: listen streams and 2025 sessions spread over HUB_SHARDS shards (4 in the test
 * app), one publish reaches all of them, a shard evicted between notifications loses no listener,
 * a closed shard ends only its own streams, a session stays with the shard it joined, and a 2025
 * GET stream takes its notifications from its shard's socket and log, through eviction and restart.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_HUB_SHARDS, readConfig } from "../../../src/engine/config";
import { DRAIN_BATCH } from "../../../src/engine/objects/hub";
import { hubStub, publishToHub, sessionShard } from "../../../src/engine/objects/addresses";
import type { SessionRow } from "../../../src/engine/objects/session-store";
import { addressOnShard, evictHub, hubShards, publish } from "../helpers/hub";
import { cancelAllReaders, getStream, openSession, result, sessionStub, sse } from "../helpers/legacy";
import { META, SseReader, modernPost, type RpcMessage } from "../helpers/mcp";

const TOOLS = "notifications/tools/list_changed";

const open: SseReader[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.cancel()));
  await cancelAllReaders();
});

/** A listen stream for tool list changes, from a client whose streams go to `shard`. */
async function listen(id: string, shard: number): Promise<SseReader> {
  const headers = { "CF-Connecting-IP": await addressOnShard(shard) };
  const res = await modernPost("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id, headers });
  expect(res.status).toBe(200);
  const reader = new SseReader(res);
  open.push(reader);
  expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
  return reader;
}

async function nextOf(reader: SseReader, match: (m: RpcMessage) => boolean, timeoutMs = 3000): Promise<RpcMessage | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await reader.next(Math.max(1, deadline - Date.now()));
    if (!m || match(m)) return m;
  }
}

const tools = (m: RpcMessage) => m.method === TOOLS;
const socketsOn = (shard: ReturnType<typeof hubStub>) => runInDurableObject(shard, (_instance, state) => state.getWebSockets().length);

describe("delivery in slices", () => {
  it("more listen streams than every shard sends to in one turn each get every notification, in publish order", async () => {
    const count = hubShards().length * (DRAIN_BATCH + 1);
    const readers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const headers = { "CF-Connecting-IP": await addressOnShard(i % hubShards().length) };
        const res = await modernPost(
          "subscriptions/listen",
          { notifications: { toolsListChanged: true, promptsListChanged: true } },
          { id: `slice-${i}`, headers },
        );
        expect(res.status).toBe(200);
        const reader = new SseReader(res);
        open.push(reader);
        expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
        return reader;
      }),
    );
    expect(await publish({ method: TOOLS })).toBeGreaterThanOrEqual(count);
    expect(await publish({ method: "notifications/prompts/list_changed" })).toBeGreaterThanOrEqual(count);
    const seen = await Promise.all(
      readers.map(async (r, i) => {
        const first = await nextOf(r, (m) => m.params?._meta?.[META.subscriptionId] === `slice-${i}`);
        const second = await nextOf(r, (m) => m.params?._meta?.[META.subscriptionId] === `slice-${i}`);
        return [first?.method, second?.method];
      }),
    );
    expect(seen.every(([a, b]) => a === TOOLS && b === "notifications/prompts/list_changed")).toBe(true);
  });
});

describe("shard count", () => {
  it("HUB_SHARDS sets the shard count (4 in the test app, 8 by default) and is bounded", () => {
    expect(hubShards()).toHaveLength(4);
    expect(readConfig({}).hubShards).toBe(8);
    expect(readConfig({ HUB_SHARDS: "32" }).hubShards).toBe(32);
    expect(() => readConfig({ HUB_SHARDS: "0" })).toThrow(/HUB_SHARDS/);
    expect(() => readConfig({ HUB_SHARDS: String(MAX_HUB_SHARDS + 1) })).toThrow(/at most/);
  });

  it("a publish reaches exactly the shards the setting names", async () => {
    // Four listeners, one on each shard.
    await Promise.all(["count-0", "count-1", "count-2", "count-3"].map((id, shard) => listen(id, shard)));
    expect((await Promise.all(hubShards().map(socketsOn))).every((n) => n >= 1)).toBe(true);
    // With the setting at 1 only shard 0 is called: the listeners on the other three get nothing.
    const toOne = await publishToHub({ ...env, HUB_SHARDS: "1" }, { method: TOOLS });
    const toAll = await publish({ method: TOOLS });
    expect(toOne).toBeGreaterThanOrEqual(1);
    expect(toAll - toOne).toBeGreaterThanOrEqual(3);
  });
});

describe("fan-out", () => {
  it("2026-07-28: listen streams spread over every shard, and one publish reaches all of them", async () => {
    const readers = await Promise.all(Array.from({ length: 8 }, (_, i) => listen(`spread-${i}`, i % 4)));
    const perShard = await Promise.all(hubShards().map(socketsOn));
    expect(perShard.every((n) => n >= 1)).toBe(true);

    expect(await publish({ method: TOOLS })).toBeGreaterThanOrEqual(8);
    const got = await Promise.all(readers.map((r) => nextOf(r, tools)));
    expect(got.map((m) => m?.params._meta[META.subscriptionId])).toEqual(readers.map((_, i) => `spread-${i}`));
  });

  it("2026-07-28: a shard evicted between notifications (sockets hibernated) still delivers to its listeners", async () => {
    const readers = await Promise.all(Array.from({ length: 8 }, (_, i) => listen(`evict-${i}`, i % 4)));
    await publish({ method: TOOLS });
    expect((await Promise.all(readers.map((r) => nextOf(r, tools)))).every(Boolean)).toBe(true);

    await evictDurableObject(hubShards()[1]!, { webSockets: "hibernate" });
    await publish({ method: TOOLS });
    expect((await Promise.all(readers.map((r) => nextOf(r, tools)))).every(Boolean)).toBe(true);
  });

  it("2026-07-28: filters too large for an attachment (kept in the shard's storage) still match after every shard is evicted", async () => {
    const uris = Array.from({ length: 24 }, (_, i) => `units://${String(i).padStart(3, "0")}-${"z".repeat(80)}`);
    const readers = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const res = await modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, { id: `big-${i}` });
        const reader = new SseReader(res);
        open.push(reader);
        expect((await reader.next(3000))?.params.notifications.resourceSubscriptions).toHaveLength(uris.length);
        return reader;
      }),
    );
    await evictHub("hibernate");
    await publish({ method: "notifications/resources/updated", params: { uri: uris[23]! } });
    const got = await Promise.all(readers.map((r) => nextOf(r, (m) => m.method === "notifications/resources/updated")));
    expect(got.map((m) => m?.params.uri)).toEqual(readers.map(() => uris[23]));
  });

  it("2026-07-28: a shard that drops its sockets ends only its own listen streams; the others keep receiving", async () => {
    const readers = await Promise.all(Array.from({ length: 8 }, (_, i) => listen(`drop-${i}`, i % 4)));
    await evictDurableObject(hubShards()[2]!, { webSockets: "close" });
    await publish({ method: TOOLS });
    const outcomes = await Promise.all(readers.map((r, i) => nextOf(r, (m) => tools(m) || m.id === `drop-${i}`)));
    const ended = outcomes.filter((m) => m?.id !== undefined);
    const notified = outcomes.filter((m) => m?.method === TOOLS);
    expect(ended.length).toBeGreaterThanOrEqual(1);
    expect(ended.every((m) => m!.result?.resultType === "complete")).toBe(true);
    expect(notified.length).toBeGreaterThanOrEqual(1);
    expect(ended.length + notified.length).toBe(8);
  });

  it("2025-11-25: sessions register with different shards, and one publish reaches every session's GET stream", async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => openSession()));
    // A session joins its shard with its first GET stream, when it can first receive a notification.
    const readers = await Promise.all(sessions.map(async (s) => sse(await getStream(s.id))));
    await Promise.all(readers.map((r) => r.next()));
    const shardsWithSessions = await Promise.all(
      hubShards().map((shard) =>
        runInDurableObject(shard, (_i, state) => {
          const ids = new Set(sessions.map((s) => s.id));
          const hasTable = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").toArray().length > 0;
          return (
            hasTable &&
            state.storage.sql
              .exec<{ id: string }>("SELECT id FROM sessions")
              .toArray()
              .some((r) => ids.has(r.id))
          );
        }),
      ),
    );
    expect(shardsWithSessions.filter(Boolean).length).toBeGreaterThanOrEqual(2);

    await publish({ method: TOOLS });
    const got = await Promise.all(readers.map((r) => r.next()));
    expect(got.map((e) => e?.message?.method)).toEqual(sessions.map(() => TOOLS));
  });

  it("2025-11-25: a session remembers the shard it joined, and its subscriptions go to that shard", async () => {
    const s = await openSession();
    expect(await result(s.id, "resources/subscribe", { uri: "info://about" })).toEqual({});
    const row = await runInDurableObject(sessionStub(s.id), (_i, state) => state.storage.get<SessionRow>("session"));
    expect(row?.hubShard).toBe(sessionShard(s.id, hubShards().length));
    const subs = await runInDurableObject(hubShards()[row!.hubShard!]!, (_i, state) =>
      state.storage.sql
        .exec<{ subs: string }>("SELECT subs FROM sessions WHERE id = ?", s.id)
        .toArray()
        .map((r) => JSON.parse(r.subs)),
    );
    expect(subs).toEqual([["info://about"]]);
  });

  it("2025-11-25: a publish calls no session object: one row of the shard's log, one frame per GET stream", async () => {
    const sessions = await Promise.all(Array.from({ length: 3 }, () => openSession()));
    const readers = await Promise.all(sessions.map(async (s) => sse(await getStream(s.id))));
    await Promise.all(readers.map((r) => r.next()));
    const logRows = () =>
      Promise.all(
        hubShards().map((shard) =>
          runInDurableObject(shard, (_h, { storage: { sql } }) =>
            sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'session_log'").toArray().length
              ? sql.exec<{ n: number }>("SELECT count(*) AS n FROM session_log").one().n
              : 0,
          ),
        ),
      );
    const before = await logRows();
    await publish({ method: "notifications/prompts/list_changed" });
    const got = await Promise.all(readers.map((r) => r.next()));
    expect(got.map((e) => e?.message?.method)).toEqual(sessions.map(() => "notifications/prompts/list_changed"));
    // Nothing was written in any session: the notification is one row in each shard's log.
    const events = await Promise.all(
      sessions.map((s) =>
        runInDurableObject(
          sessionStub(s.id),
          (_i, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM events").one().n,
        ),
      ),
    );
    expect(events).toEqual(sessions.map(() => 0));
    const after = await logRows();
    const shards = [...new Set(sessions.map((s) => sessionShard(s.id, hubShards().length)))];
    expect(shards.map((i) => after[i]! - before[i]!)).toEqual(shards.map(() => 1));
  });
});

describe("2025-11-25 fan-out survives eviction and restart", () => {
  /** A session with its GET stream open, its shard, and the stream's priming event id. */
  async function sessionOnStream() {
    const s = await openSession();
    const reader = sse(await getStream(s.id));
    const priming = await reader.next();
    return { s, reader, primingId: priming!.id!, shard: hubShards()[sessionShard(s.id, hubShards().length)]! };
  }

  /** The notifications of `method` that arrive on the stream within the time (they stop coming). */
  async function arrivals(reader: ReturnType<typeof sse>, timeoutMs = 1500): Promise<{ id?: string; message?: RpcMessage }[]> {
    const got = [];
    for (;;) {
      const e = await reader.next(timeoutMs);
      if (!e) return got;
      if (e.message) got.push(e);
    }
  }

  it("a shard evicted between notifications (its sockets hibernated) still delivers to the GET stream", async () => {
    const { reader, shard } = await sessionOnStream();
    await publish({ method: TOOLS });
    expect((await reader.next())?.message?.method).toBe(TOOLS);
    await evictDurableObject(shard, { webSockets: "hibernate" });
    await publish({ method: "notifications/prompts/list_changed" });
    expect((await reader.next())?.message?.method).toBe("notifications/prompts/list_changed");
  });

  it("a shard that restarts ends the stream; Last-Event-ID gives back what was published meanwhile, once", async () => {
    const { s, reader, shard } = await sessionOnStream();
    await publish({ method: TOOLS });
    const seen = await reader.next();
    expect(seen?.message?.method).toBe(TOOLS);
    await evictDurableObject(shard, { webSockets: "close" });
    // The stream ends with its hub socket: the client knows to resume.
    expect(await reader.next(3000)).toBeUndefined();
    await publish({ method: "notifications/prompts/list_changed" });
    await publish({ method: "notifications/resources/list_changed" });
    const resumed = sse(await getStream(s.id, seen!.id!));
    const got = await arrivals(resumed);
    expect(got.map((e) => e.message?.method)).toEqual(["notifications/prompts/list_changed", "notifications/resources/list_changed"]);
    // And it is live again: the next publish comes on the resumed stream.
    await publish({ method: TOOLS });
    expect((await resumed.next())?.message?.method).toBe(TOOLS);
  });

  it("a client away from its stream gets, from its priming id, every notification published while away", async () => {
    const { s, reader, primingId } = await sessionOnStream();
    await reader.cancel();
    await publish({ method: TOOLS });
    await publish({ method: "notifications/prompts/list_changed" });
    const got = await arrivals(sse(await getStream(s.id, primingId)));
    expect(got.map((e) => e.message?.method)).toEqual([TOOLS, "notifications/prompts/list_changed"]);
  });

  it("a notification for one principal reaches only that principal's sessions", async () => {
    const { reader } = await sessionOnStream();
    // The test app's sessions are anonymous: their principal is "".
    await publish({ method: TOOLS, principal: "someone-else" });
    await publish({ method: "notifications/prompts/list_changed", principal: "" });
    expect((await arrivals(reader)).map((e) => e.message?.method)).toEqual(["notifications/prompts/list_changed"]);
  });

  it("a resource update reaches only the sessions subscribed to it, live and on replay", async () => {
    const subscribed = await sessionOnStream();
    const other = await sessionOnStream();
    expect(await result(subscribed.s.id, "resources/subscribe", { uri: "info://about" })).toEqual({});
    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    expect((await subscribed.reader.next())?.message?.params).toEqual({ uri: "info://about" });
    expect(await other.reader.next(800)).toBeUndefined();
    await subscribed.reader.cancel();
    await other.reader.cancel();
    expect((await arrivals(sse(await getStream(other.s.id, other.primingId)))).length).toBe(0);
    expect((await arrivals(sse(await getStream(subscribed.s.id, subscribed.primingId)))).map((e) => e.message?.params)).toEqual([
      { uri: "info://about" },
    ]);
  });
});
