/**
 * A DELETE that races a 2025-11-25 session's first stateful step: the end wins. Whatever order the
 * session object runs them in (the DELETE while the first GET waits for its live seat, or while it
 * registers with the hub), the session ended stays ended: later requests are 404, and it holds no
 * live seat, no hub row and no storage but the mark that keeps its sealed id refused.
 */
import { SELF, env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { liveSessionsStub } from "../../src/objects/addresses";
import { hubHasSession } from "../helpers/hub";
import { cancelAllReaders, deleteSession, getStream, request, sessionStub } from "../helpers/legacy";
import { MCP_URL } from "../helpers/mcp";
import { initializeHeaders, initializeMessage } from "../wire/index.ts";

afterEach(cancelAllReaders);

const ADDRESS = "198.51.100.77";

async function openFrom(address: string): Promise<string> {
  const res = await SELF.fetch(MCP_URL, { method: "POST", headers: initializeHeaders({ "CF-Connecting-IP": address }), body: JSON.stringify(initializeMessage()) });
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
});
