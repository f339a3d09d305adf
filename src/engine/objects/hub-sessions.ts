/**
 * The 2025 sessions' side of a hub shard. The Worker that holds a session's
 * GET stream opens a hibernatable WebSocket here beside its pipe to the
 * session object, so a publish costs this shard one row of its session log,
 * shared by all its sessions, and one frame per socket: no call to a session
 * object and no write in one, however many sessions there are.
 *
 * The row is what brings back a client that was away: every event id on a GET
 * stream carries the client's place in this log beside its place in the
 * session's own (session-stream.ts composes them), and the socket it
 * reconnects with replays the rows after that place which are for it.
 */
import { coversUri } from "../mcp/guards";
import { notification } from "../mcp/jsonrpc";
import { EVENT_NOTIFICATION, TASK_NOTIFICATION, type HubNotification, type HubSessionFrame } from "./contracts";

/** The tag of a 2025 GET stream's socket; its attachment is a SessionSocket. */
export const SESSION_SOCKET_TAG = "session";

/** Which session a socket feeds, and whose it is. */
export interface SessionSocket {
  session: string;
  principal: string;
}

export const isSessionSocket = (a: unknown): a is SessionSocket => typeof a === "object" && a !== null && "session" in a;

/**
 * Rows the log keeps at most, and how many expired ones a publish drops at most. A client away
 * longer than its session's idle window comes back to no session; one away for more than this
 * many publishes misses the oldest of them.
 */
const LOG_MAX_ROWS = 10_000;
const TRIM_PER_APPEND = 100;

/** Does this session get `n`? The same rule a session object applied to itself. */
export function sessionWants(n: HubNotification, s: SessionSocket, subscriptions: (session: string) => string[]): boolean {
  if (n.method === TASK_NOTIFICATION || n.method === EVENT_NOTIFICATION) return false;
  if (n.principal !== undefined && n.principal !== s.principal) return false;
  if (n.method !== "notifications/resources/updated") return true;
  const uri = String(n.params?.uri ?? "");
  return subscriptions(s.session).some((sub) => coversUri(sub, uri));
}

/** The frame for one row (sent serialized once, the same text for every socket it goes to). */
export const sessionFrameOf = (seq: number, n: HubNotification): HubSessionFrame => ({
  h: seq,
  d: JSON.stringify(notification(n.method, n.params)),
});

/** The shard's session log: one row per publish any of its 2025 sessions may need. */
export class HubSessionLog {
  private ready = false;

  constructor(
    private readonly storage: () => SqlStorage,
    /** How long a row is kept (the session idle window: no session outlives it unseen). */
    private readonly keepMs: () => number,
  ) {}

  private get sql(): SqlStorage {
    const sql = this.storage();
    if (!this.ready) {
      sql.exec(
        "CREATE TABLE IF NOT EXISTS session_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, notification TEXT NOT NULL)",
      );
      this.ready = true;
    }
    return sql;
  }

  /** The newest row's number (0 for an empty log): where a new stream starts. */
  head(): number {
    return this.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM session_log").one().seq ?? 0;
  }

  /** Stores `n` as the next row and answers its number; the oldest rows past the bounds go. */
  append(n: HubNotification, now: number): number {
    const sql = this.sql;
    const seq = sql
      .exec<{ seq: number }>("INSERT INTO session_log (at, notification) VALUES (?, ?) RETURNING seq", now, JSON.stringify(n))
      .one().seq;
    sql.exec(
      "DELETE FROM session_log WHERE seq IN (SELECT seq FROM session_log ORDER BY seq LIMIT ?) AND (at < ? OR seq <= ?)",
      TRIM_PER_APPEND,
      now - this.keepMs(),
      seq - LOG_MAX_ROWS,
    );
    return seq;
  }

  /** The rows after `seq`, oldest first. */
  *after(seq: number): Generator<{ seq: number; n: HubNotification }> {
    for (const row of this.sql.exec<{ seq: number; notification: string }>(
      "SELECT seq, notification FROM session_log WHERE seq > ? ORDER BY seq",
      seq,
    )) {
      yield { seq: row.seq, n: JSON.parse(row.notification) as HubNotification };
    }
  }
}
