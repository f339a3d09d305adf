/**
 * A 2025 session's state and the parts that keep it: its row (what initialize negotiated, the log
 * level, subscriptions, the id counter), the store (SQLite), the stream log and the alarm. The
 * session object owns one and answers RPC and sockets around it; the rules for what a session is
 * sent (session-messages.ts, session-calls.ts, session-tasks.ts) work on it; the unit tests build one
 * over node:sqlite, without the object.
 */
import type { Config } from "../config";
import { SessionAlarm } from "./session-alarm";
import { SessionStore, type SessionRow } from "./session-store";
import { StreamLog } from "./stream-log";

export class SessionState {
  readonly store: SessionStore;
  readonly log: StreamLog;
  readonly alarm: SessionAlarm;
  /** The session's row; stored only once the session holds state. */
  session!: SessionRow;
  /**
   * Set when the session ends (DELETE, expiry), before anything is awaited: a step that was awaiting
   * something meanwhile (a live seat, the hub) then stores nothing, so what ended stays ended.
   */
  ended = false;

  constructor(
    storage: DurableObjectStorage,
    /** The pipe sockets connected to a stream. */
    sockets: (stream: string) => WebSocket[],
    config: () => Config,
    /** Called once, just before the session first holds state. */
    private readonly holdingState: () => void = () => {},
  ) {
    this.store = new SessionStore(storage.sql, storage, () => this.alarm.follow());
    this.alarm = new SessionAlarm(this.store, storage, () => ({ idleMs: config().sessionIdleMs, replayMs: config().streamReplayMs }));
    this.log = new StreamLog(
      this.store,
      sockets,
      () => ({ maxEvents: config().eventLogMaxEvents, maxBytes: config().eventLogMaxBytes }),
      // A stream closed: the finished logs stay within their byte cap.
      () => this.store.trimClosed(config().closedLogMaxBytes),
    );
  }

  /** Every caller is about to store a stream or a pending request: the session holds state from here. */
  next(): number {
    this.materialize();
    const n = this.session.counter++;
    void this.store.putSession(this.session);
    return n;
  }

  /** Stores the session row (log level, subscriptions, open tasks): the session holds state from here. */
  async save(): Promise<void> {
    this.materialize();
    await this.store.putSession(this.session);
  }

  /**
   * The first time the session holds state: its tables and its row come into being, and with the row
   * its alarm. Synchronous, so the writes are issued before the request that caused them is answered.
   */
  materialize(): void {
    if (this.ended) throw new SessionEnded();
    if (this.store.ready) return;
    this.holdingState();
    this.store.createSchema();
    void this.store.putSession(this.session);
  }
}

/** A step of a session that ended while it ran: the step is refused as an unknown session is. */
export class SessionEnded extends Error {}
