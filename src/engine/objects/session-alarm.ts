/**
 * A 2025 session's one alarm, and the one rule for when it fires: at the earliest of the session's
 * idle expiry, a pending server request's deadline and the end of a finished stream's replay window.
 * The store tells it whenever it writes one of those times, so no code that changes the session has
 * to remember to re-arm; the alarm handler re-arms it from what is left once it has run.
 */

/** What the rule reads: the store's deadlines, in milliseconds since the epoch. */
export interface AlarmSource {
  /** False while the session holds no state: nothing is stored, and no alarm is needed. */
  readonly ready: boolean;
  lastSeenAt(): number | undefined;
  earliestDeadline(): number | undefined;
  earliestClosedAt(): number | undefined;
}

interface AlarmWindows {
  idleMs: number;
  replayMs: number;
}

export class SessionAlarm {
  /** The time this instance last set; a fresh instance sets its first one without asking. */
  private armedAt?: number;
  private queued = false;

  constructor(
    private readonly source: AlarmSource,
    private readonly storage: Pick<DurableObjectStorage, "setAlarm">,
    private readonly windows: () => AlarmWindows,
  ) {}

  /** When the alarm must fire next; Infinity when nothing is due (the session holds no state). */
  due(): number {
    const s = this.source;
    if (!s.ready) return Infinity;
    const { idleMs, replayMs } = this.windows();
    return Math.min((s.lastSeenAt() ?? Infinity) + idleMs, s.earliestDeadline() ?? Infinity, (s.earliestClosedAt() ?? Infinity) + replayMs);
  }

  /**
   * A deadline was written. The alarm is set once, after the current turn, however many changes the
   * turn made; that is still before the request that made them is answered, so its write is in the
   * same output gate.
   */
  follow(): void {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.arm();
    });
  }

  /** The alarm fired, so none is set: it is set again from what the handler leaves behind. */
  fired(): void {
    this.armedAt = undefined;
    this.follow();
  }

  private arm(): void {
    const at = this.due();
    if (at === Infinity || at === this.armedAt) return;
    this.armedAt = at;
    this.storage.setAlarm(at).catch((err) => console.error("session: could not set the alarm", err));
  }
}
