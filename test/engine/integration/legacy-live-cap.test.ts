/**
 * SESSION_MAX_LIVE: how many 2025-11-25 sessions holding state one client (a
 * principal; anonymous: an address) may keep at once. The session past the cap
 * is refused its first stateful step (429, a JSON-RPC error naming the
 * setting) and goes on serving plain calls; a session that ends (DELETE, its
 * idle alarm) frees its place; the count lives in storage, so evictions keep
 * it; and a client's index of live sessions leaves nothing once they end.
 */
import { createExecutionContext, env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveSessionsStub } from "../../../src/engine/objects/addresses";
import type { SessionRow } from "../../../src/engine/objects/session-store";
import worker from "../app/index";
import { sessionStub, sse } from "../helpers/legacy";
import { MCP_URL } from "../helpers/mcp";
import { deleteHeaders, initializeHeaders, initializeMessage, legacyHeaders, requestMessage, streamHeaders } from "../wire/index.ts";

const CAP = 4;
const IDLE_MS = 3600 * 1000; // SESSION_IDLE_SECONDS in the engine test app's wrangler.toml

/** The Worker with SESSION_MAX_LIVE at CAP, which it passes on to the session objects. */
const send = (method: string, headers: Record<string, string>, body?: object) =>
  worker.fetch(
    new Request(MCP_URL, { method, headers, body: body && JSON.stringify(body) }),
    { ...env, SESSION_MAX_LIVE: String(CAP) } as never,
    createExecutionContext(),
  );

const request = (id: string, method: string, params: Record<string, unknown>, rpcId: string) =>
  send("POST", legacyHeaders(id), requestMessage(method, params, rpcId));
const deleteSession = async (id: string) => (await send("DELETE", deleteHeaders(id))).status;

async function result(id: string, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const res = await request(id, method, params, "r");
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: unknown }).result;
}

/** A session opened from `address` (the anonymous client's key is its address). */
async function openFrom(address: string): Promise<string> {
  const res = await send("POST", initializeHeaders({ "CF-Connecting-IP": address }), initializeMessage({}));
  expect(res.status).toBe(200);
  await res.body?.cancel();
  return res.headers.get("Mcp-Session-Id")!;
}

/** The first stateful step: a log level. Its HTTP status, and the JSON-RPC answer. */
async function setLevel(id: string): Promise<{ status: number; body: any }> {
  const res = await request(id, "logging/setLevel", { level: "info" }, "lvl");
  return { status: res.status, body: await res.json() };
}

/** `count` sessions of `address` that hold state. */
async function fill(address: string, count = CAP): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await openFrom(address);
    expect((await setLevel(id)).status).toBe(200);
    ids.push(id);
  }
  return ids;
}

/** What a client's index stores: its counted sessions, and its database keys at all. */
const indexOf = (address: string) =>
  runInDurableObject(liveSessionsStub(env, `ip:${address}`), async (_instance, state) => {
    const has = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'live'").toArray().length > 0;
    return { rows: has ? state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM live").one().n : 0, tables: has };
  });

const storedKeys = (id: string) => runInDurableObject(sessionStub(id), async (_i, state) => [...(await state.storage.list()).keys()]);

function expectCapRefusal(answer: { status: number; body: any }, id: string | null) {
  expect(answer.status).toBe(429);
  expect(answer.body).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600, message: expect.stringMatching(/SESSION_MAX_LIVE/) } });
}

describe("SESSION_MAX_LIVE", () => {
  it(`2025-11-25: past ${CAP} sessions with state, a client's next first stateful step is 429 and stores nothing; plain calls go on; other clients are not held back`, async () => {
    const address = "198.51.100.1";
    await fill(address);
    const over = await openFrom(address);
    expectCapRefusal(await setLevel(over), "lvl");
    const get = await send("GET", streamHeaders(over));
    expectCapRefusal({ status: get.status, body: await get.json() }, null);
    const sub = await request(over, "resources/subscribe", { uri: "info://about" }, "sub");
    expectCapRefusal({ status: sub.status, body: await sub.json() }, "sub");
    expect(await storedKeys(over)).toEqual([]);
    // The refused session is still a session: it lists and calls.
    expect(
      (await result(over, "tools/call", { name: "convert_temperature", arguments: { value: 0, from: "celsius" } })).structuredContent
        .fahrenheit,
    ).toBe(32);
    expect((await indexOf(address)).rows).toBe(CAP);
    // Another address has its own count.
    expect((await setLevel(await openFrom("198.51.100.2"))).status).toBe(200);
  });

  it("2025-11-25: past the cap, a call that would stream (progress, logs) still runs, answered as plain JSON without them: the session stores nothing and the count holds", async () => {
    const address = "198.51.100.3";
    await fill(address);
    const over = await openFrom(address);
    const res = await request(over, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } }, "c");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ id: "c", result: { content: [{ type: "text", text: "Liftoff!" }] } });
    expect(await storedKeys(over)).toEqual([]);
    expect((await indexOf(address)).rows).toBe(CAP);
  });

  it("2025-11-25: past the cap, a call that must ask the client (elicitation) is 429 naming the setting, and stores nothing", async () => {
    const address = "198.51.100.8";
    await fill(address);
    const res = await send(
      "POST",
      initializeHeaders({ "CF-Connecting-IP": address }),
      initializeMessage({ capabilities: { elicitation: {} } }),
    );
    const over = res.headers.get("Mcp-Session-Id")!;
    await res.body?.cancel();
    const greet = await request(over, "tools/call", { name: "greet", arguments: {} }, "g");
    expectCapRefusal({ status: greet.status, body: await greet.json() }, "g");
    expect(await storedKeys(over)).toEqual([]);
    expect((await indexOf(address)).rows).toBe(CAP);
  });

  it("2025-11-25: past the cap, an anonymous client's task is refused before it is created (429); within the cap it is created and counts its session", async () => {
    const address = "198.51.100.9";
    const ids = await fill(address, CAP - 1);
    const within = await openFrom(address);
    const created = await result(within, "tools/call", { name: "quick_task", arguments: { n: 1 }, task: {} });
    expect(created.task?.taskId).toBeDefined();
    expect((await indexOf(address)).rows).toBe(CAP);
    const over = await openFrom(address);
    const refused = await request(over, "tools/call", { name: "quick_task", arguments: { n: 2 }, task: {} }, "t");
    expectCapRefusal({ status: refused.status, body: await refused.json() }, "t");
    expect(await storedKeys(over)).toEqual([]);
    expect((await indexOf(address)).rows).toBe(CAP);
    expect(ids).toHaveLength(CAP - 1);
  });

  it("2025-11-25: within the cap, a call's first progress streams and counts its session", async () => {
    const address = "198.51.100.10";
    await fill(address, CAP - 1);
    const under = await openFrom(address);
    const events = await sse(
      await request(under, "tools/call", { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: 1 } }, "c"),
    ).rest();
    expect(events.some((e) => e.message?.method === "notifications/progress")).toBe(true);
    expect(events.at(-1)?.message?.result).toBeDefined();
    expect((await indexOf(address)).rows).toBe(CAP);
  });

  it("2025-11-25: DELETE frees a place at once, and the index holds nothing once the client's last session ends", async () => {
    const address = "198.51.100.4";
    const ids = await fill(address);
    const waiting = await openFrom(address);
    expectCapRefusal(await setLevel(waiting), "lvl");
    expect(await deleteSession(ids[0]!)).toBe(200);
    expect((await setLevel(waiting)).status).toBe(200);
    // A session that never held state is not counted, and ending it changes nothing.
    expect(await deleteSession(await openFrom(address))).toBe(200);
    expect((await indexOf(address)).rows).toBe(CAP);
    for (const id of [...ids.slice(1), waiting]) expect(await deleteSession(id)).toBe(200);
    expect(await indexOf(address)).toEqual({ rows: 0, tables: false });
  });

  it("2025-11-25: a session the idle alarm ends frees its place", async () => {
    const address = "198.51.100.5";
    const ids = await fill(address);
    const waiting = await openFrom(address);
    expectCapRefusal(await setLevel(waiting), "lvl");
    const stub = sessionStub(ids[1]!);
    await runInDurableObject(stub, async (_instance, state) => {
      const row = (await state.storage.get<SessionRow>("session"))!;
      row.lastSeenAt -= IDLE_MS + 1000;
      await state.storage.put("session", row);
    });
    await evictDurableObject(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await request(ids[1]!, "ping", {}, "p")).status).toBe(404);
    expect((await setLevel(waiting)).status).toBe(200);
    expect((await indexOf(address)).rows).toBe(CAP);
  });

  it("2025-11-25: the count survives the eviction of the index and of every session, and a release after eviction still frees a place", async () => {
    const address = "198.51.100.6";
    const ids = await fill(address);
    const waiting = await openFrom(address);
    await evictDurableObject(liveSessionsStub(env, `ip:${address}`));
    for (const id of ids) await evictDurableObject(sessionStub(id));
    expectCapRefusal(await setLevel(waiting), "lvl");
    expect(await deleteSession(ids[2]!)).toBe(200);
    await evictDurableObject(liveSessionsStub(env, `ip:${address}`));
    expect((await setLevel(waiting)).status).toBe(200);
  });

  it(`2025-11-25: a churn of sessions that only list and call never counts: after ${CAP * 5} of them the client has no index and its next session may hold state`, async () => {
    const address = "198.51.100.7";
    for (let i = 0; i < CAP * 5; i++) {
      const id = await openFrom(address);
      expect((await result(id, "tools/list")).tools.length).toBeGreaterThan(0);
      expect(
        (await result(id, "tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } })).structuredContent
          .fahrenheit,
      ).toBe(212);
    }
    expect(await indexOf(address)).toEqual({ rows: 0, tables: false });
    expect((await setLevel(await openFrom(address))).status).toBe(200);
  });
});
