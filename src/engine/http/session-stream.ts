/**
 * Pipes one stream of a 2025 session to the client as SSE. The Worker holds
 * the client's response; the session object feeds it over a hibernatable
 * WebSocket (message bodies in frames), so the object can sleep while an idle
 * client keeps the stream open. A GET stream also takes the session's
 * notifications from its hub shard over a second socket.
 */
import { ErrorCode } from "../mcp/errors";
import {
  HUB_SEQ_HEADER,
  TOO_MANY_STREAMS,
  type HubSeat,
  type HubSessionFrame,
  type HubShardRpc,
  type SessionRpc,
  type StreamFrame,
} from "../objects/contracts";
import { eventId } from "../objects/session-store";
import { refuse, reject } from "./responses";
import { SESSION_REFUSAL_STATUS } from "./status";
import { SseStream } from "./sse";

/**
 * A client whose buffer filled up is disconnected with this `retry:`; it resumes from the durable
 * log with Last-Event-ID, so it loses nothing and the Worker holds at most one buffer for it.
 */
const SLOW_CLIENT_RETRY_MS = 1000;

/** A GET stream's link to its hub shard: the shard's stub and the stream's seat there. */
interface HubLink {
  stub: Pick<HubShardRpc, "missedBy"> & { fetch(url: string, init: RequestInit): Promise<Response> };
  seat: HubSeat;
}

export async function pipeSessionStream(
  stub: DurableObjectStub<SessionRpc>,
  stream: string,
  after: number,
  hub?: HubLink,
): Promise<Response> {
  const upgrade = await stub.fetch(`https://session/stream?stream=${encodeURIComponent(stream)}&after=${after}`, {
    headers: { Upgrade: "websocket" },
  });
  const ws = upgrade.webSocket;
  if (upgrade.status === 429) return refuse(SESSION_REFUSAL_STATUS["too-many-streams"], TOO_MANY_STREAMS);
  if (!ws) return refuse(404, "That stream is no longer available");
  // The session's notifications come from its hub shard, on a socket of their own.
  const notices = hub ? await joinHub(hub) : undefined;
  if (hub && !notices) {
    ws.accept();
    ws.close(1011, "hub unreachable");
    return reject(503, ErrorCode.InternalError, "Service Unavailable: the notification hub could not be reached; open the stream again");
  }
  const sockets = notices ? [ws, notices.ws] : [ws];
  const closeAll = (reason: string) => {
    for (const s of sockets) {
      try {
        s.close(1000, reason);
      } catch {
        // already closed by the other side
      }
    }
  };
  // A dropped client connection is not a cancellation in 2025-11-25: only the pipe goes away.
  const sse = new SseStream(() => closeAll("client disconnected"), SLOW_CLIENT_RETRY_MS);
  // A GET stream's event ids carry both places, the session's log and the hub's, so that a client
  // resuming from any of them gets back what it missed from each.
  let place = eventId(stream, Math.max(after, 0));
  let hubPlace = notices?.at ?? 0;
  const idOf = (e: string) => (notices ? `${e}.${hubPlace}` : e);
  const fromHub = (frame: HubSessionFrame) => {
    hubPlace = frame.h;
    sse.sendJson(frame.d, idOf(place));
  };
  // What the client missed from the hub goes first: the session's pipe may end the stream at once.
  for (const frame of notices?.missed ?? []) fromHub(frame);
  ws.addEventListener("message", (event) => {
    // Frames already on their way after the stream closed (an overflow) have nowhere to go; they are in the log.
    if (!sse.isOpen) return;
    const frame = JSON.parse(String(event.data)) as StreamFrame;
    if ("e" in frame) {
      place = frame.e;
      if (frame.d === "") sse.prime(idOf(frame.e));
      else sse.sendJson(frame.d, idOf(frame.e));
      return;
    }
    if (frame.retry !== undefined) sse.retry(frame.retry);
    sse.close();
    closeAll("stream ended");
  });
  notices?.ws.addEventListener("message", (event) => {
    if (sse.isOpen) fromHub(JSON.parse(String(event.data)) as HubSessionFrame);
  });
  // Either socket gone (the session ended the stream, an object restarted) ends the response: the
  // client resumes with Last-Event-ID, and both logs give back what it missed.
  for (const s of sockets) {
    s.addEventListener("close", () => {
      sse.close();
      closeAll("stream ended");
    });
    s.accept();
  }
  sse.startKeepAlive();
  return sse.response;
}

/**
 * Opens the GET stream's socket to its hub shard, with what a resuming client missed from the
 * shard's log; undefined when the shard could not be reached.
 */
async function joinHub({ stub, seat }: HubLink): Promise<{ ws: WebSocket; at: number; missed: HubSessionFrame[] } | undefined> {
  try {
    const { frames: missed, head } = seat.after >= 0 ? await stub.missedBy(seat, seat.after) : { frames: [], head: -1 };
    const query = new URLSearchParams({ session: seat.session, principal: seat.principal, after: String(head) });
    const res = await stub.fetch(`https://hub/session?${query}`, { headers: { Upgrade: "websocket" } });
    // Resuming, the client's place is where it left off until a frame moves it.
    const at = seat.after >= 0 ? seat.after : Number(res.headers.get(HUB_SEQ_HEADER));
    return res.webSocket && Number.isSafeInteger(at) ? { ws: res.webSocket, at, missed } : undefined;
  } catch {
    return undefined;
  }
}
