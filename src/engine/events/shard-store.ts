/**
 * A shard's storage: its share of a type's webhook subscriptions, one row each, carrying the
 * subscription's key, secret, scopes and expiry and its place in the type's log (`cursor`), and the
 * callbacks verified per principal. Delivering an occurrence updates the one row of its subscription
 * (cursor, attempts, status), so a delivery writes one row; nothing is queued per occurrence.
 *
 * A subscription's place is `cursor`, or the shard's `floor` when that is further on (and the row is
 * not `pinned`): the floor is a position every subscription has dealt with, moved on once a pass, so
 * a subscription that an occurrence does not match costs no write for it.
 */
export interface SubRow {
  id: string;
  principal: string;
  url: string;
  args: string;
  secret: string;
  prev_secret: string | null;
  prev_until: number | null;
  scopes: string;
  expires_at: number;
  cursor: number;
  pinned: number;
  attempts: number;
  next_at: number;
  last_delivery_at: number | null;
  last_error: string | null;
  failed_since: number | null;
}

/** A subscription as it is kept, less its place (set by `place`). */
type NewSub = Omit<SubRow, "cursor" | "pinned" | "attempts" | "next_at">;

/** A subscription's place in SQL, as `ShardStore.position` reads it, with the floor bound as ?1. */
const PLACE = "CASE WHEN pinned = 1 THEN cursor ELSE MAX(cursor, ?1) END";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sub (id TEXT PRIMARY KEY, principal TEXT NOT NULL, url TEXT NOT NULL, args TEXT NOT NULL, secret TEXT NOT NULL,
  prev_secret TEXT, prev_until INTEGER, scopes TEXT NOT NULL, expires_at INTEGER NOT NULL, cursor INTEGER NOT NULL, pinned INTEGER NOT NULL,
  attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, last_delivery_at INTEGER, last_error TEXT, failed_since INTEGER);
CREATE INDEX IF NOT EXISTS sub_principal ON sub (principal);
CREATE TABLE IF NOT EXISTS verified (principal TEXT NOT NULL, url TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (principal, url));
CREATE TABLE IF NOT EXISTS state (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
`;

export class ShardStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  private one<T>(query: string, ...bindings: unknown[]): T | undefined {
    return this.sql.exec(query, ...bindings).toArray()[0] as T | undefined;
  }

  sub(id: string): SubRow | undefined {
    return this.one<SubRow>("SELECT * FROM sub WHERE id = ?", id);
  }

  live(now: number): SubRow[] {
    return this.sql.exec("SELECT * FROM sub WHERE expires_at > ?", now).toArray() as unknown as SubRow[];
  }

  /** The earliest place of a subscription that is due (not waiting for a retry): a pass reads the log from there. */
  dueFrom(now: number, floor: number): number | undefined {
    return (
      this.one<{ p: number | null }>(`SELECT MIN(${PLACE}) AS p FROM sub WHERE next_at <= ?2 AND expires_at > ?2`, floor, now)?.p ??
      undefined
    );
  }

  /**
   * Up to `limit` due subscriptions with something before `hi` to deal with, in id order after
   * `afterId`: a pass loads its work a batch at a time, never the shard's caught-up or waiting ones.
   */
  due(now: number, floor: number, hi: number, afterId: string, limit: number): SubRow[] {
    return this.sql
      .exec(
        `SELECT * FROM sub WHERE id > ?4 AND next_at <= ?2 AND expires_at > ?2 AND ${PLACE} < ?3 ORDER BY id LIMIT ?5`,
        floor,
        now,
        hi,
        afterId,
        limit,
      )
      .toArray() as unknown as SubRow[];
  }

  /**
   * The least cursor of the subscriptions that read the floor and that a pass did not load (after
   * `lastId` when it stopped early, or put after `lastRowid` while it ran): the new floor is at most
   * this, or the old one. (One waiting for a retry is pinned; `since` counts any not yet.)
   */
  leastUnloaded(now: number, floor: number, lastId: string | null, since: number, lastRowid: number): number | undefined {
    return (
      this.one<{ p: number | null }>(
        `SELECT MIN(cursor) AS p FROM sub WHERE pinned = 0 AND expires_at > ?2 AND ((?3 IS NOT NULL AND id > ?3) OR next_at > ?4 OR rowid > ?5)`,
        floor,
        now,
        lastId,
        since,
        lastRowid,
      )?.p ?? undefined
    );
  }

  /** The newest subscription's rowid: one put after this reads as newer (a refresh keeps its rowid). */
  lastRowid(): number {
    return this.one<{ r: number | null }>("SELECT MAX(rowid) AS r FROM sub")?.r ?? 0;
  }

  /** Whether a live subscription's place is the floor rather than its own cursor, below `floor`: then the floor must be stored. */
  readsFloor(floor: number, now: number): boolean {
    return this.one("SELECT 1 AS x FROM sub WHERE pinned = 0 AND cursor < ? AND expires_at > ? LIMIT 1", floor, now) !== undefined;
  }

  hasLive(now: number): boolean {
    return this.one("SELECT 1 AS x FROM sub WHERE expires_at > ? LIMIT 1", now) !== undefined;
  }

  liveCount(principal: string, now: number): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM sub WHERE principal = ? AND expires_at > ?", principal, now)!.n;
  }

  /**
   * Stores a new subscription at `cursor`, or refreshes one (its place stays). Behind the floor (a
   * replay) it is pinned to its own cursor; at or past it, the two readings agree.
   */
  put(s: NewSub, cursor: number): void {
    const pinned = cursor < this.floor() ? 1 : 0;
    this.sql.exec(
      `INSERT INTO sub (id, principal, url, args, secret, prev_secret, prev_until, scopes, expires_at, cursor, pinned, attempts, next_at,
         last_delivery_at, last_error, failed_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, prev_secret = excluded.prev_secret, prev_until = excluded.prev_until,
         scopes = excluded.scopes, expires_at = excluded.expires_at, last_error = excluded.last_error, failed_since = excluded.failed_since`,
      s.id,
      s.principal,
      s.url,
      s.args,
      s.secret,
      s.prev_secret,
      s.prev_until,
      s.scopes,
      s.expires_at,
      cursor,
      pinned,
      s.last_delivery_at,
      s.last_error,
      s.failed_since,
    );
  }

  drop(id: string): boolean {
    const cursor = this.sql.exec("DELETE FROM sub WHERE id = ?", id);
    cursor.toArray();
    return cursor.rowsWritten > 0;
  }

  /**
   * Subscriptions whose grant has passed: delivery stops when the TTL passes. Every pass sweeps, and
   * mostly nothing has expired: a DELETE that finds nothing still opens a write transaction, so each
   * is run only when a read finds a row to delete.
   */
  sweep(now: number): void {
    if (this.one("SELECT 1 AS x FROM sub WHERE expires_at <= ? LIMIT 1", now)) this.sql.exec("DELETE FROM sub WHERE expires_at <= ?", now);
    if (this.one("SELECT 1 AS x FROM verified WHERE until <= ? LIMIT 1", now)) this.sql.exec("DELETE FROM verified WHERE until <= ?", now);
  }

  floor(): number {
    return this.one<{ v: number }>("SELECT v FROM state WHERE k = 'floor'")?.v ?? 0;
  }

  setFloor(v: number): void {
    this.sql.exec("INSERT INTO state (k, v) VALUES ('floor', ?) ON CONFLICT DO UPDATE SET v = excluded.v", v);
  }

  /** The subscription's place, as `pinned` says how to read it: its own cursor, or the floor when that is further. */
  static position(s: Pick<SubRow, "cursor" | "pinned">, floor: number): number {
    return s.pinned ? s.cursor : Math.max(s.cursor, floor);
  }

  /**
   * One row written: the subscription is at `cursor` now (an occurrence acknowledged or given up, or
   * nothing for it up to there), with the attempts of the next one and its status.
   */
  moveTo(id: string, cursor: number, floor: number, status: { delivered?: number; error?: string; now: number }): void {
    this.sql.exec(
      `UPDATE sub SET cursor = ?, pinned = ?, attempts = 0, next_at = 0,
         last_delivery_at = COALESCE(?, last_delivery_at), last_error = ?, failed_since = CASE WHEN ? IS NULL THEN NULL ELSE COALESCE(failed_since, ?) END
       WHERE id = ?`,
      cursor,
      cursor < floor ? 1 : 0,
      status.delivered ?? null,
      status.error ?? null,
      status.error ?? null,
      status.now,
      id,
    );
  }

  /** A pinned subscription with nothing for it up to `cursor` (at or past the floor): it reads the floor from now on. */
  moveOn(id: string, cursor: number): void {
    this.sql.exec("UPDATE sub SET cursor = MAX(cursor, ?), pinned = 0 WHERE id = ? AND pinned = 1", cursor, id);
  }

  /**
   * One row written: the occurrence after `place` failed; the next attempt is at `at`. Until then the
   * subscription is pinned at `place` (its own cursor), so the floor moves on for the others.
   */
  retryAt(id: string, place: number, attempts: number, at: number, error: string, now: number): void {
    this.sql.exec(
      "UPDATE sub SET cursor = ?, pinned = 1, attempts = ?, next_at = ?, last_error = ?, failed_since = COALESCE(failed_since, ?) WHERE id = ?",
      place,
      attempts,
      at,
      error,
      now,
      id,
    );
  }

  /** The earliest retry still waiting, if any. */
  nextRetry(now: number): number | undefined {
    return (
      this.one<{ t: number | null }>("SELECT MIN(next_at) AS t FROM sub WHERE next_at > ? AND expires_at > ?", now, now)?.t ?? undefined
    );
  }

  // Callback verification.
  isVerified(principal: string, url: string, now: number): boolean {
    return this.one("SELECT 1 AS x FROM verified WHERE principal = ? AND url = ? AND until > ?", principal, url, now) !== undefined;
  }

  verify(principal: string, url: string, until: number): void {
    this.sql.exec(
      "INSERT INTO verified (principal, url, until) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET until = excluded.until",
      principal,
      url,
      until,
    );
  }
}
