/**
 * A DELETE that races a 2025-11-25 session's first stateful step: the end wins. Whatever order the
 * session object runs them in (the DELETE while the first GET waits for its live seat, or while it
 * registers with the hub), the session ended stays ended: later requests are 404, and it holds no
 * live seat, no hub row and no storage but the mark that keeps its sealed id refused.
 */
import { ANONYMOUS } from "../../../src/engine/mcp/auth";
import { SELF, env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { openSessionId } from "../../../src/engine/http/session-id";
import { liveSessionsStub } from "../../../src/engine/objects/addresses";
import type { SessionAnswer, SessionRpc } from "../../../src/engine/objects/contracts";
import { hubHasSession } from "../helpers/hub";
import { cancelAllReaders, deleteSession, getStream, request, sessionStub } from "../helpers/legacy";
import { MCP_URL } from "../helpers/mcp";
import { initializeHeaders, initializeMessage } from "../wire/index.ts";

afterEach(cancelAllReaders);

const ADDRESS = "198.51.100.77";

async function openFrom(address: string): Promise<string> {
  const res = await SELF.fetch(MCP_URL, {
    method: "POST",
    headers: initializeHeaders({ "CF-Connecting-IP": address }),
    body: JSON.stringify(initializeMessage()),
  });
  expect(res.status).toBe(200);
  await res.body?.cancel();
  return res.headers.get("Mcp-Session-Id")!;
}

const liveRows = (address: string) =>
  runInDurableObject(liveSessionsStub(env, `ip:${address}`), async (_instance, state) => {
    const has = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'live'").toArray().length > 0;
    return has ? state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM live").one().n : 0;
  });

const storedKeys = (id: string) => runInDurableObject(sessionStub(id), async (_i, state) => [...(await state.storage.list()).keys()]);

describe("DELETE racing the first GET", () => {
  it("2025-11-25: 12 sessions each sent GET and DELETE at once: every one ends, with no seat, hub row or storage left", async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => openFrom(ADDRESS)));
    // Each session gets its GET and its DELETE together; a few DELETEs a little later, to hit the
    // window where the GET registers with the hub.
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const get = getStream(id);
        if (i % 3 === 1) await Promise.resolve();
        if (i % 3 === 2) await new Promise((r) => setTimeout(r, 1));
        const [g, d] = await Promise.all([get, deleteSession(id)]);
        await g.body?.cancel();
        return { get: g.status, del: d.status };
      }),
    );
    for (const o of outcomes) {
      expect(o.del).toBe(200);
      expect([200, 404]).toContain(o.get);
    }
    for (const id of ids) {
      expect((await request(id, "ping")).status).toBe(404);
      expect((await getStream(id)).status).toBe(404);
      expect(await storedKeys(id)).toEqual(["endedUntil"]);
      expect(await hubHasSession(id)).toBe(false);
    }
    expect(await liveRows(ADDRESS)).toBe(0);
  });

  it.each([
    ["registers with the hub", undefined],
    ["waits for its live seat", "198.51.100.79"],
  ])(
    "2025-11-25: a DELETE while the first GET %s: the GET is 404, nothing is left, and later requests are 404, not 500",
    async (_while, address) => {
      // Without an address the client counts for nobody, so the GET takes no seat and goes straight to the hub.
      const headers: Record<string, string> = address ? { "CF-Connecting-IP": address } : {};
      const res = await SELF.fetch(MCP_URL, {
        method: "POST",
        headers: initializeHeaders(headers),
        body: JSON.stringify(initializeMessage()),
      });
      const id = res.headers.get("Mcp-Session-Id")!;
      await res.body?.cancel();
      const seal = (await openSessionId(id, "", { stateSecret: (env as { MCP_STATE_SECRET?: string }).MCP_STATE_SECRET }, 86_400_000))!;
      const caller = { principal: "", seal, caller: ANONYMOUS };
      // In the object itself, so the order is the one the issue read: the GET opens its stream and awaits
      // the hub's registration, and the DELETE, queued behind the same load, ends the session meanwhile.
      const [get, del] = await runInDurableObject(sessionStub(id), async (instance) => {
        const session = instance as unknown as SessionRpc;
        const opening = session.openGet(caller);
        const ending = session.terminate(caller);
        return Promise.all([opening, ending]) as Promise<[SessionAnswer, SessionAnswer]>;
      });
      expect(del.kind).toBe("accepted");
      expect(get).toMatchObject({ kind: "refused", refusal: "unknown-session" });
      expect(await hubHasSession(id)).toBe(false);
      expect(await storedKeys(id)).toEqual(["endedUntil"]);
      expect((await getStream(id)).status).toBe(404);
      expect((await request(id, "ping")).status).toBe(404);
      if (address) expect(await liveRows(address)).toBe(0);
    },
  );
});
