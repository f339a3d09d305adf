// Bench-only: what any webhook fan-out from one Durable Object costs under `wrangler dev` on this
// machine: `n` POSTs of one small JSON body to one receiver, 25 in flight as a shard sends them, no
// signature, log line or span of its own; with `row`, each answer also updates one SQLite row in its
// own storage commit (a shard writes the answers of one turn together). bench/lib/events.mjs measures
// the workerd CPU per POST and the time to the last arrival, beside the engine's rows.
import { DurableObject } from "cloudflare:workers";

export class FloorSender extends DurableObject {
  async send(url, n, inFlight, row) {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS sent (k INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
    const body = JSON.stringify({ eventId: "evt_floor", name: "test_event", timestamp: new Date().toISOString(), data: { text: "bench" } });
    let next = 0;
    let failed = 0;
    const worker = async (k) => {
      while (next < n) {
        next++;
        const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        if (!res.ok) failed++;
        await res.body?.cancel();
        if (row) sql.exec("INSERT INTO sent (k, at) VALUES (?, ?) ON CONFLICT DO UPDATE SET at = excluded.at", k, next);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, (_, k) => worker(k)));
    return { failed };
  }
}

export default {
  async fetch(request, env) {
    const q = new URL(request.url).searchParams;
    const stub = env.FLOOR_SENDER.get(env.FLOOR_SENDER.idFromName("floor"));
    return Response.json(await stub.send(q.get("url"), Number(q.get("n")), Number(q.get("c") ?? 25), q.get("row") === "1"));
  },
};
