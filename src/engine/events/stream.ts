/**
 * events/stream (push): one long-lived SSE response per subscription, held by the Worker and fed by a
 * hub shard over a hibernatable WebSocket, beside the `subscriptions/listen` streams. It opens with
 * `notifications/events/active`, replays from the client's cursor (types with `replay`), then sends
 * each matching occurrence as `notifications/events/event`, a `notifications/events/heartbeat` data
 * frame every 25 s (after rechecking access: revoked, `notifications/events/terminated` ends it), and ends with the StreamEventsResult when the server side closes. Every
 * notification carries the request's id as `_meta["io.modelcontextprotocol/subscriptionId"]`.
 * The extension exempts these streams from any cap on concurrent requests, so they are bounded by
 * MAX_EVENT_STREAMS per client, counted apart from the listen streams' MAX_LISTEN_STREAMS.
 */
import { readConfig } from "../config";
import { SseStream } from "../http/sse";
import type { StreamCaller } from "../mcp/app";
import { ErrorCode, McpError } from "../mcp/errors";
import { notification, resultResponse } from "../mcp/jsonrpc";
import { META } from "../mcp/versions";
import { openHubSocket } from "../http/hub-stream";
import { HUB_READY } from "../objects/contracts";
import { completeFrame } from "../objects/frames";
import { canonicalJson } from "./canonical";
import { decodeCursor } from "./cursor";
import { eventError } from "./errors";

/** Replayed occurrences one stream sends before going live; a client further behind polls. */
const MAX_REPLAY = 1000;

type Poll = (
  cursor: unknown,
) => Promise<{ events: Record<string, unknown>[]; cursor: string | null; truncated: boolean; hasMore: boolean }>;

/** A refusal before any stream: the JSON-RPC error, in-band, never a 5xx. */
export const refusal = (id: string | number, e: McpError) => Response.json({ jsonrpc: "2.0", id, error: e.toJSON() }, { status: 200 });

export async function openEventStream(
  request: { id: string | number },
  caller: StreamCaller,
  subscription: { name: string; args: Record<string, unknown>; cursor: unknown },
  poll: Poll,
  live: { heartbeatMs: number; stillAllowed: () => Promise<boolean> },
): Promise<Response> {
  const { id } = request;
  const subscriptionMeta = { [META.subscriptionId]: id };
  const member = JSON.stringify(subscriptionMeta).slice(1, -1);
  const args = Object.fromEntries(Object.entries(subscription.args).map(([k, v]) => [k, canonicalJson(v)]));
  const listener = JSON.stringify({ event: { name: subscription.name, args }, principal: caller.auth?.principal ?? "" });
  const bytes = new TextEncoder().encode(listener).byteLength;
  const { maxEventStreams, maxListenFilterBytes } = readConfig(caller.env);
  const hub = await openHubSocket(
    caller.env,
    caller.clientKey,
    { kind: "events", bytes, streams: maxEventStreams, budget: maxListenFilterBytes },
    "events/stream",
  );
  // Every refusal in-band (HTTP 200), as the extension's errors are: a client's bound is ResourceExhausted,
  // and a hub that cannot be reached is an internal error to retry, never a 5xx.
  if ("refused" in hub)
    return refusal(
      id,
      hub.refused === "filter-bytes"
        ? eventError("ResourceExhausted", "This client's open event streams hold too many argument bytes (MAX_LISTEN_FILTER_BYTES)", {
            limit: "streamArgumentBytes",
            max: maxListenFilterBytes,
          })
        : eventError("ResourceExhausted", "This client has too many open event streams (MAX_EVENT_STREAMS); close one", {
            limit: "streams",
            max: maxEventStreams,
          }),
    );
  if ("unavailable" in hub)
    return refusal(
      id,
      new McpError(ErrorCode.InternalError, "The notification hub is unavailable; retry events/stream", { retryAfterMs: 1000 }),
    );
  const { ws } = hub;

  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const sse = new SseStream(() => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    ws.close(1000, "client closed the event stream");
  });
  const send = (method: string, params: Record<string, unknown>) => sse.send(notification(method, { ...params, _meta: subscriptionMeta }));
  /** The server side ended it: the StreamEventsResult, then the end of the stream (once). */
  const end = () => {
    if (!sse.isOpen) return;
    sse.send(resultResponse(id, { resultType: "complete", _meta: subscriptionMeta }));
    sse.close();
  };
  let last: string | null = null;
  // Live frames that arrive while the replay runs wait for it; those it already sent are dropped.
  let held: string[] | undefined = [];
  let replayedTo = -1;
  const forward = (frame: string) => {
    const full = completeFrame(frame, member);
    const cursor = (JSON.parse(full) as { params?: { cursor?: string | null } }).params?.cursor ?? null;
    const at = cursor === null ? null : decodeCursor(cursor);
    if (at !== null && at <= replayedTo) return;
    last = cursor ?? last;
    sse.sendJson(full);
  };

  ws.addEventListener("message", async (event) => {
    const data = event.data as string;
    if (held === undefined) return forward(data);
    if (data !== HUB_READY) return void held.push(data);
    // The hub has the filter: nothing published from here on is missed. Now the log, then what waited.
    try {
      let page = await poll(subscription.cursor ?? null);
      const truncated = page.truncated;
      const events: Record<string, unknown>[] = [];
      const start = subscription.cursor === null || subscription.cursor === undefined ? page.cursor : (subscription.cursor as string);
      while (true) {
        events.push(...page.events);
        if (!page.hasMore || events.length >= MAX_REPLAY) break;
        page = await poll(page.cursor);
      }
      last = start;
      send("notifications/events/active", { cursor: start, truncated });
      for (const e of events) {
        sse.send(notification("notifications/events/event", { ...e, _meta: subscriptionMeta }));
        last = (e.cursor as string | null) ?? last;
      }
      replayedTo = last === null ? -1 : (decodeCursor(last) ?? -1);
    } catch (err) {
      send("notifications/events/error", {
        error: { code: ErrorCode.InternalError, message: "The replay could not be read; live events follow" },
      });
      console.error("events/stream: replay failed:", err);
    }
    const waiting = held;
    held = undefined;
    for (const frame of waiting) forward(frame);
    // Each heartbeat rechecks access (scopes held at the start, the app's allow): revoked, the stream ends.
    heartbeat = setInterval(async () => {
      if (await live.stillAllowed().catch(() => false)) return send("notifications/events/heartbeat", { cursor: last });
      if (heartbeat !== undefined) clearInterval(heartbeat);
      send("notifications/events/terminated", { error: eventError("Forbidden", "Access to this event was revoked").toJSON() });
      // Then the request's result, as every end of the stream sends it.
      end();
      ws.close(1000, "access revoked");
    }, live.heartbeatMs);
  });
  ws.addEventListener("close", () => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    end();
  });
  ws.send(listener);
  sse.comment("streaming events");
  return sse.response;
}
