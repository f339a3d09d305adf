/**
 * A Server-Sent Events response. Writes are synchronous enqueues; the stream
 * reports a client disconnect through `onClose`, which the 2026 lane treats
 * as cancellation.
 */

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  // Proxies (nginx and friends) must not buffer a stream that carries progress.
  "X-Accel-Buffering": "no",
} as const;

const encoder = new TextEncoder();

/** Keep-alive interval: inside the 15–25 s window that survives common idle timeouts. */
export const KEEP_ALIVE_MS = 20_000;

export class SseStream {
  readonly response: Response;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private keepAlive?: ReturnType<typeof setInterval>;

  constructor(
    private readonly onClose: () => void = () => {},
    headers: Record<string, string> = {},
  ) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => this.finish(true),
    });
    this.response = new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** One `message` event carrying a JSON-RPC message. */
  send(message: unknown, id?: string): void {
    this.sendJson(JSON.stringify(message), id);
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

  startKeepAlive(ms = KEEP_ALIVE_MS): void {
    this.keepAlive ??= setInterval(() => this.comment(), ms);
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
    try {
      this.controller.enqueue(encoder.encode(chunk));
    } catch {
      this.finish(true);
    }
  }

  private finish(byClient: boolean): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    if (byClient) this.onClose();
  }
}
