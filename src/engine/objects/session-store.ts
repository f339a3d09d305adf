/**
 * The session object's durable state, in its SQLite storage:
 * - the session row (negotiated version, client capabilities and info, log
 *   level, subscriptions, principal, timestamps);
 * - the SSE event log, per stream, with ids "<stream>-<seq>" that encode the
 *   stream, capped in count and UTF-8 bytes per stream, and in bytes over all
 *   finished streams of the session;
 * - the calls waiting for client input, and the server-to-client requests
 *   still pending, with their deadlines.
 * Nothing here lives only in memory, so eviction loses nothing. None of it
 * exists until the session first holds state: until then the sealed session id
 * carries what initialize negotiated, and the object has no storage at all.
 */
import type { ClientCapabilities, Implementation, LogLevel } from "../mcp/types";
import type { AlarmSource } from "./session-alarm";

export interface SessionRow {
  id: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  principal: string;
  logLevel?: LogLevel;
  subscriptions: string[];
  createdAt: number;
  lastSeenAt: number;
  /** Next value for stream and server-request ids. */
  counter: number;
  /** The hub shard this session registers with (absent: shard 0, the one hub of earlier versions). */
  hubShard?: number;
  /** Whether the hub knows this session: set by its first GET stream or subscription. */
  registered?: boolean;
  /** Anonymous: the client's key (its address); its tasks spend that key's budget, across its sessions. */
  clientKey?: string;
  /** The client key whose live-session index counts this session (SESSION_MAX_LIVE); absent: not counted. */
  liveKey?: string;
  /** Anonymous: this session's tasks not yet finished, stopped when the session ends (nobody else can reach them). */
  openTasks?: string[];
}

interface StoredEvent {
  seq: number;
  data: string;
}

interface CallRow {
  stream: string;
  /** The client's original JSON-RPC request, run again when answers arrive. */
  request: string;
  answers: Record<string, unknown>;
  state: unknown;
}

interface PendingRow {
  rpcId: string;
  stream: string;
  key: string;
  method: string;
  deadline: number;
}

/** A POST stream carries one request's messages and answer; the GET stream carries session-level messages. */
export type StreamKind = "post" | "get";

export interface LogLimits {
  maxEvents: number;
  maxBytes: number;
}

export const eventId = (stream: string, seq: number) => `${stream}-${seq}`;

/**
 * Splits a Last-Event-ID back into its stream and position; null when it is not one of ours. A GET
 * stream's ids also carry, after a dot, the client's place in its hub shard's session log.
 */
export function parseEventId(id: string): { stream: string; seq: number; hub?: number } | null {
  const m = /^([a-z][0-9a-z]{0,15})-(\d{1,12})(?:\.(\d{1,15}))?$/.exec(id);
  if (!m) return null;
  return { stream: m[1]!, seq: Number(m[2]), hub: m[3] === undefined ? undefined : Number(m[3]) };
}

/** A stream with a stored call is still in use whatever its state, so it is never dropped. */
const NO_CALL = "id NOT IN (SELECT stream FROM calls)";

/**
 * A stored text's size: its UTF-8 bytes, what SQLite stores for it. A string's `length` counts
 * UTF-16 units and would let text outside ASCII take up to three times the cap.
 */
const BYTES = (text: string) => `length(CAST(${text} AS BLOB))`;

type Row = Record<string, SqlStorageValue>;

/** What a session object finds in its storage: its row once it held state, the mark of an ended one. */
interface Stored {
  row?: SessionRow;
  /** Until when an ended session's id must still be refused (its sealed id's own end). */
  endedUntil?: number;
}

export class SessionStore implements AlarmSource {
  /**
   * Whether the tables exist. A session that holds no state has none, and the reads a stateless
   * request makes (a pending answer, a waiting call, the GET stream) find nothing without writing.
   */
  ready = false;
  /** The stored row's last-seen time: the idle expiry counts from it. */
  private seenAt?: number;

  constructor(
    private readonly sql: SqlStorage,
    private readonly kv: DurableObjectStorage,
    /** Told whenever a time the alarm is set from is written (the session's SessionAlarm follows it). */
    private readonly deadlineWritten: () => void = () => {},
  ) {}

  /** The rows a statement returns. */
  private rows<T extends Row>(query: string, ...bindings: unknown[]): T[] {
    return this.sql.exec<T>(query, ...bindings).toArray();
  }

  /** Whether a statement returns any row. */
  private any(query: string, ...bindings: unknown[]): boolean {
    return this.rows(query, ...bindings).length > 0;
  }

  /** Creates the tables, the first time the session holds state: nothing is written before that. */
  createSchema(): void {
    this.ready = true;
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS streams (id TEXT PRIMARY KEY, kind TEXT NOT NULL, next_seq INTEGER NOT NULL, " +
        "closed_at INTEGER, bytes INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0, request_id TEXT);" +
        "CREATE TABLE IF NOT EXISTS events (stream TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (stream, seq)) WITHOUT ROWID;" +
        "CREATE TABLE IF NOT EXISTS calls (stream TEXT PRIMARY KEY, request TEXT NOT NULL, answers TEXT NOT NULL, state TEXT);" +
        "CREATE TABLE IF NOT EXISTS pending (rpc_id TEXT PRIMARY KEY, stream TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, deadline INTEGER NOT NULL)",
    );
  }

  // ── session row ──────────────────────────────────────────────────────────
  async load(): Promise<Stored> {
    const found = await this.kv.get<SessionRow | number>(["session", "endedUntil"]);
    const row = found.get("session") as SessionRow | undefined;
    if (row) {
      this.ready = true;
      this.seenAt = row.lastSeenAt;
    }
    return { row, endedUntil: found.get("endedUntil") as number | undefined };
  }
  async putSession(row: SessionRow): Promise<void> {
    const moved = row.lastSeenAt !== this.seenAt;
    this.seenAt = row.lastSeenAt;
    if (moved) this.deadlineWritten();
    await this.kv.put("session", row);
  }
  lastSeenAt(): number | undefined {
    return this.seenAt;
  }
  /** Removes everything: an ended or expired session leaves no storage behind. */
  async destroy(): Promise<void> {
    this.ready = false;
    this.seenAt = undefined;
    await this.kv.deleteAlarm();
    await this.kv.deleteAll();
  }

  /**
   * Marks an ended session whose sealed id still opens: one small key, and an alarm that deletes it
   * when the id itself expires. Until then its requests are 404.
   */
  async markEnded(until: number): Promise<void> {
    await this.kv.put("endedUntil", until);
    await this.kv.setAlarm(until);
  }

  // ── streams and the event log ────────────────────────────────────────────
  /** Opens a stream; its first id (seq 0) is the priming event. A POST stream remembers its request id. */
  openStream(kind: StreamKind, counter: number, requestId?: string | number): string {
    const id = `${kind === "post" ? "p" : "g"}${counter.toString(36)}`;
    this.sql.exec(
      "INSERT INTO streams (id, kind, next_seq, request_id) VALUES (?, ?, 1, ?)",
      id,
      kind,
      requestId === undefined ? null : JSON.stringify(requestId),
    );
    return id;
  }

  /** POST streams still open with no stored call: their request was running when the object went away. */
  orphanedStreams(): { stream: string; requestId: string | number }[] {
    return this.rows<{ id: string; request_id: string }>(
      `SELECT id, request_id FROM streams WHERE kind = 'post' AND closed_at IS NULL AND ${NO_CALL}`,
    ).map((r) => ({ stream: r.id, requestId: JSON.parse(r.request_id) as string | number }));
  }

  /** Open GET streams other than this one (replaced by a newer GET). */
  otherGetStreams(except: string): string[] {
    return this.rows<{ id: string }>("SELECT id FROM streams WHERE kind = 'get' AND id != ? AND closed_at IS NULL", except).map(
      (r) => r.id,
    );
  }

  /** A stream's kind; undefined when there is no such stream. */
  kindOf(id: string): StreamKind | undefined {
    return this.rows<{ kind: StreamKind }>("SELECT kind FROM streams WHERE id = ?", id)[0]?.kind;
  }

  /** When a stream was closed: null while it is open, undefined when there is no such stream. */
  private closedAt(id: string): number | null | undefined {
    return this.rows<{ closed_at: number | null }>("SELECT closed_at FROM streams WHERE id = ?", id)[0]?.closed_at;
  }

  /** Whether a Last-Event-ID may still resume this stream: it exists and, if closed, its window is not over. */
  isReplayable(id: string, closedAfter: number): boolean {
    if (!this.ready) return false;
    const closedAt = this.closedAt(id);
    return closedAt === null || (closedAt !== undefined && closedAt > closedAfter);
  }

  isClosed(id: string): boolean {
    return this.closedAt(id) !== null;
  }

  /** Appends one message to a stream's log and returns its seq; trims the oldest events past the caps. */
  append(stream: string, data: string, limits: LogLimits): number {
    const row = this.rows<{ next_seq: number; events: number; bytes: number }>(
      `UPDATE streams SET next_seq = next_seq + 1, events = events + 1, bytes = bytes + ${BYTES("?")} WHERE id = ? RETURNING next_seq, events, bytes`,
      data,
      stream,
    )[0];
    if (!row) throw new Error(`unknown stream ${stream}`);
    const seq = row.next_seq - 1;
    this.sql.exec("INSERT INTO events (stream, seq, data) VALUES (?, ?, ?)", stream, seq, data);
    this.trim(stream, row, limits);
    return seq;
  }

  /** Drops a stream's oldest events while its log (`held`: its events and bytes now) is past a cap. */
  private trim(stream: string, held: { events: number; bytes: number }, limits: LogLimits): void {
    let { events, bytes } = held;
    const withinCaps = () => events <= limits.maxEvents && bytes <= limits.maxBytes;
    if (withinCaps()) return;
    const oldest = this.sql.exec<{ seq: number; n: number }>(
      `SELECT seq, ${BYTES("data")} AS n FROM events WHERE stream = ? ORDER BY seq`,
      stream,
    );
    let upTo = -1;
    for (const e of oldest) {
      if (withinCaps()) break;
      events--;
      bytes -= e.n;
      upTo = e.seq;
    }
    this.sql.exec("DELETE FROM events WHERE stream = ? AND seq <= ?", stream, upTo);
    this.sql.exec("UPDATE streams SET events = ?, bytes = ? WHERE id = ?", events, bytes, stream);
  }

  /** The events after `seq`, in order: the cost is proportional to what was missed (an index range scan). */
  eventsAfter(stream: string, seq: number): StoredEvent[] {
    return this.rows<{ seq: number; data: string }>("SELECT seq, data FROM events WHERE stream = ? AND seq > ? ORDER BY seq", stream, seq);
  }

  closeStream(stream: string, now: number): void {
    this.sql.exec("UPDATE streams SET closed_at = ? WHERE id = ? AND closed_at IS NULL", now, stream);
    this.deadlineWritten();
  }

  /** The newest GET stream, which carries session-level messages. */
  latestGetStream(): string | undefined {
    if (!this.ready) return undefined;
    return this.rows<{ id: string }>("SELECT id FROM streams WHERE kind = 'get' ORDER BY rowid DESC LIMIT 1")[0]?.id;
  }

  /** Drops the streams closed at or before `cutoff`: their replay window is over. */
  dropStreamsClosedBefore(cutoff: number): void {
    for (const { id } of this.rows<{ id: string }>(`SELECT id FROM streams WHERE closed_at <= ? AND ${NO_CALL}`, cutoff))
      this.dropStream(id);
  }

  /** Keeps the logs of closed streams within `maxBytes` in all, dropping the oldest closed streams first. */
  trimClosed(maxBytes: number): void {
    const oldest = this.rows<{ id: string; bytes: number }>(
      `SELECT id, bytes FROM streams WHERE closed_at IS NOT NULL AND ${NO_CALL} ORDER BY closed_at, rowid`,
    );
    let excess = oldest.reduce((sum, s) => sum + s.bytes, 0) - maxBytes;
    for (const { id, bytes } of oldest) {
      if (excess <= 0) break;
      this.dropStream(id);
      excess -= bytes;
    }
  }

  private dropStream(id: string): void {
    this.sql.exec("DELETE FROM events WHERE stream = ?", id);
    this.sql.exec("DELETE FROM streams WHERE id = ?", id);
  }

  /** When the oldest closed stream was closed: its replay window ends first. */
  earliestClosedAt(): number | undefined {
    return this.sql.exec<{ t: number | null }>(`SELECT min(closed_at) AS t FROM streams WHERE ${NO_CALL}`).one().t ?? undefined;
  }

  // ── calls waiting for input, and pending server requests ─────────────────
  putCall(call: CallRow): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO calls (stream, request, answers, state) VALUES (?, ?, ?, ?)",
      call.stream,
      call.request,
      JSON.stringify(call.answers),
      call.state === undefined ? null : JSON.stringify(call.state),
    );
  }

  getCall(stream: string): CallRow | undefined {
    const row = this.rows<{ stream: string; request: string; answers: string; state: string | null }>(
      "SELECT * FROM calls WHERE stream = ?",
      stream,
    )[0];
    return (
      row && {
        stream: row.stream,
        request: row.request,
        answers: JSON.parse(row.answers),
        state: row.state === null ? undefined : JSON.parse(row.state),
      }
    );
  }

  hasCall(stream: string): boolean {
    return this.any("SELECT 1 FROM calls WHERE stream = ?", stream);
  }

  /** The stored calls, with their client requests; none while the session holds no state. */
  calls(): { stream: string; request: { id: string | number; method: string; params?: Record<string, unknown> } }[] {
    if (!this.ready) return [];
    return this.rows<{ stream: string; request: string }>("SELECT stream, request FROM calls").map((r) => ({
      stream: r.stream,
      request: JSON.parse(r.request),
    }));
  }

  /** The stream of the waiting call whose client request had this id. */
  findCallByRequestId(id: string | number): string | undefined {
    return this.calls().find((c) => c.request.id === id)?.stream;
  }

  hasPending(stream: string, key: string): boolean {
    return this.any("SELECT 1 FROM pending WHERE stream = ? AND key = ?", stream, key);
  }

  deleteCall(stream: string): void {
    this.sql.exec("DELETE FROM calls WHERE stream = ?", stream);
    this.sql.exec("DELETE FROM pending WHERE stream = ?", stream);
  }

  addPending(p: PendingRow): void {
    this.sql.exec(
      "INSERT INTO pending (rpc_id, stream, key, method, deadline) VALUES (?, ?, ?, ?, ?)",
      p.rpcId,
      p.stream,
      p.key,
      p.method,
      p.deadline,
    );
    this.deadlineWritten();
  }

  takePending(rpcId: string): PendingRow | undefined {
    if (!this.ready) return undefined;
    return this.rows<PendingRow & Row>(
      "DELETE FROM pending WHERE rpc_id = ? RETURNING rpc_id AS rpcId, stream, key, method, deadline",
      rpcId,
    )[0];
  }

  pendingCount(stream?: string): number {
    if (!this.ready) return 0;
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM pending WHERE ?1 IS NULL OR stream = ?1", stream ?? null).one().n;
  }

  /** Removes the pings past their deadline and returns the streams they went out on. */
  takeExpiredPings(now: number): string[] {
    return this.rows<{ stream: string }>("DELETE FROM pending WHERE method = 'ping' AND deadline <= ? RETURNING stream", now).map(
      (r) => r.stream,
    );
  }

  /** Streams whose pending requests are past their deadline. */
  expiredCalls(now: number): string[] {
    return this.rows<{ stream: string }>("SELECT DISTINCT stream FROM pending WHERE deadline <= ?", now).map((r) => r.stream);
  }

  earliestDeadline(): number | undefined {
    return this.sql.exec<{ d: number | null }>("SELECT min(deadline) AS d FROM pending").one().d ?? undefined;
  }
}
