/**
 * Per-user state (docs/state.md): `userState({ migrations })` gives `defineApp({ userState })` and
 * brings the Durable Object each principal's state lives in (object.ts), so an app without it
 * carries none of this. `userStore(env, principal)` is the same store for the app's own routes, and
 * `forgetUser(env, principal)` erases a principal's state.
 */
import { ErrorCode, McpError, ToolError } from "../mcp/errors";
import type { SqlValue, UserEntry, UserListOptions, UserState, UserStore } from "../mcp/user-state";
import type { UserRpc, WriteAnswer } from "./contract";
import { configureUserObjects, configuredMaxBytes, McpUser, type UserStateOptions } from "./object";

export type { UserStateOptions };

/** What per-user state reads of the Worker's bindings (any env: one without MCP_USER gets a clear error). */
type UserStateEnv = { MCP_USER?: DurableObjectNamespace<any> };

/** A key is a non-empty string of at most this many characters. */
const MAX_KEY_CHARS = 512;
/** One value's JSON, at most, in UTF-8 bytes (SQLite in a Durable Object keeps a value of up to 2 MB). */
const MAX_VALUE_BYTES = 1_048_576; // 1 MiB, as a literal (see DEFAULT_MAX_BYTES)
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

/**
 * Why a caller's state refused an operation, one reason per failure: `anonymous` (no principal to
 * keep state for), `key` (empty or over 512 characters), `value` (its JSON over the bound for one
 * value, in bytes), `full` (the write would take the principal's database past `maxBytes`). A
 * ToolError, so a tool's caller reads it as the call's result; a route catches it by `reason`.
 */
export class UserStateError extends ToolError {
  constructor(
    readonly reason: "anonymous" | "key" | "value" | "full",
    message: string,
  ) {
    super(message);
    this.name = "UserStateError";
  }
}

/**
 * Each authenticated caller's own durable storage, `ctx.user` (docs/state.md). Bind its object as
 * MCP_USER (class McpUser, a SQLite class) in wrangler.toml and export `McpUser` from the Worker entry.
 */
export function userState(options: UserStateOptions = {}): UserState {
  if (options.migrations && !options.migrations.every((m) => typeof m === "string" && m.trim()))
    throw new Error("userState: every migration is a SQL script (a non-empty string)");
  if (options.maxBytes !== undefined && !(Number.isSafeInteger(options.maxBytes) && options.maxBytes > 0))
    throw new Error("userState: maxBytes is a positive whole number of bytes");
  configureUserObjects(options);
  return {
    open(env, principal) {
      if (!principal)
        throw new UserStateError(
          "anonymous",
          "This tool keeps state per user, and the caller is anonymous: it needs an authenticated caller (docs/state.md)",
        );
      return new PrincipalStore(env as object, principal);
    },
    objectClass: McpUser,
  };
}

/**
 * A principal's store outside a handler (your own routes, a webhook): the one `ctx.user` is for that
 * principal, with the bounds the app's `userState(...)` set.
 */
export const userStore = (env: object, principal: string): UserStore => new PrincipalStore(env, principal);

/**
 * Erases everything a principal's state holds: its values and its tables. The way to honour a
 * deletion request; tests call it to start a principal afresh.
 */
export async function forgetUser(env: object, principal: string): Promise<void> {
  await objectOf(env, principal).erase();
}

function objectOf(env: object, principal: string): DurableObjectStub<UserRpc> {
  if (typeof principal !== "string" || !principal) throw new Error("Per-user state needs a principal (a non-empty string)");
  const ns = (env as UserStateEnv | undefined)?.MCP_USER as DurableObjectNamespace<UserRpc> | undefined;
  // The server's configuration, not the call, is wrong: a JSON-RPC error that says what to bind.
  if (!ns)
    throw new McpError(
      ErrorCode.InternalError,
      "Per-user state needs the MCP_USER Durable Object binding (class McpUser) in wrangler.toml; in tests, pass `env` from cloudflare:test (docs/state.md)",
    );
  // Named by the principal: each principal's state is an object of its own.
  return ns.get(ns.idFromName(principal));
}

/** One principal's store: its object, reached on the first operation, and the checks made before it is. */
class PrincipalStore implements UserStore {
  private stub: DurableObjectStub<UserRpc> | undefined;

  constructor(
    private readonly env: object,
    private readonly principal: string,
  ) {}

  private get object(): DurableObjectStub<UserRpc> {
    return (this.stub ??= objectOf(this.env, this.principal));
  }

  async get<T>(key: string): Promise<T | undefined> {
    const json = await this.object.get(checkKey(key));
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  async put(key: string, value: unknown): Promise<void> {
    checkKey(key);
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("ctx.user.put: the value is not JSON (undefined, a function or a symbol)");
    // Bytes, as the bound and the database count them: "é" is one character and two bytes.
    const bytes = new TextEncoder().encode(json).byteLength;
    const most = Math.min(MAX_VALUE_BYTES, configuredMaxBytes());
    if (bytes > most) throw new UserStateError("value", `A stored value is at most ${most} bytes of JSON (UTF-8); this one has ${bytes}`);
    written(await this.object.put(key, json));
  }

  delete(key: string): Promise<boolean> {
    return this.object.delete(checkKey(key));
  }

  async list<T>(options: UserListOptions = {}): Promise<UserEntry<T>[]> {
    const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
    const rows = await this.object.list(options.prefix ?? "", options.after ?? "", Number.isFinite(limit) ? limit : DEFAULT_LIST_LIMIT);
    return rows.map((row): UserEntry<T> => ({ key: row.key, value: JSON.parse(row.value) as T }));
  }

  async sql<Row>(query: string, ...bindings: SqlValue[]): Promise<Row[]> {
    const answer: WriteAnswer = await this.object.sql(query, bindings);
    written(answer);
    return answer.rows as Row[];
  }
}

/** A write's answer as the caller sees it: nothing, or why it was rolled back. */
function written(answer: WriteAnswer): void {
  if (answer.over !== undefined)
    throw new UserStateError("full", `This user's stored state would pass its bound of ${answer.over} bytes; delete something first`);
  if (answer.error !== undefined) throw new Error(`ctx.user.sql: ${answer.error}`);
}

function checkKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_CHARS)
    throw new UserStateError("key", `A ctx.user key is a non-empty string of at most ${MAX_KEY_CHARS} characters`);
  return key;
}
