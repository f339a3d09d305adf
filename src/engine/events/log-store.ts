/**
 * An event type's own object's storage (the "type" object, named by the type): the log of
 * occurrences (one row per emit, bounded by count and age), the shards that hold the type's webhook
 * subscriptions, and the verification requests sent per destination host. No subscription lives
 * here, so an emit is the same small write whatever the number of subscribers.
 */
export interface LogRow {
  seq: number;
  event_id: string;
  ts: number;
  match: string;
  occurrence: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, ts INTEGER NOT NULL, match TEXT NOT NULL, occurrence TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_event ON log (event_id);
CREATE TABLE IF NOT EXISTS counter (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS shard (k INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS verify_rate (host TEXT PRIMARY KEY, window INTEGER NOT NULL, count INTEGER NOT NULL);
`;

export class LogStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  private one<T>(query: string, ...bindings: unknown[]): T | undefined {
    return this.sql.exec(query, ...bindings).toArray()[0] as T | undefined;
  }

  /** The next occurrence's position (1, 2, …): its order in the log and in its cursor. */
  nextSeq(): number {
    return this.one<{ v: number }>("INSERT INTO counter (k, v) VALUES ('seq', 1) ON CONFLICT (k) DO UPDATE SET v = v + 1 RETURNING v")!.v;
  }

  head(): number {
    return this.one<{ v: number }>("SELECT v FROM counter WHERE k = 'seq'")?.v ?? 0;
  }

  append(seq: number, eventId: string, ts: number, match: string, occurrence: string, keep: { maxEvents: number; maxAgeMs: number }): void {
    this.sql.exec("INSERT INTO log (seq, event_id, ts, match, occurrence) VALUES (?, ?, ?, ?, ?)", seq, eventId, ts, match, occurrence);
    this.sql.exec("DELETE FROM log WHERE seq <= ? OR ts < ?", seq - keep.maxEvents, ts - keep.maxAgeMs);
  }

  logged(eventId: string): boolean {
    return this.one("SELECT 1 AS x FROM log WHERE event_id = ?", eventId) !== undefined;
  }

  oldest(): number | undefined {
    return this.one<{ s: number | null }>("SELECT MIN(seq) AS s FROM log")?.s ?? undefined;
  }

  /** The newest position logged before `ts` (what a `maxAgeMs` floor leaves out), or 0. */
  lastBefore(ts: number): number {
    return this.one<{ s: number | null }>("SELECT MAX(seq) AS s FROM log WHERE ts < ?", ts)?.s ?? 0;
  }

  after(seq: number, limit: number): LogRow[] {
    return this.sql
      .exec("SELECT seq, event_id, ts, match, occurrence FROM log WHERE seq > ? ORDER BY seq LIMIT ?", seq, limit)
      .toArray() as unknown as LogRow[];
  }

  /** Records that shard `k` holds subscriptions (written once per shard). */
  join(k: number): void {
    this.sql.exec("INSERT INTO shard (k) VALUES (?) ON CONFLICT DO NOTHING", k);
  }

  shards(): number[] {
    return this.sql
      .exec<{ k: number }>("SELECT k FROM shard ORDER BY k")
      .toArray()
      .map((r) => r.k);
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
