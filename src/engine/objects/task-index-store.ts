/**
 * An owner's task index, in the SQLite storage of the task class's object
 * named by the owner's key: one row per task the owner keeps (until its ttl),
 * with the task's metadata for tasks/list (never its result, arguments or
 * input requests), whether it has finished, and how many bytes its own object
 * stores. The rows are what MAX_TASKS_IN_FLIGHT, MAX_TASKS_RETAINED and
 * MAX_TASK_BYTES_RETAINED count. A task writes its row three times in its life
 * (admitted, finished, gone), one row written each: the table is keyed by the
 * task id WITHOUT ROWID and has no other index, as each index and the
 * AUTOINCREMENT sequence would be one more row on every write.
 */
import type { TaskView } from "../mcp/tasks";

/** The owner's limits a new task is checked against (from the settings of the same names). */
export interface TaskLimits {
  /** MAX_TASKS_IN_FLIGHT: unfinished tasks. */
  inFlight: number;
  /** MAX_TASKS_RETAINED: tasks kept, finished or not. */
  retained: number;
  /** MAX_TASK_BYTES_RETAINED: bytes the kept tasks' objects store. */
  retainedBytes: number;
}

/** The owner limits from the settings. */
export const taskLimits = (config: { maxTasksInFlight: number; maxTasksRetained: number; maxTaskBytesRetained: number }): TaskLimits => ({
  inFlight: config.maxTasksInFlight,
  retained: config.maxTasksRetained,
  retainedBytes: config.maxTaskBytesRetained,
});

/** Which limit refused a new task. */
export type OverLimit = keyof TaskLimits;

export class TaskIndexStore {
  private ready = false;

  constructor(private readonly sql: SqlStorage) {}

  /** The table exists once a task was admitted; a tasks/list of an owner with no tasks leaves nothing behind. */
  private get exists(): boolean {
    this.ready ||= this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'listed'").toArray().length > 0;
    return this.ready;
  }

  /**
   * A task's position (seq) is one past the highest held: a cursor (the position of the last task of a
   * page) keeps its place when tasks before it expire, and one past the highest position is known bad.
   * Only a page with tasks after it gives a cursor, so a cursor goes bad only once those are all gone.
   * The owner's rows are few (MAX_TASKS_RETAINED), so a page is read in order without an index on seq.
   * (An index of an earlier version keeps its table, seq INTEGER PRIMARY KEY AUTOINCREMENT, id UNIQUE,
   * and takes positions the same way from here on.)
   */
  private schema(): void {
    if (this.exists) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS listed (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, task TEXT NOT NULL,
      terminal INTEGER NOT NULL, expires_at INTEGER NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID`);
    this.ready = true;
  }

  /** Rows past their task's ttl go (the task's object forgets itself at the same time). */
  private dropExpired(now: number): void {
    this.sql.exec("DELETE FROM listed WHERE expires_at <= ?", now);
  }

  /** Adds a task unless that would take the owner past one of its limits; then says which. */
  admit(task: TaskView, bytes: number, limits: TaskLimits, now: number): OverLimit | undefined {
    this.schema();
    this.dropExpired(now);
    const held = this.sql
      .exec<{ kept: number; open: number; bytes: number }>(
        "SELECT count(*) AS kept, coalesce(sum(terminal = 0), 0) AS open, coalesce(sum(bytes), 0) AS bytes FROM listed",
      )
      .one();
    if (held.open >= limits.inFlight) return "inFlight";
    if (held.kept >= limits.retained) return "retained";
    if (held.bytes + bytes > limits.retainedBytes) return "retainedBytes";
    this.sql.exec(
      "INSERT OR REPLACE INTO listed (id, seq, task, terminal, expires_at, bytes) VALUES (?, ?, ?, 0, ?, ?)",
      task.taskId,
      this.highestPosition() + 1,
      JSON.stringify(task),
      task.createdAt + task.ttlMs,
      bytes,
    );
    return undefined;
  }

  /** A task's latest metadata and size, or null when it is gone. */
  record(taskId: string, task: TaskView | null, terminal: boolean, bytes: number): void {
    if (!this.exists) {
      // An index of an earlier version (its keys had no revision) hears from the tasks it counted:
      // nothing reads it any more, and its rows held whole results.
      this.sql.exec("DROP TABLE IF EXISTS owned");
      return;
    }
    if (!task) this.sql.exec("DELETE FROM listed WHERE id = ?", taskId);
    else
      this.sql.exec(
        "UPDATE listed SET task = ?, terminal = ?, bytes = ? WHERE id = ?",
        JSON.stringify(task),
        terminal ? 1 : 0,
        bytes,
        taskId,
      );
  }

  /**
   * A page of the owner's tasks, oldest first, after position `after` (0: from the start); null when
   * `after` is no position this index has given (a cursor that names nothing).
   */
  list(after: number, pageSize: number, now: number): { tasks: TaskView[]; next?: number } | null {
    if (after > this.highestPosition()) return null;
    if (!this.exists) return { tasks: [] };
    this.dropExpired(now);
    const rows = this.sql
      .exec<{ seq: number; task: string }>("SELECT seq, task FROM listed WHERE seq > ? ORDER BY seq LIMIT ?", after, pageSize + 1)
      .toArray();
    const page = rows.slice(0, pageSize);
    return {
      tasks: page.map((r) => JSON.parse(r.task) as TaskView),
      next: rows.length > pageSize ? page[page.length - 1]!.seq : undefined,
    };
  }

  private highestPosition(): number {
    if (!this.exists) return 0;
    return this.sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM listed").one().seq ?? 0;
  }
}
