/**
 * A Server-Sent Events response. Writes are synchronous enqueues into a
 * bounded buffer; the stream reports a client disconnect, or a client too slow
 * to keep its buffer from filling, through `onClose`, which the 2026 lane
 * treats as cancellation.
 */

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  // Proxies (nginx and friends) must not buffer a stream that carries progress.
  "X-Accel-Buffering": "no",
} as const;

const encoder = new TextEncoder();

/** Keep-alive interval: inside the 15–25 s window that survives common idle timeouts. */
const KEEP_ALIVE_MS = 20_000;

/**
 * Bytes one SSE response may hold for a client that is not reading. The runtime drains the buffer
 * as fast as the connection takes bytes, so a client that keeps up never comes near it; one that
 * stops reading would otherwise make the isolate hold everything the request emits (a tool that
 * logs in a loop, a large progressToken echoed in every progress event). 256 KiB is a few hundred
 * ordinary progress and log events of slack, and 100 stalled streams in one isolate stay at 25 MiB
 * of its 128 MB. A full buffer closes the stream: on 2026-07-28 that cancels the request; on
 * 2025-11-25 the events are in the session's log and the client resumes with Last-Event-ID.
 */
const SSE_BUFFER_BYTES = 256 * 1024;

export class SseStream {
  readonly response: Response;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private keepAlive?: ReturnType<typeof setInterval>;

  constructor(
    private readonly onClose: () => void,
    /** Sent as `retry:` before an overflow closes the stream, for a client that can resume (2025). */
    private readonly overflowRetryMs?: number,
  ) {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => this.finish(true),
      },
      // desiredSize is then the room left in the buffer, in bytes.
      new ByteLengthQueuingStrategy({ highWaterMark: SSE_BUFFER_BYTES }),
    );
    this.response = new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** One `message` event carrying a JSON-RPC message. */
  send(message: unknown): void {
    this.sendJson(JSON.stringify(message));
  }

  /** Same as `send`, for a message already serialized (one line of JSON). */
  sendJson(json: string, id?: string): void {
    this.write(`${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${json}\n\n`);
  }

  /** An event with an id and empty data: gives a 2025 client a Last-Event-ID to resume from. */
  prime(id: string): void {
    this.write(`id: ${id}\ndata: \n\n`);
  }

  /** Tells the client how long to wait before reconnecting (sent before a deliberate close). */
  retry(ms: number): void {
    this.write(`retry: ${ms}\n\n`);
  }

  comment(text = "keep-alive"): void {
    this.write(`: ${text}\n\n`);
  }

  startKeepAlive(): void {
    this.keepAlive ??= setInterval(() => this.comment(), KEEP_ALIVE_MS);
  }

  close(): void {
    if (this.closed) return;
    this.finish(false);
    try {
      this.controller.close();
    } catch {
      // already closed by the client
    }
  }

  private write(chunk: string): void {
    if (this.closed) return;
    const bytes = encoder.encode(chunk);
    const room = this.controller.desiredSize ?? 0;
    // One event larger than the whole buffer still goes to a client that has read everything before it.
    if (bytes.byteLength > room && room < SSE_BUFFER_BYTES) return this.overflow();
    try {
      this.controller.enqueue(bytes);
    } catch {
      this.finish(true);
    }
  }

  /** The client stopped reading and its buffer is full: end the stream instead of holding more. */
  private overflow(): void {
    try {
      if (this.overflowRetryMs !== undefined) this.controller.enqueue(encoder.encode(`retry: ${this.overflowRetryMs}\n\n`));
      this.controller.close();
    } catch {
      // the client is gone already
    }
    this.finish(true);
  }

  private finish(byClient: boolean): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    if (byClient) this.onClose();
  }
}
