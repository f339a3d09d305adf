/**
 * The relay role of the hub's Durable Object class: one node of the tree that carries a notification
 * to a shard's 2025 sessions. A session is an object of its own, so reaching one is a call, and
 * Cloudflare bounds the calls one invocation makes; a node calls at most SESSION_BATCH sessions
 * itself and hands larger sets to relay nodes, which split them again. A relay node is an object of
 * the hub's class that only ever runs this and keeps no storage, so a fork binds no extra class.
 */
import type { Env } from "../env";
import { sessionStub } from "./addresses";
import type { HubNotification } from "./contracts";

/**
 * Calls one invocation makes to sessions at most. Cloudflare bounds the subrequests of one
 * invocation (50 on the Free plan, `wrangler dev` not at all); a shard or relay with more sessions
 * than this splits them among at most this many relays, each a new invocation with its own budget:
 * two levels reach 1,600 sessions per shard, three 64,000.
 */
export const SESSION_BATCH = 40;

/**
 * Delivers `n` to these sessions from the node named `node` (a shard or a relay), and answers the
 * sessions it could not reach (the shard tries them again). Relays are named after the node that
 * made them, so two shards never share one.
 */
export async function relayToSessions(env: Env, node: DurableObjectId, sessionIds: string[], n: HubNotification): Promise<string[]> {
  if (sessionIds.length <= SESSION_BATCH) {
    const results = await Promise.allSettled(sessionIds.map((id) => sessionStub(env, id).deliver(n)));
    return sessionIds.filter((_, i) => results[i]!.status === "rejected");
  }
  // At most SESSION_BATCH relays of at most ⌈sessions / SESSION_BATCH⌉ sessions each; a relay
  // with more than SESSION_BATCH splits again.
  const size = Math.ceil(sessionIds.length / SESSION_BATCH);
  const batches = Array.from({ length: Math.ceil(sessionIds.length / size) }, (_, i) => sessionIds.slice(i * size, (i + 1) * size));
  const hub = env.MCP_HUB;
  const results = await Promise.allSettled(batches.map((ids, i) => hub.get(hub.idFromName(`relay/${node}/${i}`)).relay(ids, n)));
  return results.flatMap((r, i) => (r.status === "fulfilled" ? r.value : batches[i]!));
}
