/**
 * A 2025 session's place among its client's live sessions (SESSION_MAX_LIVE): the session side of
 * the count that live-sessions-store.ts keeps in the client's index object. Only sessions that hold
 * state are counted, and only the step that would first make one hold state asks the index.
 */
import type { Config } from "../config";
import type { Env } from "../env";
import { liveSessionsStub, principalClientKey, sessionName } from "./addresses";
import { SessionEnded, type SessionState } from "./session-state";

export class LiveSeat {
  /** SESSION_MAX_LIVE as the last request's Worker read it. */
  maxLive?: number;
  /** The count of a session that started holding state in a running call, until its index took it. */
  private counting?: Promise<unknown>;

  constructor(
    private readonly env: Env,
    private readonly config: () => Config,
    private readonly state: SessionState,
  ) {}

  get cap(): number {
    return this.maxLive ?? this.config().sessionMaxLive;
  }

  /** Whose live sessions it counts among: the principal's, or the anonymous client's address's. */
  private key(): string | undefined {
    const s = this.state.session;
    return s.principal ? principalClientKey(s.principal) : s.clientKey;
  }

  /** The index row stops counting when the session can live no longer, should its end go unheard. */
  private take(key: string, force: boolean): Promise<boolean> {
    const s = this.state.session;
    return liveSessionsStub(this.env, key).admitLive(sessionName(s.id), this.cap, s.createdAt + this.config().sessionMaxMs, force);
  }

  /**
   * Before the first state a client asks for (a GET stream, a log level, a subscription): counts the
   * session with the client's others, false when it holds SESSION_MAX_LIVE already. Refusing the new
   * step, not ending an older session, keeps every session a client is using alive; the refused one
   * goes on serving plain calls. Only this first step pays the index's round trip.
   */
  async admit(): Promise<boolean> {
    if (this.counted()) return true;
    const s = this.state.session;
    const key = this.key()!;
    if (!(await this.take(key, false))) return false;
    s.liveKey = key;
    // Ended while the index counted it: the end's release came too early, so the place is freed here.
    if (this.state.ended) {
      await this.release();
      throw new SessionEnded();
    }
    return true;
  }

  /** Whether the session may hold state without asking its client's index: it is counted, or counts for nobody. */
  counted(): boolean {
    return this.state.store.ready || this.state.session.liveKey !== undefined || this.key() === undefined;
  }

  /**
   * The session is about to hold state without having been admitted. Every step that makes a session
   * hold state admits it first (a call's first stream waits for its seat: session-calls.ts), so this
   * is a safety net: a step that forgot is counted rather than left out of the count.
   */
  force(): void {
    const s = this.state.session;
    const key = s.liveKey === undefined ? this.key() : undefined;
    if (key === undefined) return;
    s.liveKey = key;
    this.counting = this.take(key, true).catch((err) => console.error("session: could not count this session with its client's", err));
  }

  /** The session ended: its place is free. */
  async release(): Promise<void> {
    const s = this.state.session;
    if (s.liveKey === undefined) return;
    await this.counting;
    await liveSessionsStub(this.env, s.liveKey)
      .releaseLive(sessionName(s.id))
      .catch((err) => console.error("session: could not tell its client's index it ended", err));
  }
}
