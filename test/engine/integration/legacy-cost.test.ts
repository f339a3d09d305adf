/**
 * What a 2025-11-25 session costs: nothing stored until it holds state. A
 * churn of sessions that only list and call (the pattern of hosted clients
 * that initialize before nearly every call and then abandon the session)
 * leaves no database, no alarm and no hub row; a session that held state is
 * deleted when it ends, and its ended id stays refused (404) across evictions.
 */
import {
  SELF,
  createExecutionContext,
  env,
  evictDurableObject,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openSessionId, sealSessionId } from "../../../src/engine/http/session-id";
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/app";
import { hubShards } from "../helpers/hub";
import {
  CLIENT_INFO,
  LEGACY_VERSION,
  deleteSession,
  getStream,
  openSession,
  postInitialize,
  request,
  result,
  sessionStub,
  sse,
} from "../helpers/legacy";

type Stub = ReturnType<typeof sessionStub>;

/** What one session object holds: database bytes, KV keys, and its alarm. */
const storage = (stub: Stub) =>
  runInDurableObject(stub, async (_instance, state) => ({
    bytes: state.storage.sql.databaseSize,
    keys: [...(await state.storage.list()).keys()],
    alarm: await state.storage.getAlarm(),
  }));

/**
 * What an object nobody ever used measures: workerd counts an empty database as one page. A session
 * that stored nothing is compared with that, not with zero.
 */
const EMPTY = () => storage(sessionStub(crypto.randomUUID()));

/** Rows in every hub shard's session table (the hub's record of 2025 sessions). */
const hubSessionRows = async () => {
  const counts = await Promise.all(
    hubShards().map((shard) =>
      runInDurableObject(shard, (_instance, state) => {
        const has = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").toArray().length > 0;
        return has ? state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sessions").one().n : 0;
      }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
};

/** One turn of a client that re-initializes for every call: initialize, list, one plain call, abandon. */
async function churnOne(): Promise<string> {
  const s = await openSession();
  expect((await result(s.id, "tools/list")).tools.length).toBeGreaterThan(0);
  expect(
    (await result(s.id, "tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } })).structuredContent
      .fahrenheit,
  ).toBe(212);
  return s.id;
}

const CHURN = 50;
/** A resource of the engine test app. */
const RESOURCE = "info://about";

describe("a session costs nothing until it holds state", () => {
  it(`2025-11-25: ${CHURN} sessions that initialize, list and call leave no storage, no alarm and no hub row`, async () => {
    const hubBefore = await hubSessionRows();
    const ids: string[] = [];
    const t0 = Date.now();
    for (let i = 0; i < CHURN; i++) ids.push(await churnOne());
    const turnMs = (Date.now() - t0) / CHURN;
    let bytes = 0;
    let alarms = 0;
    let keys = 0;
    for (const id of ids) {
      const s = await storage(sessionStub(id));
      keys += s.keys.length;
      bytes += s.bytes;
      if (s.alarm !== null) alarms++;
    }
    const empty = await EMPTY();
    console.log(
      `churn of ${CHURN}: ${bytes} database bytes (${bytes - CHURN * empty.bytes} over empty objects), ${keys} keys, ${alarms} alarms, ${(await hubSessionRows()) - hubBefore} hub rows left; ${turnMs} ms a turn`,
    );
    expect({ bytes, keys, alarms }).toEqual({ bytes: CHURN * empty.bytes, keys: 0, alarms: 0 });
    expect(await hubSessionRows()).toBe(hubBefore);
  });

  it("2025-11-25: a session that holds no state keeps working across evictions, with its version and capabilities", async () => {
    const s = await openSession({ capabilities: { elicitation: {} } });
    const stub = sessionStub(s.id);
    await evictDurableObject(stub);
    expect(await result(s.id, "ping")).toEqual({});
    await evictDurableObject(stub);
    // The negotiated revision survives: another one in the header is 400.
    const wrong = await request(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": "2025-06-18" } });
    expect(wrong.status).toBe(400);
    await wrong.body?.cancel();
    await evictDurableObject(stub);
    // The client's capabilities survive: the greeting tool asks the client for a name.
    const greet = sse(await request(s.id, "tools/call", { name: "greet", arguments: {} }));
    await greet.next();
    expect((await greet.nextMessage())?.message?.method).toBe("elicitation/create");
    await greet.cancel();
  });

  it("2025-11-25: the first state a session holds stores it and starts its idle alarm", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    expect(await storage(stub)).toMatchObject({ keys: [], alarm: null });
    await result(s.id, "logging/setLevel", { level: "notice" });
    const held = await storage(stub);
    expect(held.keys).toEqual(["session"]);
    expect(held.alarm).toBeGreaterThan(Date.now());
    // And it keeps that state across an eviction.
    await evictDurableObject(stub);
    const logs = await sse(
      await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } }),
    ).rest();
    expect(logs.some((e) => e.message?.method === "notifications/message")).toBe(false);
  });

  it("2025-11-25: unsubscribing from what the session never subscribed to stores nothing", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    expect(await result(s.id, "resources/unsubscribe", { uri: RESOURCE })).toEqual({});
    expect(await storage(stub)).toMatchObject({ keys: [], alarm: null });
  });

  it("2025-11-25: a GET stream registers the session with the hub; listing and calling do not", async () => {
    const hubBefore = await hubSessionRows();
    const s = await openSession();
    await result(s.id, "tools/list");
    expect(await hubSessionRows()).toBe(hubBefore);
    const get = sse(await getStream(s.id));
    await get.next();
    expect(await hubSessionRows()).toBe(hubBefore + 1);
    await get.cancel();
    (await deleteSession(s.id)).body?.cancel();
    expect(await hubSessionRows()).toBe(hubBefore);
  });
});

describe("an ended session", () => {
  it("2025-11-25: a DELETEd session that never held state is 404 afterwards, also after eviction, and its mark goes with its id", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    expect((await deleteSession(s.id)).status).toBe(200);
    for (const evict of [false, true]) {
      if (evict) await evictDurableObject(stub);
      const res = await request(s.id, "ping");
      expect(res.status).toBe(404);
      await res.body?.cancel();
    }
    const gone = await deleteSession(s.id);
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
    // What is left is one key, until the id itself expires; then the alarm deletes it.
    const left = await storage(stub);
    expect(left.keys).toEqual(["endedUntil"]);
    expect(left.alarm).toBeGreaterThan(Date.now() + 3600_000);
    await runInDurableObject(stub, (_instance, state) => state.storage.put("endedUntil", Date.now() - 1));
    await evictDurableObject(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storage(stub)).toEqual(await EMPTY());
  });

  it("2025-11-25: a session that held state is deleted when it ends, and stays 404 after eviction", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    await sse(await request(s.id, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } })).rest();
    expect((await storage(stub)).bytes).toBeGreaterThan(0);
    expect((await deleteSession(s.id)).status).toBe(200);
    await evictDurableObject(stub);
    const res = await request(s.id, "ping");
    expect(res.status).toBe(404);
    await res.body?.cancel();
    const left = await storage(stub);
    expect(left.keys).toEqual(["endedUntil"]);
    console.log(`an ended session's mark: ${left.bytes} database bytes`);
  });
});

describe("sealed session ids", () => {
  it("2025-11-25: an id changed in any part, or another principal's, is 404 without any object storing anything", async () => {
    const s = await openSession();
    const [name, record, kid, mac] = s.id.split(".");
    const flip = (t: string, at = 5) => (t[at] === "A" ? `${t.slice(0, at)}B${t.slice(at + 1)}` : `${t.slice(0, at)}A${t.slice(at + 1)}`);
    const forgeries = [
      `${flip(name!)}.${record}.${kid}.${mac}`,
      `${name}.${flip(record!)}.${kid}.${mac}`,
      `${name}.${record}.${kid}.${flip(mac!)}`,
    ];
    for (const forged of [
      ...forgeries,
      `${name}.${record}.${flip(kid!, 1)}.${mac}`,
      `${name}.${record}.${mac}`,
      `${name}.${record}`,
      `${s.id}.x`,
    ]) {
      const res = await SELF.fetch("http://localhost/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": forged },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(res.status).toBe(404);
      await res.body?.cancel();
      expect(await storage(sessionStub(forged))).toEqual(await EMPTY());
    }
  });
});

describe("ids that cannot be sealed", () => {
  it("2025-11-25: capabilities too large for a sealed id get a plain id and a session stored from the start, nothing cut", async () => {
    const experimental = { big: { note: "x".repeat(2000) } };
    const res = await postInitialize({ capabilities: { experimental } });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const id = res.headers.get("Mcp-Session-Id")!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await runInDurableObject(sessionStub(id), (_i, state) => state.storage.get<{ clientCapabilities: unknown }>("session"));
    expect(row?.clientCapabilities).toEqual({ experimental });
    expect(await result(id, "ping")).toEqual({});
  });

  it("2025-11-25: a plain id ends SESSION_MAX_SECONDS after initialize like a sealed one, however busy, leaving no storage", async () => {
    const res = await postInitialize({ capabilities: { experimental: { big: { note: "x".repeat(2000) } } } });
    await res.body?.cancel();
    const id = res.headers.get("Mcp-Session-Id")!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await result(id, "ping")).toEqual({});
    const week = 7 * 86_400_000; // SESSION_MAX_SECONDS's default
    await runInDurableObject(sessionStub(id), async (_i, state) => {
      const row = (await state.storage.get<{ createdAt: number }>("session"))!;
      row.createdAt -= week;
      await state.storage.put("session", row);
    });
    await evictDurableObject(sessionStub(id));
    const late = await request(id, "ping");
    expect(late.status).toBe(404);
    await late.body?.cancel();
    expect(await storage(sessionStub(id))).toEqual(await EMPTY());
  });

  it("2025-11-25: without MCP_STATE_SECRET a session gets a plain id and is stored from the start", async () => {
    const worker = createMcpWorker(app);
    const noSecret = { ...env, MCP_STATE_SECRET: undefined };
    const post = async (body: object, sessionId?: string) => {
      const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
      if (sessionId) headers["Mcp-Session-Id"] = sessionId;
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) }),
        noSecret as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    });
    expect(init.status).toBe(200);
    await init.body?.cancel();
    const id = init.headers.get("Mcp-Session-Id")!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await storage(sessionStub(id))).keys).toEqual(["session"]);
    const ping = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, id);
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("2025-11-25: a sealed id stops opening SESSION_MAX_SECONDS after initialize, and only for its principal", async () => {
    const secret = "a-secret";
    const start = { principal: "alice", protocolVersion: LEGACY_VERSION, clientCapabilities: {}, createdAt: Date.now() };
    const id = (await sealSessionId(start, { stateSecret: secret }))!;
    const week = 7 * 86_400_000;
    expect(await openSessionId(id, "alice", { stateSecret: secret }, week)).toMatchObject({
      sessionId: id,
      principal: "alice",
      protocolVersion: LEGACY_VERSION,
    });
    expect(await openSessionId(id, "bob", { stateSecret: secret }, week)).toBeNull();
    expect(await openSessionId(id, "alice", { stateSecret: "another-secret" }, week)).toBeNull();
    expect(await openSessionId(id, "alice", { stateSecret: secret }, week, start.createdAt + week)).toBeNull();
  });

  it("2025-11-25: an id opened once (kept per settings object) still opens only for its principal, and still stops at its age", async () => {
    const settings = { stateSecret: "a-secret" };
    const start = { principal: "alice", protocolVersion: LEGACY_VERSION, clientCapabilities: {}, createdAt: Date.now() };
    const id = (await sealSessionId(start, settings))!;
    const week = 7 * 86_400_000;
    expect(await openSessionId(id, "alice", settings, week)).toMatchObject({ sessionId: id, principal: "alice" });
    expect(await openSessionId(id, "bob", settings, week)).toBeNull();
    expect(await openSessionId(id, "alice", settings, week, start.createdAt + week)).toBeNull();
    expect(await openSessionId(id, "alice", settings, week)).toMatchObject({ sessionId: id, principal: "alice" });
    // Kept for those settings only: other secrets open nothing.
    expect(await openSessionId(id, "alice", { stateSecret: "another-secret" }, week)).toBeNull();
  });
});
