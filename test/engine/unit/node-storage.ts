/**
 * A Durable Object's storage for unit tests in Node: the SQL API over `node:sqlite` (an in-memory
 * database) and the key-value and alarm API over a Map, the parts the session store uses. The
 * store's rules (event order, replay, caps, deadlines) then run without workerd; the integration
 * tests still run the real storage inside workerd.
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";

type Row = Record<string, unknown>;

class Cursor<T extends Row> implements Iterable<T> {
  constructor(private readonly rows: T[]) {}
  toArray(): T[] {
    return this.rows;
  }
  one(): T {
    if (this.rows.length !== 1) throw new Error(`Expected exactly one result from SQL query, got ${this.rows.length}`);
    return this.rows[0]!;
  }
  [Symbol.iterator](): Iterator<T> {
    return this.rows[Symbol.iterator]();
  }
}

export function nodeStorage(): { sql: SqlStorage; kv: DurableObjectStorage; alarm: () => number | null } {
  const db = new DatabaseSync(":memory:");
  const sql = {
    exec<T extends Row>(query: string, ...bindings: unknown[]): Cursor<T> {
      // Several statements at once (a schema) take no bindings and return nothing, as in workerd.
      if (bindings.length === 0 && query.trim().replace(/;\s*$/, "").includes(";")) {
        db.exec(query);
        return new Cursor<T>([]);
      }
      return new Cursor<T>(db.prepare(query).all(...(bindings as SQLInputValue[])) as T[]);
    },
    get databaseSize() {
      return (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count * 4096;
    },
  };
  const values = new Map<string, unknown>();
  let alarm: number | null = null;
  const kv = {
    async get(keys: string | string[]) {
      if (!Array.isArray(keys)) return structuredClone(values.get(keys));
      return new Map(keys.filter((k) => values.has(k)).map((k) => [k, structuredClone(values.get(k))]));
    },
    async put(key: string, value: unknown) {
      values.set(key, structuredClone(value));
    },
    async delete(key: string) {
      return values.delete(key);
    },
    async deleteAll() {
      values.clear();
      for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
        db.exec(`DROP TABLE "${name}"`);
    },
    async getAlarm() {
      return alarm;
    },
    async setAlarm(at: number) {
      alarm = at;
    },
    async deleteAlarm() {
      alarm = null;
    },
  };
  return { sql: sql as unknown as SqlStorage, kv: kv as unknown as DurableObjectStorage, alarm: () => alarm };
}
