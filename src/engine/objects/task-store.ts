/**
 * A task object's durable state, in its SQLite storage: the task record (how
 * it was started, its status, the input it waits for) in one small row, and
 * in rows of their own the parts that can be large — the call's arguments,
 * each answer, the handler's state, what the task ended with — and the journal
 * of its finished steps. Each row stays within its own bound (a request's
 * body, TASK_MAX_RESULT_BYTES), well inside SQLite's 2 MB per row, however many
 * answers a task gathers. Once the task has finished nothing will run it
 * again, so its arguments, answers, state and steps are deleted then; what
 * stays until the ttl is the record and the outcome.
 * Nothing here lives only in memory, so eviction loses nothing.
 */
import { ErrorCode, McpError } from "../mcp/errors";
import { isTerminal, type TaskView } from "../mcp/tasks";
import type { Json } from "../mcp/types";
import type { TaskStart } from "./contracts";

export interface TaskRecord {
  start: TaskStart;
  view: TaskView;
  /** Answers to every input request of the task so far, by key. */
  answers: Record<string, unknown>;
  /** The handler's own state from its last input request. */
  state?: Json;
  /** Set while a run goes on; found set by a new run, the last one died with its isolate. */
  inRun?: boolean;
  /** Runs cut short so far. */
  cutShort?: number;
}

/**
 * A write the task can no longer take: it has been forgotten (its ttl ended, or it was answered as a
 * plain result), or it has finished and keeps no steps. A run the expiry or a cancel cut off can
 * still be going (a step that ignores its signal): what it finishes is refused here, so a forgotten
 * task never gets storage back.
 */
class TaskClosed extends McpError {
  constructor(message: string) {
    // A protocol error, not a tool failure: the handler did nothing wrong, the task moved on.
    super(ErrorCode.InternalError, message);
  }
}

const ANSWER = "answer:";

export class TaskStore {
  private ready = false;
  /** Set once the task's storage is deleted: from then on every write is refused. */
  private gone = false;

  constructor(private readonly sql: SqlStorage) {}

  /**
   * The tables exist once something is written. A guessed task id only ever reads, and must not
   * leave an empty database behind.
   */
  private get exists(): boolean {
    // Forgotten: nothing to read, even while the deletion is still under way.
    if (this.gone) return false;
    if (!this.ready && this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task'").toArray().length > 0) {
      this.ready = true;
      this.upgrade();
    }
    return this.ready;
  }

  private createTables(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS task (id TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS steps (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS waiters (session TEXT PRIMARY KEY);
    `);
  }

  /**
   * A task stored by an earlier version (a deploy while it ran) kept its arguments, answers, state
   * and outcome in its record row: they move to rows of their own, so the task goes on where it was.
   */
  private upgrade(): void {
    if (this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'parts'").toArray().length > 0) return;
    this.createTables();
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    if (!row) return;
    const record = JSON.parse(row.record) as TaskRecord;
    this.putPart("params", record.start.params ?? {});
    for (const [key, answer] of Object.entries(record.answers ?? {})) this.putPart(ANSWER + key, answer);
    record.answers = {};
    this.writeRecord(record);
  }

  /** After the object's storage was deleted: the tables are gone, and stay gone. */
  forgotten(): void {
    this.gone = true;
  }

  /**
   * Only the task's creation makes its tables; every later write needs them to be there. So a write
   * after the task was forgotten is refused, in this instance (the flag) and in any later one (no tables).
   */
  private writable({ creating = false } = {}): void {
    if (this.gone || (!creating && !this.exists)) throw new TaskClosed("The task is gone (its ttl ended); nothing more is stored for it");
    if (creating && !this.exists) {
      this.createTables();
      this.ready = true;
    }
  }

  // ── the task ──────────────────────────────────────────────────────────────
  getTask(): TaskRecord | undefined {
    if (!this.exists) return undefined;
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    if (!row) return undefined;
    const record = JSON.parse(row.record) as TaskRecord;
    record.start.params = {};
    record.answers = {};
    for (const part of this.sql.exec<{ name: string; value: string }>("SELECT name, value FROM parts")) {
      const value = JSON.parse(part.value);
      if (part.name === "params") record.start.params = value;
      else if (part.name === "state") record.state = value;
      else if (part.name === "outcome") Object.assign(record.view, value);
      else if (part.name.startsWith(ANSWER)) record.answers[part.name.slice(ANSWER.length)] = value;
    }
    return record;
  }

  /** The task's first write, before its id is returned: the record, the arguments and the answers so far. */
  createTask(record: TaskRecord): void {
    this.writable({ creating: true });
    this.putPart("params", record.start.params);
    for (const [key, answer] of Object.entries(record.answers)) this.putPart(ANSWER + key, answer);
    this.writeRecord(record);
  }

  /** The record's changes; its answers are stored as they come (putAnswer). */
  putTask(record: TaskRecord): void {
    this.writable();
    this.writeRecord(record);
  }

  putAnswer(key: string, answer: unknown): void {
    this.writable();
    this.putPart(ANSWER + key, answer);
  }

  private writeRecord(record: TaskRecord): void {
    const { result, error, ...view } = record.view;
    const { params: _params, ...start } = record.start;
    const { answers: _answers, state, ...rest } = record;
    this.sql.exec("INSERT OR REPLACE INTO task (id, record) VALUES (?, ?)", view.taskId, JSON.stringify({ ...rest, start, view }));
    if (isTerminal(view.status)) {
      // Nothing runs a finished task again: what a run needs goes, what the task ended with stays.
      this.sql.exec("DELETE FROM parts WHERE name <> 'outcome'");
      this.sql.exec("DELETE FROM steps");
      if (result || error)
        this.sql.exec("INSERT OR IGNORE INTO parts (name, value) VALUES ('outcome', ?)", JSON.stringify(result ? { result } : { error }));
    } else if (state !== undefined) this.putPart("state", state);
    else this.sql.exec("DELETE FROM parts WHERE name = 'state'");
  }

  private putPart(name: string, value: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO parts (name, value) VALUES (?, ?)", name, JSON.stringify(value));
  }

  /** UTF-8 bytes the task's rows hold: what it costs its owner (MAX_TASK_BYTES_RETAINED). */
  bytes(): number {
    if (!this.exists) return 0;
    const size = (table: string, column: string) => `(SELECT coalesce(sum(length(CAST(${column} AS BLOB))), 0) FROM ${table})`;
    return this.sql
      .exec<{ n: number }>(`SELECT ${size("task", "record")} + ${size("parts", "value")} + ${size("steps", "value")} AS n`)
      .one().n;
  }

  // ── 2025 sessions waiting on the task (tasks/result) ──────────────────────
  /** Adds a session to those told of the task's changes; false when `max` other sessions already are. */
  addWaiter(sessionId: string, max: number): boolean {
    this.writable();
    if (this.sql.exec("SELECT 1 FROM waiters WHERE session = ?", sessionId).toArray().length > 0) return true;
    if (this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM waiters").one().n >= max) return false;
    this.sql.exec("INSERT INTO waiters (session) VALUES (?)", sessionId);
    return true;
  }

  waiters(): string[] {
    if (!this.exists) return [];
    return this.sql
      .exec<{ session: string }>("SELECT session FROM waiters")
      .toArray()
      .map((r) => r.session);
  }

  getStep(name: string): { value: unknown } | undefined {
    if (!this.exists) return undefined;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM steps WHERE name = ?", name).toArray()[0];
    return row && { value: JSON.parse(row.value) };
  }

  /** Keeps a finished step; refused once the task has ended (a cancelled run that went on) or is gone. */
  putStep(name: string, value: unknown): void {
    this.writable();
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    const status = row && (JSON.parse(row.record) as TaskRecord).view.status;
    if (!status || isTerminal(status)) throw new TaskClosed("The task has ended; its steps are no longer kept");
    this.sql.exec("INSERT OR REPLACE INTO steps (name, value) VALUES (?, ?)", name, JSON.stringify(value));
  }
}
