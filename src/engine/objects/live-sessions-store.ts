/**
 * One client's live sessions, in the SQLite storage of the session class's
 * object named by the client's key (its principal, or its address when
 * anonymous): one row per session that holds state, until it ends. The rows
 * are what SESSION_MAX_LIVE counts. A session that never holds state is never
 * written here, and the index deletes itself when its last session ends.
 */
export class LiveSessionsStore {
  constructor(private readonly storage: SqlStorage) {}

  /**
   * The table, made by the first call that needs it: a release that finds no index makes an empty
   * one, which the object deletes with the rest of its storage.
   */
  private get sql(): SqlStorage {
    this.storage.exec("CREATE TABLE IF NOT EXISTS live (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
    return this.storage;
  }

  /**
   * Counts a session that starts holding state, unless the client already holds `cap` others; `force`
   * counts it anyway (a call that is already running cannot be refused without losing it). A row
   * whose session outlived its longest life (its end was never heard of) no longer counts.
   */
  admit(sessionId: string, cap: number, expiresAt: number, force: boolean, now: number): boolean {
    const sql = this.sql;
    sql.exec("DELETE FROM live WHERE expires_at <= ?", now);
    const held = sql.exec<{ n: number; mine: number }>("SELECT count(*) AS n, coalesce(sum(id = ?), 0) AS mine FROM live", sessionId).one();
    if (held.mine > 0) return true;
    if (!force && held.n >= cap) return false;
    sql.exec("INSERT INTO live (id, expires_at) VALUES (?, ?)", sessionId, expiresAt);
    return true;
  }

  /** A session ended; true when it was the last one, so the index can delete itself. */
  release(sessionId: string): boolean {
    const sql = this.sql;
    sql.exec("DELETE FROM live WHERE id = ?", sessionId);
    return sql.exec<{ n: number }>("SELECT count(*) AS n FROM live").one().n === 0;
  }
}
