/** The notification hub as the tests see it: every shard, publishing as `notify` does, evicting them. */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { hubShardCount, hubStub, listenerPlace, publishTaskNotification, publishToHub } from "../../../src/engine/objects/addresses";
import { TASK_NOTIFICATION, type HubNotification } from "../../../src/engine/objects/contracts";

/** Publishes through every hub shard, as `ctx.notify` from a tool or a cron trigger does; a task's notification as its task object does. */
export const publish = (n: HubNotification) =>
  n.method === TASK_NOTIFICATION ? publishTaskNotification(env, { ...n, method: TASK_NOTIFICATION }) : publishToHub(env, n);

/** Every hub shard (HUB_SHARDS in the test app's wrangler.toml). */
export const hubShards = () => Array.from({ length: hubShardCount(env) }, (_, i) => hubStub(env, i));

/** Whether any hub shard has the 2025 session registered (it gets the notifications it subscribed to). */
export async function hubHasSession(sessionId: string): Promise<boolean> {
  const found = await Promise.all(
    hubShards().map((shard) =>
      runInDurableObject(shard, (_instance, state) => {
        const tables = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").toArray();
        return tables.length > 0 && state.storage.sql.exec("SELECT 1 FROM sessions WHERE id = ?", sessionId).toArray().length > 0;
      }),
    ),
  );
  return found.includes(true);
}

/** Evicts every shard: "hibernate" keeps the listeners' sockets, "close" drops them. */
export const evictHub = (webSockets: "hibernate" | "close") => Promise.all(hubShards().map((s) => evictDurableObject(s, { webSockets })));

let lastAddress = 0;
/**
 * A fresh client address whose listen streams go to hub shard `index`: a shard holds every stream of
 * one client, so tests that spread streams over the shards send them from such addresses.
 */
export async function addressOnShard(index: number): Promise<string> {
  for (;;) {
    const n = ++lastAddress;
    const address = `198.18.${(n >> 8) & 255}.${n & 255}`;
    if ((await listenerPlace(env, `ip:${address}`)).shard === index) return address;
  }
}
