/**
 * The life of a 2025-11-25 session object (DESIGN "State and Durable
 * Objects"): it keeps working across evictions at any step, its alarm ends
 * it after the idle time and leaves no storage behind, pending server
 * requests fail at their deadline, and an open stream survives the object
 * hibernating (the Worker holds the SSE, the object a hibernatable socket).
 */
import { SELF, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { hubHasSession } from "../helpers/hub";
import { expectRpcError } from "../helpers/mcp";
import {
  cancelAllReaders,
  deleteSession,
  getStream,
  instanceMarked,
  markInstance,
  openSession,
  postInitialize,
  publish,
  request,
  respond,
  result,
  sessionStub,
  notify,
  sse,
  splitId,
} from "../helpers/legacy";
import type { SessionRow } from "../../../src/engine/objects/session-store";

afterEach(cancelAllReaders);

type Stub = ReturnType<typeof sessionStub>;

/** Evicts the running session object and proves the in-memory instance is gone. */
async function evict(stub: Stub, webSockets: "hibernate" | "close" = "hibernate") {
  await markInstance(stub);
  await evictDurableObject(stub, { webSockets });
  expect(await instanceMarked(stub)).toBe(false);
}

/** Moves the session's last activity back by `ms`, as if the client had been silent that long. */
async function ageSession(stub: Stub, ms: number) {
  await runInDurableObject(stub, async (_instance, state) => {
    const row = await state.storage.get<SessionRow>("session");
    expect(row).toBeDefined();
    row!.lastSeenAt -= ms;
    await state.storage.put("session", row);
  });
  // A fresh instance, so nothing cached in memory hides the stored row.
  await evictDurableObject(stub);
}

/** Everything the session object has stored: KV keys, rows per SQL table, and the alarm. */
async function storedState(stub: Stub) {
  return runInDurableObject(stub, async (_instance, state) => {
    const keys = [...(await state.storage.list()).keys()];
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
      .toArray()
      .map((t) => t.name);
    const rows: Record<string, number> = {};
    for (const t of tables) rows[t] = state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM "${t}"`).one().n;
    return { keys, rows, alarm: await state.storage.getAlarm(), session: await state.storage.get("session") };
  });
}

const IDLE_MS = 3600 * 1000; // SESSION_IDLE_SECONDS in wrangler.toml

/**
 * An ended session's storage: everything deleted, and the one key that keeps its sealed id refused
 * until the id expires, with the alarm that deletes it then.
 */
async function expectOnlyEndedMark(stub: Stub) {
  const state = await storedState(stub);
  expect(state.session).toBeUndefined();
  expect(state.keys).toEqual(["endedUntil"]);
  for (const n of Object.values(state.rows)) expect(n).toBe(0);
  expect(state.alarm).toBeGreaterThan(Date.now() + IDLE_MS);
}

describe("eviction", () => {
  it("2025-11-25: a session keeps working when its object is evicted between every two steps", async () => {
    const res = await postInitialize({ capabilities: { elicitation: {} } });
    expect(res.status).toBe(200);
    const id = res.headers.get("Mcp-Session-Id")!;
    await res.body?.cancel();
    const stub = sessionStub(id);
    await evict(stub);

    expect((await notify(id, "notifications/initialized")).status).toBe(202);
    await evict(stub);
    expect(await result(id, "logging/setLevel", { level: "notice" })).toEqual({});
    await evict(stub);
    expect(await result(id, "resources/subscribe", { uri: "info://about" })).toEqual({});
    await evict(stub);

    // The standalone stream stays open across the evictions below.
    const get = sse(await getStream(id));
    const getPriming = (await get.next())!;
    await evict(stub);

    // Mid-stream: a countdown; eviction waits for the running tool, and the stream completes.
    const cd = sse(
      await request(id, "tools/call", { name: "countdown", arguments: { from: 3 }, _meta: { progressToken: "ev" } }, { id: "cd" }),
    );
    const cdPriming = (await cd.next())!;
    expect((await cd.nextMessage())?.message?.method).toBe("notifications/progress");
    await evict(stub);
    const cdRest = await cd.rest(5000);
    expect(cdRest.at(-1)?.message).toMatchObject({ id: "cd", result: { content: [{ text: "Liftoff!" }] } });
    // The log level set before three evictions still holds: info logs are filtered out.
    expect(cdRest.some((e) => e.message?.method === "notifications/message")).toBe(false);
    await evict(stub);

    // The subscription survived: a resources/updated reaches the GET stream opened before.
    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    const updated = await get.until((m) => m.method === "notifications/resources/updated");
    expect(updated?.message?.params).toEqual({ uri: "info://about" });
    expect(splitId(updated!.id).stream).toBe(splitId(getPriming.id).stream);
    await evict(stub);

    // Waiting on the user across an eviction.
    const greet = sse(await request(id, "tools/call", { name: "greet", arguments: {} }, { id: "g" }));
    await greet.next();
    const ask = (await greet.nextMessage())!;
    await evict(stub);
    expect((await respond(id, ask.message!.id!, { result: { action: "accept", content: { name: "Evicted" } } })).status).toBe(202);
    await evict(stub);
    expect((await greet.rest(5000)).at(-1)?.message).toMatchObject({ id: "g", result: { content: [{ text: "Hello, Evicted!" }] } });
    await evict(stub);

    // Before a Last-Event-ID replay.
    const replay = await sse(await getStream(id, cdPriming.id)).rest(5000);
    expect(replay.at(-1)?.message).toMatchObject({ id: "cd", result: { content: [{ text: "Liftoff!" }] } });
    await evict(stub);

    expect(await result(id, "ping")).toEqual({});
    await evict(stub);
    const del = await deleteSession(id);
    expect(del.status).toBe(200);
    await del.body?.cancel();
    await get.rest(3000);
    const gone = await request(id, "ping");
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
  });

  it("2025-11-25: a GET stream stays open while the object hibernates, and a hub notification arrives on it with the next id in the hub's log", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    const get = sse(await getStream(s.id));
    const priming = (await get.next())!;
    await evict(stub, "hibernate");
    expect(get.ended).toBe(false);

    await publish({ method: "notifications/tools/list_changed" });
    const ev = await get.until((m) => m.method === "notifications/tools/list_changed");
    expect(ev?.message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    // The session's own place stays (nothing was written in it); the hub's log moved by one.
    const { stream, seq, hub } = splitId(priming.id);
    expect(splitId(ev!.id)).toEqual({ stream, seq, hub: hub! + 1 });

    // And again after a second hibernation: ids keep counting on the same stream.
    await evict(stub, "hibernate");
    await publish({ method: "notifications/prompts/list_changed" });
    const ev2 = await get.until((m) => m.method === "notifications/prompts/list_changed");
    expect(ev2?.id).toBe(`${stream}-${seq}.${hub! + 2}`);
  });

  it("2025-11-25: when eviction closes the stream's socket, the stream ends and Last-Event-ID resumes it without loss", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    const get = sse(await getStream(s.id));
    const priming = (await get.next())!;
    await evict(stub, "close");
    await get.rest(3000);

    await publish({ method: "notifications/tools/list_changed" });
    const resumed = sse(await getStream(s.id, priming.id));
    const ev = await resumed.until((m) => m.method === "notifications/tools/list_changed");
    const { stream, seq, hub } = splitId(priming.id);
    expect(ev?.id).toBe(`${stream}-${seq}.${hub! + 1}`);
  });
});

describe("unknown session ids", () => {
  it("2025-11-25: a well-formed session id nobody issued gets 404 and leaves no storage behind", async () => {
    const forged = "A".repeat(43);
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": forged };
    const post = await SELF.fetch("http://localhost/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(post.status).toBe(404);
    await post.text();
    const get = await SELF.fetch("http://localhost/mcp", { headers: { ...headers, Accept: "text/event-stream" } });
    expect(get.status).toBe(404);
    await get.text();
    const { keys, rows, alarm } = await storedState(sessionStub(forged));
    expect({ keys, rows, alarm }).toEqual({ keys: [], rows: {}, alarm: null });
  });
});

describe("idle expiry", () => {
  it("2025-11-25: the first state a session holds schedules the idle alarm", async () => {
    const s = await openSession();
    await result(s.id, "logging/setLevel", { level: "info" });
    const { alarm, session } = await storedState(sessionStub(s.id));
    expect(session).toBeDefined();
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeGreaterThan(Date.now());
    expect(alarm!).toBeLessThanOrEqual(Date.now() + IDLE_MS);
  });

  it("2025-11-25: the alarm of an active session leaves it working", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    await result(s.id, "logging/setLevel", { level: "info" });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await result(s.id, "ping")).toEqual({});
    expect((await storedState(stub)).session).toBeDefined();
  });

  it("2025-11-25: after the idle time the alarm ends the session: 404 afterwards and no storage left", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    // Leave some state behind to be cleaned: a log level, a finished stream, a subscription.
    await result(s.id, "logging/setLevel", { level: "debug" });
    await result(s.id, "resources/subscribe", { uri: "info://about" });
    await sse(await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } })).rest();
    expect(await hubHasSession(s.id)).toBe(true);

    await ageSession(stub, IDLE_MS + 1000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const res = await request(s.id, "ping");
    expect(res.status).toBe(404);
    await res.body?.cancel();
    await expectOnlyEndedMark(stub);
    expect(await hubHasSession(s.id)).toBe(false);
  });

  it("2025-11-25: an expiring session ends its open GET stream", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    const get = sse(await getStream(s.id));
    await get.next();
    await ageSession(stub, IDLE_MS + 1000);
    await runDurableObjectAlarm(stub);
    await get.rest(3000);
    expect(get.ended).toBe(true);
  });

  it("2025-11-25: DELETE leaves no storage behind", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    await sse(await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } })).rest();
    const del = await deleteSession(s.id);
    expect(del.status).toBe(200);
    await del.body?.cancel();
    await expectOnlyEndedMark(stub);
  });
});

describe("pending deadlines", () => {
  it("2025-11-25: a server request not answered by its deadline fails the call with a JSON-RPC error", async () => {
    const s = await openSession({ capabilities: { elicitation: {} } });
    const stub = sessionStub(s.id);
    const greet = sse(await request(s.id, "tools/call", { name: "greet", arguments: {} }, { id: "slow" }));
    await greet.next();
    const ask = (await greet.nextMessage())!;
    expect(ask.message?.method).toBe("elicitation/create");

    // The pending request's deadline passes.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE pending SET deadline = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const rest = await greet.rest(3000);
    const final = rest.at(-1)?.message;
    expect(final?.id).toBe("slow");
    expect(final?.result).toBeUndefined();
    expect(typeof final?.error?.code).toBe("number");
    // A late answer is refused, and the session itself lives on.
    await expectRpcError(await respond(s.id, ask.message!.id!, { result: { action: "accept", content: { name: "Late" } } }), 400, -32600);
    expect(await result(s.id, "ping")).toEqual({});
  });

  it("2025-11-25: a pending request schedules an alarm no later than its deadline", async () => {
    const s = await openSession({ capabilities: { elicitation: {} } });
    const stub = sessionStub(s.id);
    const greet = sse(await request(s.id, "tools/call", { name: "greet", arguments: {} }));
    await greet.next();
    await greet.nextMessage();
    const { alarm, deadline } = await runInDurableObject(stub, async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      deadline: state.storage.sql.exec<{ d: number }>("SELECT min(deadline) AS d FROM pending").one().d,
    }));
    expect(deadline).toBeGreaterThan(Date.now());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(deadline);
  });
});
