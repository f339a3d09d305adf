/**
 * Pipes one stream of a 2025 session to the client as SSE. The Worker holds
 * the client's response; the session object feeds it over a hibernatable
 * WebSocket (message bodies in frames), so the object can sleep while an idle
 * client keeps the stream open.
 */
import { ErrorCode } from "../mcp/errors";
import type { SessionRpc, StreamFrame } from "../objects/contracts";
import { reject } from "./responses";
import { SESSION_REFUSAL_STATUS } from "./status";
import { SseStream } from "./sse";

/**
 * A client whose buffer filled up is disconnected with this `retry:`; it resumes from the durable
 * log with Last-Event-ID, so it loses nothing and the Worker holds at most one buffer for it.
 */
const SLOW_CLIENT_RETRY_MS = 1000;

export async function pipeSessionStream(stub: DurableObjectStub<SessionRpc>, stream: string, after: number, headers: Record<string, string> = {}): Promise<Response> {
  const upgrade = await stub.fetch(`https://session/stream?stream=${encodeURIComponent(stream)}&after=${after}`, { headers: { Upgrade: "websocket" } });
  const ws = upgrade.webSocket;
  if (upgrade.status === 429) return reject(SESSION_REFUSAL_STATUS["too-many-streams"], ErrorCode.InvalidRequest, "Too Many Requests: this session has too many open streams (MAX_STREAMS_PER_SESSION)");
  if (!ws) return reject(404, ErrorCode.InvalidRequest, "That stream is no longer available");
  ws.accept();
  // A dropped client connection is not a cancellation in 2025-11-25: only the pipe goes away.
  const sse = new SseStream(
    () => {
      try {
        ws.close(1000, "client disconnected");
      } catch {
        // already closed by the session
      }
    },
    headers,
    SLOW_CLIENT_RETRY_MS,
  );
  ws.addEventListener("message", (event) => {
    // Frames already on their way after the stream closed (an overflow) have nowhere to go; they are in the log.
    if (!sse.isOpen) return;
    const frame = JSON.parse(String(event.data)) as StreamFrame;
    if ("e" in frame) {
      if (frame.d === "") sse.prime(frame.e);
      else sse.sendJson(frame.d, frame.e);
      return;
    }
    if (frame.retry !== undefined) sse.retry(frame.retry);
    sse.close();
    ws.close(1000, "stream ended");
  });
  ws.addEventListener("close", () => sse.close());
  sse.startKeepAlive();
  return sse.response;
}
