/**
 * Per-user state (docs/state.md): one Durable Object with SQLite storage per principal, named by the
 * principal, so one caller's state is another object than every other caller's and no key a tool
 * passes can reach across. It holds the JSON values of `ctx.user.get/put` in a table of its own and
 * the app's tables (its `migrations`). Nothing is written before the first write: a read of an object
 * that holds nothing creates no table, and a `sql` statement that changes nothing there is rolled back
 * with the migrations it needed. A write that would take the database past `maxBytes` is rolled back.
 */
import { DurableObject } from "../objects/durable-object";
import type { Env } from "../env";
import type { UserMethods, WriteAnswer } from "./contract";

/** What `userState(...)` takes (src/engine/user/). */
export interface UserStateOptions {
  /**
   * SQL scripts that make the app's own tables, applied in order, once each, before the first write
   * that needs them. Append only: a deployed migration is never edited or removed.
   */
  migrations?: readonly string[];
  /** The bound on one principal's database, in bytes (default 5 MiB). */
  maxBytes?: number;
}

/** 5 MiB, as a literal: esbuild keeps a product in a bundle that leaves this module out. */
const DEFAULT_MAX_BYTES = 5_242_880;

const KV = "mcp_user_kv";
const META = "mcp_user_meta";

/** Thrown inside a transaction to roll it back: the write passed the bound, or changed nothing on a fresh object. */
class Rollback {
  constructor(readonly answer: WriteAnswer) {}
}

/** What the one McpUser class of this Worker applies: the app's `userState(...)` options, set at start-up. */
interface UserSettings {
  migrations: readonly string[];
  maxBytes: number;
}

let settings: UserSettings = { migrations: [], maxBytes: DEFAULT_MAX_BYTES };
let configuredBy: UserStateOptions | undefined;

/**
 * Sets what every principal's object applies (start-up: `userState(...)` calls it). A Worker has one
 * McpUser class, so a second, different configuration is a mistake named here rather than a silent
 * change of the first app's bound or migrations.
 */
export function configureUserObjects(options: UserStateOptions): UserSettings {
  const next = { migrations: options.migrations ?? [], maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
  if (configuredBy && configuredBy !== options && JSON.stringify(next) !== JSON.stringify(settings))
    throw new Error("userState: a Worker has one per-user state (one McpUser class); configure it once, with one set of options");
  configuredBy = options;
  settings = next;
  return settings;
}

/** The bound on one principal's database this Worker applies, in bytes (the default before `userState(...)` ran). */
export const configuredMaxBytes = (): number => settings.maxBytes;

/** Each principal's object (bound as MCP_USER); what it applies is configured at start-up (configureUserObjects). */
export class McpUser extends DurableObject<Env> implements UserMethods {
  /** Set once this instance saw the engine's tables and every migration applied. */
  private ready = false;

  private get db() {
    return this.ctx.storage.sql;
  }

  /** Whether anything was ever written here (the engine's tables exist). */
  private exists(): boolean {
    return this.ready || this.db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", META).toArray().length > 0;
  }

  /** Within a write's transaction: the engine's tables, and the migrations not yet applied. */
  private prepare(): void {
    if (this.ready) return;
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${META} (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${KV} (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
    const row = this.db.exec<{ version: number }>(`SELECT version FROM ${META}`).toArray()[0];
    const applied = row?.version ?? 0;
    const { migrations } = settings;
    for (let i = applied; i < migrations.length; i++) this.db.exec(migrations[i]!);
    if (!row || applied < migrations.length)
      this.db.exec(`INSERT OR REPLACE INTO ${META} (id, version) VALUES (1, ?)`, Math.max(applied, migrations.length));
  }

  /** Runs a write in one transaction, rolled back when it takes the database past the bound. */
  private write(fn: () => WriteAnswer): WriteAnswer {
    try {
      const answer = this.ctx.storage.transactionSync(() => {
        this.prepare();
        const answer = fn();
        if (this.db.databaseSize > settings.maxBytes) throw new Rollback({ over: settings.maxBytes });
        return answer;
      });
      this.ready = true;
      return answer;
    } catch (err) {
      if (err instanceof Rollback) return err.answer;
      throw err;
    }
  }

  async get(key: string): Promise<string | null> {
    if (!this.exists()) return null;
    const row = this.db.exec<{ value: string }>(`SELECT value FROM ${KV} WHERE key = ?`, key).toArray()[0];
    return row?.value ?? null;
  }

  async put(key: string, json: string): Promise<WriteAnswer> {
    return this.write(() => {
      this.db.exec(`INSERT OR REPLACE INTO ${KV} (key, value) VALUES (?, ?)`, key, json);
      return {};
    });
  }

  async delete(key: string): Promise<boolean> {
    if (!this.exists()) return false;
    return this.db.exec(`DELETE FROM ${KV} WHERE key = ?`, key).rowsWritten > 0;
  }

  async list(prefix: string, after: string, limit: number): Promise<{ key: string; value: string }[]> {
    if (!this.exists()) return [];
    // Keys after `after` (the page before's last) or from `prefix`, while they start with the prefix.
    const [op, from] = after && after >= prefix ? [">", after] : [">=", prefix];
    const rows = this.db.exec<{ key: string; value: string }>(
      `SELECT key, value FROM ${KV} WHERE key ${op} ? AND substr(key, 1, length(?)) = ? ORDER BY key LIMIT ?`,
      from,
      prefix,
      prefix,
      limit,
    );
    return rows.toArray();
  }

  async sql(query: string, bindings: unknown[]): Promise<WriteAnswer> {
    const fresh = !this.exists();
    try {
      return this.write(() => {
        const cursor = this.db.exec(query, ...bindings);
        const rows = cursor.toArray();
        // On an object that held nothing, a statement that wrote nothing leaves nothing behind.
        if (fresh && cursor.rowsWritten === 0) throw new Rollback({ rows });
        return { rows };
      });
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  async erase(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.ready = false;
  }
}
