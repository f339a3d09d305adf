/**
 * An event type's durable state, in its Durable Object's SQLite: the webhook subscriptions (key, secret,
 * scopes, expiry, delivery status), the replay log (bounded by count and age), the pending deliveries
 * (one row per occurrence and subscription until it is acknowledged or given up), and the callbacks
 * verified per principal. Nothing lives only in memory, so a restart between an emit and its delivery
 * loses nothing, and a row acknowledged is deleted in the same turn, so it is never sent again.
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
  last_delivery_at: number | null;
  last_error: string | null;
  failed_since: number | null;
}

export interface DeliveryRow {
  sub_id: string;
  seq: number;
  event_id: string;
  occurrence: string;
  attempts: number;
  next_at: number;
}

interface LogRow {
  seq: number;
  ts: number;
  match: string;
  occurrence: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sub (id TEXT PRIMARY KEY, principal TEXT NOT NULL, url TEXT NOT NULL, args TEXT NOT NULL, secret TEXT NOT NULL,
  prev_secret TEXT, prev_until INTEGER, scopes TEXT NOT NULL, expires_at INTEGER NOT NULL, last_delivery_at INTEGER, last_error TEXT, failed_since INTEGER);
CREATE INDEX IF NOT EXISTS sub_principal ON sub (principal);
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, ts INTEGER NOT NULL, match TEXT NOT NULL, occurrence TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_event ON log (event_id);
CREATE TABLE IF NOT EXISTS delivery (sub_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL, occurrence TEXT NOT NULL,
  attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, PRIMARY KEY (sub_id, event_id));
CREATE INDEX IF NOT EXISTS delivery_due ON delivery (next_at);
CREATE TABLE IF NOT EXISTS verified (principal TEXT NOT NULL, url TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (principal, url));
CREATE TABLE IF NOT EXISTS verify_rate (host TEXT PRIMARY KEY, window INTEGER NOT NULL, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counter (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
`;

export class EventStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  private one<T>(query: string, ...bindings: unknown[]): T | undefined {
    return this.sql.exec(query, ...bindings).toArray()[0] as T | undefined;
  }

  /** The next occurrence's position (1, 2, …): its order in the log and in its cursor. */
  nextSeq(): number {
    const row = this.one<{ v: number }>("INSERT INTO counter (k, v) VALUES ('seq', 1) ON CONFLICT (k) DO UPDATE SET v = v + 1 RETURNING v");
    return row!.v;
  }

  head(): number {
    return this.one<{ v: number }>("SELECT v FROM counter WHERE k = 'seq'")?.v ?? 0;
  }

  sub(id: string): SubRow | undefined {
    return this.one<SubRow>("SELECT * FROM sub WHERE id = ?", id);
  }

  liveSubs(now: number): SubRow[] {
    return this.sql.exec("SELECT * FROM sub WHERE expires_at > ?", now).toArray() as unknown as SubRow[];
  }

  liveCount(principal: string, now: number): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM sub WHERE principal = ? AND expires_at > ?", principal, now)!.n;
  }

  putSub(s: SubRow): void {
    this.sql.exec(
      `INSERT INTO sub (id, principal, url, args, secret, prev_secret, prev_until, scopes, expires_at, last_delivery_at, last_error, failed_since)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, prev_secret = excluded.prev_secret,
       prev_until = excluded.prev_until, scopes = excluded.scopes, expires_at = excluded.expires_at, last_error = excluded.last_error, failed_since = excluded.failed_since`,
      s.id,
      s.principal,
      s.url,
      s.args,
      s.secret,
      s.prev_secret,
      s.prev_until,
      s.scopes,
      s.expires_at,
      s.last_delivery_at,
      s.last_error,
      s.failed_since,
    );
  }

  dropSub(id: string): boolean {
    const found = this.sub(id) !== undefined;
    this.sql.exec("DELETE FROM sub WHERE id = ?", id);
    this.sql.exec("DELETE FROM delivery WHERE sub_id = ?", id);
    return found;
  }

  /** Subscriptions whose grant has passed, and what they still had pending: delivery stops when the TTL passes. */
  sweep(now: number): void {
    this.sql.exec("DELETE FROM delivery WHERE sub_id IN (SELECT id FROM sub WHERE expires_at <= ?)", now);
    this.sql.exec("DELETE FROM sub WHERE expires_at <= ?", now);
    this.sql.exec("DELETE FROM verified WHERE until <= ?", now);
  }

  delivered(subId: string, now: number): void {
    this.sql.exec("UPDATE sub SET last_delivery_at = ?, last_error = NULL, failed_since = NULL WHERE id = ?", now, subId);
  }

  failed(subId: string, reason: string, now: number): void {
    this.sql.exec("UPDATE sub SET last_error = ?, failed_since = COALESCE(failed_since, ?) WHERE id = ?", reason, now, subId);
  }

  // The replay log.
  append(seq: number, eventId: string, ts: number, match: string, occurrence: string, keep: { maxEvents: number; maxAgeMs: number }): void {
    this.sql.exec("INSERT INTO log (seq, event_id, ts, match, occurrence) VALUES (?, ?, ?, ?, ?)", seq, eventId, ts, match, occurrence);
    this.sql.exec("DELETE FROM log WHERE seq <= ? OR ts < ?", seq - keep.maxEvents, Date.now() - keep.maxAgeMs);
  }

  logged(eventId: string): boolean {
    return this.one("SELECT 1 AS x FROM log WHERE event_id = ?", eventId) !== undefined;
  }

  oldestLogged(): number | undefined {
    return this.one<{ s: number | null }>("SELECT MIN(seq) AS s FROM log")?.s ?? undefined;
  }

  logAfter(seq: number, limit: number): LogRow[] {
    return this.sql
      .exec("SELECT seq, ts, match, occurrence FROM log WHERE seq > ? ORDER BY seq LIMIT ?", seq, limit)
      .toArray() as unknown as LogRow[];
  }

  // Pending deliveries.
  pendingCount(subId: string): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM delivery WHERE sub_id = ?", subId)!.n;
  }

  enqueue(subId: string, seq: number, eventId: string, occurrence: string, at: number): void {
    this.sql.exec(
      "INSERT INTO delivery (sub_id, seq, event_id, occurrence, attempts, next_at) VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING",
      subId,
      seq,
      eventId,
      occurrence,
      at,
    );
  }

  due(now: number, limit: number): DeliveryRow[] {
    return this.sql
      .exec("SELECT * FROM delivery WHERE next_at <= ? ORDER BY next_at, seq LIMIT ?", now, limit)
      .toArray() as unknown as DeliveryRow[];
  }

  nextDue(): number | undefined {
    return this.one<{ t: number | null }>("SELECT MIN(next_at) AS t FROM delivery")?.t ?? undefined;
  }

  /** The lowest position still pending for a subscription: its webhook cursor stays below it. */
  lowestPending(subId: string): number | undefined {
    return this.one<{ s: number | null }>("SELECT MIN(seq) AS s FROM delivery WHERE sub_id = ?", subId)?.s ?? undefined;
  }

  done(subId: string, eventId: string): void {
    this.sql.exec("DELETE FROM delivery WHERE sub_id = ? AND event_id = ?", subId, eventId);
  }

  retryAt(subId: string, eventId: string, attempts: number, at: number): void {
    this.sql.exec("UPDATE delivery SET attempts = ?, next_at = ? WHERE sub_id = ? AND event_id = ?", attempts, at, subId, eventId);
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

  /** Counts a verification POST to `host` in the current minute; false once `max` were sent. */
  takeVerification(host: string, now: number, max: number): boolean {
    const window = Math.floor(now / 60_000);
    const row = this.one<{ window: number; count: number }>("SELECT window, count FROM verify_rate WHERE host = ?", host);
    const count = row && row.window === window ? row.count : 0;
    if (count >= max) return false;
    this.sql.exec(
      "INSERT INTO verify_rate (host, window, count) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET window = excluded.window, count = excluded.count",
      host,
      window,
      count + 1,
    );
    return true;
  }
}
