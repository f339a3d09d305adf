/**
 * A request answers with plain JSON unless it emits something before its
 * result (a notification, a server request); at that moment it needs a stream.
 * Both lanes use this one rule: the stream is the SSE response on 2026-07-28
 * and a durable event log in the session on 2025-11-25.
 */
export class LazyStream<S> {
  private done = false;
  private markOpened!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.markOpened = resolve));

  constructor(
    private readonly open: () => S,
    private readonly write: (stream: S, message: object) => void,
    /** After an abort nothing more is written for the request. */
    private readonly signal: AbortSignal,
    /** A stream the request already has (a 2025 call run again once its input arrives). */
    public stream?: S,
  ) {}

  /** The request's stream, opened now if it has none yet. */
  ensure(): S {
    if (this.stream === undefined) {
      this.stream = this.open();
      this.markOpened();
    }
    return this.stream;
  }

  readonly emit = (message: object): void => {
    if (this.done || this.signal.aborted) return;
    this.write(this.ensure(), message);
  };

  /**
   * Waits for the outcome or for the stream, whichever comes first. Returns the outcome when it came
   * before any emit (answer it as JSON), or undefined when it goes on the stream. Emits after the
   * outcome are dropped: a finished request sends nothing more.
   */
  async settle<T>(work: Promise<T>): Promise<T | undefined> {
    const finished = work.finally(() => {
      this.done = true;
    });
    await Promise.race([finished, this.opened]);
    return this.stream === undefined ? finished : undefined;
  }
}
