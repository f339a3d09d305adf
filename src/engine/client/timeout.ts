/**
 * Request timeouts. A request the server never answers must not hold its
 * caller forever: each request gets a deadline (60 s by default, as the
 * official SDK has), restarted by every sign of life for that request
 * (progress, a log line, a question) and capped overall, as the spec asks of
 * senders. When it passes, the request's signal aborts, which cancels it the
 * way each revision cancels: 2026-07-28 closes the stream, 2025-11-25 sends
 * `notifications/cancelled`.
 */
import { McpClientError } from "./errors";

export const DEFAULT_TIMEOUT_MS = 60_000;
/** However much progress a request makes, it ends after this many times its timeout. */
const CAP_FACTOR = 10;

type Timer = ReturnType<typeof setTimeout>;
const stop = (t: Timer | undefined) => void (t !== undefined && clearTimeout(t));

export class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private idle: Timer | undefined;
  private cap: Timer | undefined;

  /** `ms` of 0 (or not finite) means no deadline: the signal is the caller's alone. */
  constructor(
    private readonly ms: number,
    private readonly what: string,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    if (!(ms > 0 && Number.isFinite(ms))) return;
    this.touch();
    this.cap = setTimeout(() => this.expire(`${what} ran longer than ${ms * CAP_FACTOR} ms`), ms * CAP_FACTOR);
  }

  /** The server showed the request is alive: the idle clock starts again. */
  touch(): void {
    if (!(this.ms > 0 && Number.isFinite(this.ms)) || this.controller.signal.aborted) return;
    stop(this.idle);
    this.idle = setTimeout(() => this.expire(`${this.what} timed out: no answer or progress for ${this.ms} ms`), this.ms);
  }

  /** The app is answering the server (a user may take minutes): the idle clock waits until the next touch. */
  pause(): void {
    stop(this.idle);
  }

  private expire(message: string): void {
    this.done();
    this.controller.abort(new McpClientError(message));
  }

  done(): void {
    stop(this.idle);
    stop(this.cap);
  }
}
