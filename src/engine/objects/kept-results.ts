/**
 * Cut tool results kept whole (docs/results.md): one object per result, named `result:<id>` in the
 * task namespace (MCP_TASK, which every fork binds), so a result needs no binding of its own. It
 * keeps the result's JSON and its owner, answers only that owner (or anyone with the link, for an
 * anonymous caller's), and deletes everything at its expiry by an alarm. The id is 128 random bits:
 * the link is the only way to it. The task class extends this one, and an app without task tools
 * exports it as McpTask, so the same binding serves either way.
 */
import { DurableObject } from "./durable-object";
import type { Env } from "../env";
import { KEPT_PREFIX, type ResultKeeper } from "../mcp/result-budget";
import { toBase64url } from "../mcp/base64url";
import type { KeptResultMethods, ObjectBindings } from "./contracts";

/** The largest result kept, in characters (a larger one is cut with no link): under an RPC message's bound. */
export const MAX_KEPT_CHARS = 8_000_000;
/** Characters a row holds: at 3 bytes a character, under SQLite's 2 MB a value in a Durable Object. */
const PART_CHARS = 500_000;
const META = "mcp_kept_meta";
const PARTS = "mcp_kept_parts";
const ID = /^[A-Za-z0-9_-]{22}$/;

export class KeptResultsObject extends DurableObject<Env> implements KeptResultMethods {
  private get db() {
    return this.ctx.storage.sql;
  }

  async keepResult(owner: string, whole: string, expiresAt: number): Promise<void> {
    if (whole.length > MAX_KEPT_CHARS) throw new Error(`a kept result holds at most ${MAX_KEPT_CHARS} characters`);
    this.ctx.storage.transactionSync(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${META} (id INTEGER PRIMARY KEY CHECK (id = 1), owner TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${PARTS} (n INTEGER PRIMARY KEY, text TEXT NOT NULL)`);
      this.db.exec(`INSERT OR REPLACE INTO ${META} (id, owner, expires_at) VALUES (1, ?, ?)`, owner, expiresAt);
      for (let n = 0; n * PART_CHARS < whole.length; n++)
        this.db.exec(`INSERT OR REPLACE INTO ${PARTS} (n, text) VALUES (?, ?)`, n, whole.slice(n * PART_CHARS, (n + 1) * PART_CHARS));
    });
    await this.ctx.storage.setAlarm(expiresAt);
  }

  async readKeptResult(principal: string): Promise<string | undefined> {
    const meta = this.meta();
    if (!meta || Date.now() >= meta.expires_at || (meta.owner !== "" && meta.owner !== principal)) return undefined;
    return this.db
      .exec<{ text: string }>(`SELECT text FROM ${PARTS} ORDER BY n`)
      .toArray()
      .map((r) => r.text)
      .join("");
  }

  /** At its expiry, a kept result goes whole; an object that keeps none (a task, an index) is left alone. */
  async alarm(): Promise<void> {
    const meta = this.meta();
    if (meta && Date.now() >= meta.expires_at) await this.ctx.storage.deleteAll();
  }

  private meta(): { owner: string; expires_at: number } | undefined {
    const table = this.db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", META).toArray();
    return table.length ? this.db.exec<{ owner: string; expires_at: number }>(`SELECT owner, expires_at FROM ${META}`).toArray()[0] : undefined;
  }
}

const stubOf = (env: ObjectBindings, id: string) => env.MCP_TASK!.get(env.MCP_TASK!.idFromName(`result:${id}`));

/** The keeper createMcpWorker gives the core: the object above, through MCP_TASK. */
export const keptResults: ResultKeeper = {
  async keep(env, owner, whole, keepSeconds) {
    const bindings = env as ObjectBindings;
    if (!bindings.MCP_TASK || whole.length > MAX_KEPT_CHARS) return undefined;
    const id = toBase64url(crypto.getRandomValues(new Uint8Array(16)));
    await stubOf(bindings, id).keepResult(owner, whole, Date.now() + keepSeconds * 1000);
    return `${KEPT_PREFIX}${id}`;
  },
  async read(env, principal, uri) {
    const bindings = env as ObjectBindings;
    const id = uri.slice(KEPT_PREFIX.length);
    if (!bindings.MCP_TASK || !ID.test(id)) return undefined;
    return stubOf(bindings, id).readKeptResult(principal);
  },
};
