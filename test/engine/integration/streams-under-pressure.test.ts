/**
 * Streams under pressure, as a hostile or careless client would put them against `wrangler dev`. Replaced GET streams stay resumable, slow readers cannot grow the
 * runtime's memory, finished streams leave storage when their replay window ends, the event log
 * counts UTF-8 bytes, an oversized listen filter is refused, and a busy session stays under its
 * storage caps.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { META, SseReader, expectRpcError, modernPost } from "../helpers/mcp";
import { until } from "../helpers/until";
import { type SseEvent, cancelAllReaders, getStream, openSession, publish, request, sessionStub, sse, splitId } from "../helpers/legacy";
import * as sseModule from "../../../src/engine/http/sse";
import * as listenModule from "../../../src/engine/http/listen";

afterEach(cancelAllReaders);

const InvalidRequest = -32600;
const InvalidParams = -32602;
const MiB = 1024 * 1024;
/** The defaults this file relies on (src/engine/config.ts, src/engine/http/listen.ts). */
const CLOSED_LOG_DEFAULT = 8 * MiB;
const LISTEN_URIS = 256;
const LISTEN_URI_LENGTH = 2048;
const SSE_BUFFER_DEFAULT = 256 * 1024;

const chatter = (count: number, size: number, char?: string) => ({
  name: "chatter",
  arguments: { count, size, ...(char ? { char } : {}) },
});
const isAnswer = (e: SseEvent) => e.message !== undefined && ("result" in e.message || "error" in e.message);
const utf8 = (s: string) => new TextEncoder().encode(s).byteLength;

/** Replaces settings on the session's running instance only (the dedicated test path: no global bindings change). */
async function withConfig(sessionId: string, overrides: Record<string, number>): Promise<void> {
  await runInDurableObject(sessionStub(sessionId), (instance) => {
    const i = instance as unknown as { config: object };
    i.config = { ...i.config, ...overrides };
  });
}

const configOf = (sessionId: string) =>
  runInDurableObject(sessionStub(sessionId), (instance) => (instance as unknown as { config: Record<string, unknown> }).config);

/** What the session's SQLite holds in its event log: UTF-8 bytes, events and streams. */
function stored(sessionId: string, stream?: string) {
  return runInDurableObject(sessionStub(sessionId), (_i, state) => {
    const sql = state.storage.sql;
    const where = stream === undefined ? "" : " WHERE stream = ?";
    const args = stream === undefined ? [] : [stream];
    const ev = sql
      .exec<{ bytes: number; events: number }>(
        `SELECT coalesce(sum(length(CAST(data AS BLOB))), 0) AS bytes, count(*) AS events FROM events${where}`,
        ...args,
      )
      .one();
    const streams = sql.exec<{ n: number }>("SELECT count(*) AS n FROM streams").one().n;
    const open = sql.exec<{ n: number }>("SELECT count(*) AS n FROM streams WHERE kind = 'post' AND closed_at IS NULL").one().n;
    return { ...ev, streams, openPost: open };
  });
}

/** Waits until no POST stream of the session is still running (its tool finished). */
const untilFinished = (sessionId: string) =>
  until(async () => expect((await stored(sessionId)).openPost, "the call did not finish").toBe(0), { timeoutMs: 20_000 });

/**
 * Reads a 2025 POST stream to its answer the way a client does: when the server closes the
 * connection early (with `retry:`), resume with Last-Event-ID until the answer arrives.
 */
async function readToAnswer(
  sessionId: string,
  res: Response,
  maxResumes = 60,
): Promise<{ events: SseEvent[]; resumes: number; retries: number }> {
  const reader = sse(res);
  const events = await reader.rest(20_000);
  let retries = (reader.raw.match(/^retry: \d+$/gm) ?? []).length;
  let resumes = 0;
  while (!events.some(isAnswer)) {
    if (++resumes > maxResumes) throw new Error(`no answer after ${maxResumes} resumes`);
    const last = events.at(-1)!.id!;
    const again = sse(await getStream(sessionId, last));
    events.push(...(await again.rest(20_000)));
    retries += (again.raw.match(/^retry: \d+$/gm) ?? []).length;
  }
  return { events, resumes, retries };
}

describe("replaced GET streams", () => {
  it("a replaced GET stream is told to reconnect (retry:) and a resume into it within the replay window replays what it missed", async () => {
    const s = await openSession();
    const first = sse(await getStream(s.id));
    const priming = await first.next();
    expect(priming?.data).toBe("");
    // A notification goes into the first stream's log (publish answers once every hub shard has
    // stored it); its client may not have read it yet.
    await publish({ method: "notifications/tools/list_changed" });

    const second = sse(await getStream(s.id));
    expect((await second.next())?.data).toBe("");
    await first.rest(3000);
    expect(first.raw).toMatch(/^retry: \d+$/m);

    // The old stream's client resumes from its priming id and still gets what it missed.
    const resumed = await getStream(s.id, priming!.id);
    expect(resumed.status).toBe(200);
    const replay = await sse(resumed).rest(3000);
    expect(replay.some((e) => e.message?.method === "notifications/tools/list_changed")).toBe(true);
    for (const e of replay) expect(splitId(e.id).stream).toBe(splitId(priming!.id).stream);

    // The new stream carries session-level messages from now on.
    await publish({ method: "notifications/prompts/list_changed" });
    expect(await second.until((m) => m.method === "notifications/prompts/list_changed")).toBeDefined();
  });
});

describe("backpressure", () => {
  it("an SSE stream nobody reads holds at most SSE_BUFFER_BYTES queued, then closes", async () => {
    const { SseStream, SSE_BUFFER_BYTES = SSE_BUFFER_DEFAULT } = sseModule as unknown as {
      SseStream: typeof sseModule.SseStream;
      SSE_BUFFER_BYTES?: number;
    };
    expect(SSE_BUFFER_BYTES).toBe(SSE_BUFFER_DEFAULT);
    let closedByOverflow = false;
    const stream = new SseStream(() => (closedByOverflow = true));
    const event = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(60_000) } });
    let written = 0;
    for (let i = 0; i < 200; i++) {
      stream.sendJson(event);
      written += event.length;
    }
    expect(written).toBeGreaterThan(10 * MiB);
    const open = stream.isOpen;
    stream.close();
    // Nothing was read, so everything ever enqueued is still in the body: it stayed within the bound.
    const body = await stream.response.text();
    console.log(
      `defect 11 (writer): wrote ${written} bytes to an unread stream; ${utf8(body)} bytes were queued (bound ${SSE_BUFFER_BYTES}); open afterwards: ${open}`,
    );
    expect(open).toBe(false);
    expect(closedByOverflow).toBe(true);
    expect(utf8(body)).toBeLessThanOrEqual(SSE_BUFFER_BYTES);
    expect(body.length).toBeGreaterThan(0);
  });

  it("a 2026 client that never reads gets its stream closed (the request cancelled) once its buffer is full", async () => {
    const { SSE_BUFFER_BYTES = SSE_BUFFER_DEFAULT } = sseModule as unknown as { SSE_BUFFER_BYTES?: number };
    const emitted = 300 * 65_536;
    // The stream's writer runs in this isolate: the test waits for its buffer to fill, not for a time.
    const overflowed = vi.spyOn(sseModule.SseStream.prototype as unknown as { overflow: () => void }, "overflow");
    const res = await modernPost("tools/call", chatter(300, 65_536), { id: "never-reads", meta: { [META.logLevel]: "info" } });
    expect(res.status).toBe(200);
    await until(() => expect(overflowed).toHaveBeenCalled());
    overflowed.mockRestore();
    const reader = new SseReader(res);
    const messages = await reader.all(20_000);
    const received = utf8(reader.raw);
    const answered = messages.some((m) => "result" in m || "error" in m);
    console.log(
      `defect 11 (2026): tool wrote ${emitted} bytes of logs; the client received ${received} bytes (bound ${SSE_BUFFER_BYTES}); answered: ${answered}`,
    );
    expect(reader.ended).toBe(true);
    // Closed before the end: no answer, and far fewer bytes than the tool wrote.
    expect(answered).toBe(false);
    expect(received).toBeLessThan(emitted / 4);
  });

  it("a 2025 client that never reads gets its stream closed with retry:, and resumes from the log without losing an event", async () => {
    const s = await openSession();
    const res = await request(s.id, "tools/call", chatter(40, 65_536), { id: "slow-2025" });
    // Its tool wrote all 40 events (2.6 MB) while nobody read: the 256 KiB buffer overflowed on the way.
    await untilFinished(s.id);
    const { events, resumes, retries } = await readToAnswer(s.id, res);
    console.log(`defect 11 (2025): ${resumes} resumes, ${retries} retry: fields before the answer`);
    expect(retries).toBeGreaterThan(0);
    expect(resumes).toBeGreaterThan(0);
    const logs = events.filter((e) => e.message?.method === "notifications/message");
    expect(logs).toHaveLength(40);
    const seqs = events.filter((e) => e.data !== "").map((e) => splitId(e.id).seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(events.find(isAnswer)?.message?.result.content[0].text).toBe("sent 40");
  });
});

describe("replay window and closed-log cap", () => {
  it("STREAM_REPLAY_SECONDS is enforced: a finished stream is gone after its window", async () => {
    const s = await openSession();
    await withConfig(s.id, { streamReplayMs: 1000 });
    const events = await sse(await request(s.id, "tools/call", chatter(3, 100))).rest();
    const priming = events[0]!.id!;
    expect(events.some(isAnswer)).toBe(true);
    expect((await stored(s.id)).events).toBeGreaterThan(0);

    // Within the window it replays.
    const within = await getStream(s.id, priming);
    expect(within.status).toBe(200);
    expect((await sse(within).rest()).some(isAnswer)).toBe(true);

    // The session's alarm is set for the window's end at the latest; the test moves the stream's close
    // a window into the past (as the clock would) and runs that alarm instead of waiting for it.
    const stub = sessionStub(s.id);
    await runInDurableObject(stub, async (_i, state) => {
      const closedAt = state.storage.sql.exec<{ at: number }>("SELECT max(closed_at) AS at FROM streams").one().at;
      expect(await state.storage.getAlarm()).toBeLessThanOrEqual(closedAt + 1000);
      state.storage.sql.exec("UPDATE streams SET closed_at = closed_at - 1000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // The alarm has dropped it, and a resume gets the clear 400.
    expect(await stored(s.id)).toMatchObject({ events: 0, streams: 0 });
    const err = await expectRpcError(await getStream(s.id, priming), 400, InvalidRequest);
    expect(err.message).toMatch(/Last-Event-ID/);
  });

  it("closed logs are capped per session (CLOSED_LOG_MAX_BYTES): the oldest finished streams go first", async () => {
    const s = await openSession();
    const cap = CLOSED_LOG_DEFAULT;
    const primings: string[] = [];
    // 12 finished streams of about 1 MiB each: more than the cap, each under the per-stream cap.
    for (let i = 0; i < 12; i++) {
      const { events } = await readToAnswer(s.id, await request(s.id, "tools/call", chatter(16, 65_536)));
      primings.push(events[0]!.id!);
    }
    const after = await stored(s.id);
    console.log(`defect 12: 12 finished streams of ~1 MiB: ${after.bytes} bytes stored in ${after.streams} streams (cap ${cap})`);
    expect(after.bytes).toBeLessThanOrEqual(cap);
    expect(after.bytes).toBeGreaterThan(cap / 2);
    await expectRpcError(await getStream(s.id, primings[0]!), 400, InvalidRequest);
    const newest = await getStream(s.id, primings.at(-1)!);
    expect(newest.status).toBe(200);
    expect((await readToAnswer(s.id, newest)).events.some(isAnswer)).toBe(true);
  });
});

describe("bytes, not characters", () => {
  it("the event-log byte cap counts UTF-8 bytes, not UTF-16 characters", async () => {
    const s = await openSession();
    const maxBytes = (await configOf(s.id)).eventLogMaxBytes as number;
    expect(maxBytes).toBe(4 * MiB);
    // 15 logs of 262,144 "€" (3 bytes each in UTF-8): 3.9 M characters, under the cap; 11.8 MB.
    const res = await request(s.id, "tools/call", chatter(15, 262_144, "€"));
    expect(res.status).toBe(200);
    await untilFinished(s.id);
    const after = await stored(s.id);
    console.log(`defect 13: ${after.events} events, ${after.bytes} UTF-8 bytes stored (cap ${maxBytes})`);
    expect(after.bytes).toBeLessThanOrEqual(maxBytes);
    // The newest events are the ones kept: the answer is still there to replay.
    expect(after.events).toBeGreaterThan(1);
  });
});

describe("listen filter limits", () => {
  const limits = listenModule as unknown as { MAX_LISTEN_RESOURCE_URIS: number; MAX_LISTEN_URI_LENGTH: number };

  it("an oversized subscriptions/listen filter is refused up front with 400 / -32602", async () => {
    const tooMany = Array.from({ length: 5000 }, (_, i) => `units://u${i}`);
    const err = await expectRpcError(
      await modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: tooMany } }, { id: "too-many" }),
      400,
      InvalidParams,
      "too-many",
    );
    expect(err.message).toMatch(/resourceSubscriptions/);

    const tooLong = [`units://${"x".repeat(100_000)}`];
    const err2 = await expectRpcError(
      await modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: tooLong } }, { id: "too-long" }),
      400,
      InvalidParams,
      "too-long",
    );
    expect(err2.message).toMatch(/bytes/);
  });

  it("a filter at the limits is acknowledged and delivers resource updates", async () => {
    expect(limits.MAX_LISTEN_RESOURCE_URIS ?? LISTEN_URIS).toBe(LISTEN_URIS);
    expect(limits.MAX_LISTEN_URI_LENGTH ?? LISTEN_URI_LENGTH).toBe(LISTEN_URI_LENGTH);
    const n = LISTEN_URIS;
    const uri = (i: number) => `units://${String(i).padStart(6, "0")}-${"y".repeat(LISTEN_URI_LENGTH - 15)}`;
    const uris = Array.from({ length: n }, (_, i) => uri(i));
    expect(uris.every((u) => u.length === LISTEN_URI_LENGTH)).toBe(true);
    const res = await modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, { id: "at-limits" });
    expect(res.status).toBe(200);
    const reader = new SseReader(res);
    try {
      const ack = await reader.next(3000);
      expect(ack?.method).toBe("notifications/subscriptions/acknowledged");
      expect(ack?.params.notifications.resourceSubscriptions).toHaveLength(n);
      await publish({ method: "notifications/resources/updated", params: { uri: uri(n - 1) } });
      const update = await reader.next(3000);
      expect(update).toMatchObject({
        method: "notifications/resources/updated",
        params: { uri: uri(n - 1), _meta: { [META.subscriptionId]: "at-limits" } },
      });
    } finally {
      await reader.cancel();
    }
  });
});

describe("everything bounded", () => {
  it("1,000 finished streams and 10,000 events keep a session's stored bytes under its caps", async () => {
    const s = await openSession();
    const cap = CLOSED_LOG_DEFAULT;
    let done = 0;
    let resumes = 0;
    const worker = async () => {
      while (done < 1000) {
        done++;
        resumes += (await readToAnswer(s.id, await request(s.id, "tools/call", chatter(10, 1000)))).resumes;
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: 4 }, worker));
    const after = await stored(s.id);
    console.log(
      `everything bounded: 1,000 streams x 10 events of ~1 KB in ${Date.now() - started} ms: ${after.bytes} bytes, ${after.events} events, ${after.streams} streams kept (cap ${cap}); ${resumes} resumes`,
    );
    expect(after.openPost).toBe(0);
    expect(after.bytes).toBeLessThanOrEqual(cap);
    expect(after.bytes).toBeGreaterThan(cap / 2);
  }, 120_000);
});
