/**
 * A task object's durable state, in its SQLite storage: the task record (how
 * it was started, its status and what it ended with, the input it waits for
 * and the answers it has) and the journal of its finished steps. The same
 * class serves as an owner's index; those rows live in their own table.
 * Nothing here lives only in memory, so eviction loses nothing.
 */
import type { TaskView } from "../mcp/tasks";
import type { Json } from "../mcp/types";
import type { TaskStart } from "./contracts";

export interface TaskRecord {
  start: TaskStart;
  view: TaskView;
  /** Answers to every input request of the task so far, by key. */
  answers: Record<string, unknown>;
  /** The handler's own state from its last input request. */
  state?: Json;
  /** How many times the handler has been started (a run cut short is started again). */
  runs: number;
  /** Set while a run goes on; found set by a new run, the last one died with its isolate. */
  inRun?: boolean;
  /** Runs cut short so far. */
  cutShort?: number;
}

/**
 * A write to a task that has been forgotten (its ttl ended, or it was answered as a plain result).
 * A run the expiry cut off can still be going (a step that ignores its signal): what it finishes
 * is refused here, so a forgotten task never gets storage back.
 */
export class TaskGone extends Error {
  constructor() {
    super("The task is gone (its ttl ended); nothing more is stored for it");
  }
}

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
    this.ready ||= this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task'").toArray().length > 0;
    return this.ready;
  }

  /** After the object's storage was deleted: the tables are gone, and stay gone. */
  forgotten(): void {
    this.ready = false;
    this.gone = true;
  }

  /**
   * Only the task's creation makes its tables; every later write needs them to be there. So a write
   * after the task was forgotten is refused, in this instance (the flag) and in any later one (no tables).
   */
  private writable({ creating = false } = {}): void {
    if (this.gone) throw new TaskGone();
    if (creating) this.schema();
    else if (!this.exists) throw new TaskGone();
  }

  private schema(): void {
    if (this.exists) return;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS task (id TEXT PRIMARY KEY, record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS steps (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS owned (id TEXT PRIMARY KEY, view TEXT NOT NULL, terminal INTEGER NOT NULL, expires_at INTEGER NOT NULL);
    `);
    this.ready = true;
  }

  // ── the task ──────────────────────────────────────────────────────────────
  getTask(): TaskRecord | undefined {
    if (!this.exists) return undefined;
    const row = this.sql.exec<{ record: string }>("SELECT record FROM task").toArray()[0];
    return row && (JSON.parse(row.record) as TaskRecord);
  }

  /** The task's first write, before its id is returned. */
  createTask(record: TaskRecord): void {
    this.writable({ creating: true });
    this.writeTask(record);
  }

  putTask(record: TaskRecord): void {
    this.writable();
    this.writeTask(record);
  }

  private writeTask(record: TaskRecord): void {
    this.sql.exec("INSERT OR REPLACE INTO task (id, record) VALUES (?, ?)", record.view.taskId, JSON.stringify(record));
  }

  getStep(name: string): { value: unknown } | undefined {
    if (!this.exists) return undefined;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM steps WHERE name = ?", name).toArray()[0];
    return row && { value: JSON.parse(row.value) };
  }

  putStep(name: string, value: unknown): void {
    this.writable();
    this.sql.exec("INSERT OR REPLACE INTO steps (name, value) VALUES (?, ?)", name, JSON.stringify(value));
  }

  // ── the owner's index ─────────────────────────────────────────────────────
  /** Adds a task unless the owner already has `max` unfinished ones; rows past their expiry go first. */
  admit(task: TaskView, max: number, now: number): boolean {
    this.schema();
    this.sql.exec("DELETE FROM owned WHERE expires_at <= ?", now);
    const open = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM owned WHERE terminal = 0").one().n;
    if (open >= max) return false;
    this.sql.exec(
      "INSERT OR REPLACE INTO owned (id, view, terminal, expires_at) VALUES (?, ?, 0, ?)",
      task.taskId,
      JSON.stringify(task),
      task.createdAt + task.ttlMs,
    );
    return true;
  }

  settle(taskId: string, task: TaskView | null, terminal: boolean): void {
    if (!this.exists) return;
    if (!task) this.sql.exec("DELETE FROM owned WHERE id = ?", taskId);
    else this.sql.exec("UPDATE owned SET view = ?, terminal = ? WHERE id = ?", JSON.stringify(task), terminal ? 1 : 0, taskId);
  }

  /** A page of the owner's tasks, oldest first; the cursor is the position after the last one given. */
  list(after: number, pageSize: number, now: number): { tasks: TaskView[]; next?: number } {
    if (!this.exists) return { tasks: [] };
    this.sql.exec("DELETE FROM owned WHERE expires_at <= ?", now);
    const rows = this.sql
      .exec<{ r: number; view: string }>("SELECT rowid AS r, view FROM owned WHERE rowid > ? ORDER BY rowid LIMIT ?", after, pageSize + 1)
      .toArray();
    const page = rows.slice(0, pageSize);
    return { tasks: page.map((r) => JSON.parse(r.view) as TaskView), next: rows.length > pageSize ? page[page.length - 1]!.r : undefined };
  }
}
