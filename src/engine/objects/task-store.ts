/**
 * A task object's durable state, in its SQLite storage. A task's rows are most
 * of what it costs (each row written is billed), so a plain task keeps one: the
 * task record (how it was started, its status, the input it waits for) with its
 * arguments and, once it ends, its result, written at the create and at the
 * end. What can be large goes to rows of its own instead, each within its own
 * bound (a request's body, TASK_MAX_RESULT_BYTES) and well inside SQLite's 2 MB
 * per row however many answers a task gathers: arguments or a result past
 * INLINE_BYTES, each answer, the handler's state, the journal of finished
 * steps, the 2025 sessions waiting on it. Their tables are made when first
 * needed, since making a table writes rows too. Once the task has finished
 * nothing will run it again, so its arguments, answers, state and steps are
 * deleted then; what stays until the ttl is the record and the outcome.
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
  /**
   * When a run was last due (the create, the answers to its input, a restart): a run started then
   * holds its lease from that time at the earliest, so an alarm that finds the task working, with no
   * run in this instance, a lease or more after it, is a lease that ended: the run died with its
   * isolate. Written with the change that makes the run due, so a run costs no write of its own.
   */
  runFrom?: number;
  /** Set by earlier versions while a run went on; found set, the last run died with its isolate. */
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

/**
 * Arguments or an outcome whose JSON is up to this many characters (192 KiB of UTF-8 at most) stay in
 * the record's row; larger, each is a row of its own. The record without them holds the start (a
 * request's envelope, the caller's kept claims), so with one of these the row stays well inside the
 * 2 MB a row may hold.
 */
const INLINE_CHARS = 65_536;

/**
 * The columns of each table, by name: the record's, the only one a plain task makes, and those made
 * when first needed. WITHOUT ROWID, a write is one row, not two (the row and its key's index).
 */
const TABLES = {
  task: "id TEXT PRIMARY KEY, record TEXT NOT NULL",
  parts: "name TEXT PRIMARY KEY, value TEXT NOT NULL",
  steps: "name TEXT PRIMARY KEY, value TEXT NOT NULL",
  waiters: "session TEXT PRIMARY KEY",
};
type Table = keyof typeof TABLES;

export class TaskStore {
  /** The tables that exist, once read; undefined until the task table was found (or made). */
  private tables?: Set<string>;
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
    if (!this.tables) {
      const names = this.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((r) => r.name);
      if (!names.includes("task")) return false;
      this.tables = new Set(names);
    }
    return true;
  }

  private has(table: Table): boolean {
    return this.exists && this.tables!.has(table);
  }

  private make(table: Table): void {
    if (this.tables!.has(table)) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (${TABLES[table]}) WITHOUT ROWID`);
    this.tables!.add(table);
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
      this.tables = new Set();
      this.make("task");
    }
  }

  // ── the task ──────────────────────────────────────────────────────────────
  /**
   * The record with its arguments, answers, state and outcome, wherever each is kept: in the row (a
   * small one, or a task of an earlier version, which kept all of them there) or in a row of its own.
   */
  getTask(): TaskRecord | undefined {
    if (!this.exists) return undefined;
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    if (!row) return undefined;
    const record = JSON.parse(row.record) as TaskRecord;
    record.start.params ??= {};
    record.answers ??= {};
    if (!this.has("parts")) {
      // An earlier version kept the answers and arguments in the row: they move where the next write keeps them.
      if (Object.keys(record.answers).length > 0 || !inline(record.start.params)) this.upgrade(record);
      return record;
    }
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
    this.upgrade(record);
  }

  /** The record, with its arguments (unless small: then they are in its row) and its answers in rows of their own. */
  private upgrade(record: TaskRecord): void {
    if (!inline(record.start.params)) this.putPart("params", record.start.params);
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

  /**
   * One row for the record, with the arguments while the task can still run and the outcome once it
   * has ended, each when small; a large one is its own row, written once (neither ever changes: the
   * arguments' row is written with the task, the outcome's only if missing).
   */
  private writeRecord(record: TaskRecord): void {
    const { result, error, ...view } = record.view;
    const { params, ...base } = record.start;
    const start: Partial<TaskStart> = base;
    const { answers: _answers, state, inRun: _inRun, ...rest } = record;
    const stored: Record<string, unknown> = { ...rest, start, view };
    if (isTerminal(view.status)) {
      // Nothing runs a finished task again: what a run needs goes, what the task ended with stays.
      if (this.has("parts")) this.sql.exec("DELETE FROM parts WHERE name <> 'outcome'");
      if (this.has("steps")) this.sql.exec("DELETE FROM steps");
      const outcome = result ? { result } : error ? { error } : undefined;
      if (outcome && inline(outcome)) Object.assign(view, outcome);
      else if (outcome) this.putPart("outcome", outcome, "IGNORE");
    } else {
      if (inline(params)) start.params = params;
      if (state !== undefined) this.putPart("state", state);
      else if (this.has("parts")) this.sql.exec("DELETE FROM parts WHERE name = 'state'");
    }
    this.sql.exec("INSERT OR REPLACE INTO task (id, record) VALUES (?, ?)", view.taskId, JSON.stringify(stored));
  }

  private putPart(name: string, value: unknown, existing: "REPLACE" | "IGNORE" = "REPLACE"): void {
    this.make("parts");
    this.sql.exec(`INSERT OR ${existing} INTO parts (name, value) VALUES (?, ?)`, name, JSON.stringify(value));
  }

  /** UTF-8 bytes the task's rows hold: what it costs its owner (MAX_TASK_BYTES_RETAINED). */
  bytes(): number {
    if (!this.exists) return 0;
    const size = (table: string, column: string) => `(SELECT coalesce(sum(length(CAST(${column} AS BLOB))), 0) FROM ${table})`;
    const sizes = [size("task", "record")];
    if (this.has("parts")) sizes.push(size("parts", "value"));
    if (this.has("steps")) sizes.push(size("steps", "value"));
    return this.sql.exec<{ n: number }>(`SELECT ${sizes.join(" + ")} AS n`).one().n;
  }

  // ── 2025 sessions waiting on the task (tasks/result) ──────────────────────
  /** Adds a session to those told of the task's changes; false when `max` other sessions already are. */
  addWaiter(sessionId: string, max: number): boolean {
    this.writable();
    if (this.has("waiters")) {
      if (this.sql.exec("SELECT 1 FROM waiters WHERE session = ?", sessionId).toArray().length > 0) return true;
      if (this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM waiters").one().n >= max) return false;
    }
    this.make("waiters");
    this.sql.exec("INSERT INTO waiters (session) VALUES (?)", sessionId);
    return true;
  }

  waiters(): string[] {
    if (!this.has("waiters")) return [];
    return this.sql
      .exec<{ session: string }>("SELECT session FROM waiters")
      .toArray()
      .map((r) => r.session);
  }

  getStep(name: string): { value: unknown } | undefined {
    if (!this.has("steps")) return undefined;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM steps WHERE name = ?", name).toArray()[0];
    return row && { value: JSON.parse(row.value) };
  }

  /** Keeps a finished step; refused once the task has ended (a cancelled run that went on) or is gone. */
  putStep(name: string, value: unknown): void {
    this.writable();
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    const status = row && (JSON.parse(row.record) as TaskRecord).view.status;
    if (!status || isTerminal(status)) throw new TaskClosed("The task has ended; its steps are no longer kept");
    this.make("steps");
    this.sql.exec("INSERT OR REPLACE INTO steps (name, value) VALUES (?, ?)", name, JSON.stringify(value));
  }
}

/** Whether a value is small enough to be kept in the record's row. */
function inline(value: unknown): boolean {
  return JSON.stringify(value).length <= INLINE_CHARS;
}
