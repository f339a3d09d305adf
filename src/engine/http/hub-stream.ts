/**
 * The bridge from a long-lived SSE response in the Worker to a hub shard: the client's shard, the
 * WebSocket upgrade that carries the stream's listener, and the shard's answer as one of three
 * outcomes. `subscriptions/listen` (listen.ts) and `events/stream` (src/engine/events/stream.ts)
 * both hold their streams this way, so their admission, bounds and failure answers are one code path.
 */
import type { Env } from "../env";
import { hubStub, listenerPlace } from "../objects/addresses";
import type { ListenRefusal } from "../objects/contracts";

/** A hub socket, accepted; or why there is none: a bound the client reached, or the hub unreachable. */
type HubSocket = { ws: WebSocket } | { refused: ListenRefusal } | { unavailable: true };

/**
 * Opens the socket for one stream of `clientKey`: `query` names the shard's bounds (streams, filter
 * bytes) and the stream's kind; the shard counts the client's streams of that kind against them.
 * `what` names the stream in the log line of an unreachable hub.
 */
export async function openHubSocket(env: Env, clientKey: string, query: Record<string, string | number>, what: string): Promise<HubSocket> {
  try {
    const place = await listenerPlace(env, clientKey);
    const params = new URLSearchParams({ client: place.client });
    for (const [k, v] of Object.entries(query)) params.set(k, String(v));
    const upgrade = await hubStub(env, place.shard).fetch(`https://hub/listen?${params}`, { headers: { Upgrade: "websocket" } });
    if (upgrade.status === 429) return { refused: (await upgrade.text()) === "filter-bytes" ? "filter-bytes" : "streams" };
    const ws = upgrade.webSocket;
    if (!ws) return { unavailable: true };
    ws.accept();
    return { ws };
  } catch (err) {
    console.error(`${what}: could not reach the hub:`, err);
    return { unavailable: true };
  }
}
