/**
 * A 2025 session's streams. Every stream (one per POST that needed one, and
 * the GET stream) is an event log in storage; the Worker pipes it to the
 * client over a WebSocket, and a Last-Event-ID resume replays it from the log.
 * The log appends, replays and closes; what is running is not its business.
 */
import type { StreamFrame } from "./contracts";
import { eventId, type LogLimits, type SessionStore, type StreamKind } from "./session-store";

/** A stream's event as the pipe sends it. */
export const eventFrame = (stream: string, seq: number, data: string): StreamFrame => ({ e: eventId(stream, seq), d: data });

/** The end of a pipe connection; with `retry`, when the client is to come back (JSON leaves out an undefined one). */
export const endFrame = (retry?: number): StreamFrame => ({ end: true, retry });

/**
 * Sends pipe sockets a frame, and after an end frame closes them (with `reason`). A socket already
 * gone is passed over: what it missed is in the log for a Last-Event-ID resume.
 */
export function sendFrame(sockets: WebSocket[], frame: StreamFrame, reason = "stream ended"): void {
  const text = JSON.stringify(frame);
  for (const ws of sockets) {
    try {
      ws.send(text);
      if ("end" in frame) ws.close(1000, reason);
    } catch {
      // the pipe is gone
    }
  }
}

export class StreamLog {
  /** Streams whose next pipe connection is to be closed at once with this retry delay (polling). */
  private readonly closeNext = new Map<string, number>();

  constructor(
    private readonly store: SessionStore,
    /** The pipe sockets connected to a stream. */
    private readonly sockets: (stream: string) => WebSocket[],
    /** The per-stream caps, read at each append (the session's settings). */
    private readonly limits: () => LogLimits,
    /** Called after a stream closed: its replay window starts, and closed logs are bounded. */
    private readonly onClosed: () => void = () => {},
  ) {}

  /** Opens a stream; its first id (seq 0) is the priming event the pipe sends on connect. */
  open(kind: StreamKind, counter: number, requestId?: string | number): string {
    return this.store.openStream(kind, counter, requestId);
  }

  /** Stores a message as the stream's next event and sends it to a connected client. */
  append(stream: string, message: object): void {
    const data = JSON.stringify(message);
    const seq = this.store.append(stream, data, this.limits());
    sendFrame(this.sockets(stream), eventFrame(stream, seq, data));
  }

  /**
   * Closes the stream for good: its client connections end, and its log stays replayable for a while.
   * With `retryMs` its clients are told to come back (a replaced GET stream: its client opens a new one).
   */
  close(stream: string, retryMs?: number): void {
    this.store.closeStream(stream, Date.now());
    sendFrame(this.sockets(stream), endFrame(retryMs));
    this.onClosed();
  }

  /**
   * Ends the client's connections to a stream without closing the stream. With `retryMs` the client is
   * told when to come back (2025 polling); one not connected yet gets this on its first connection.
   */
  disconnect(stream: string, retryMs?: number): void {
    if (retryMs !== undefined && this.sockets(stream).length === 0) this.closeNext.set(stream, retryMs);
    sendFrame(this.sockets(stream), endFrame(retryMs));
  }

  /** The retry delay a pending `disconnect` left for this stream's next connection, once. */
  takeRetry(stream: string): number | undefined {
    const retry = this.closeNext.get(stream);
    this.closeNext.delete(stream);
    return retry;
  }
}
