/**
 * What cancels a 2026-07-28 request: the client going away (request.signal) or cancelling the SSE
 * stream it reads. The AbortController, and its listener on request.signal, are made only when a
 * handler first reads ctx.signal: most calls never do, and on a call that takes a few hundred µs of
 * CPU both were a measurable part of it (`npm run bench -- --ab`).
 */
export class Cancellation {
  private controller?: AbortController;
  private cancelled = false;

  constructor(private readonly request: Request) {}

  /** Whether the request is cancelled, read without making a signal. */
  get aborted(): boolean {
    return this.cancelled || this.request.signal?.aborted === true;
  }

  /** The stream was cancelled: the handler's signal (if it asked for one) aborts, nothing more is sent. */
  abort(): void {
    this.cancelled = true;
    this.controller?.abort();
  }

  /** The handler's ctx.signal, made on first read (aborted already if the request is). */
  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.aborted) controller.abort();
    else this.request.signal?.addEventListener("abort", () => controller.abort(), { once: true });
    return controller.signal;
  }
}
