/**
 * Per-user state (docs/state.md): `userState({ migrations })` gives `defineApp({ userState })` and
 * brings the Durable Object each principal's state lives in (object.ts), so an app without it
 * carries none of this. `userStore(env, principal)` is the same store for the app's own routes, and
 * `forgetUser(env, principal)` erases a principal's state.
 */
import { ErrorCode, McpError, ToolError } from "../mcp/errors";
import type { SqlValue, UserEntry, UserListOptions, UserState, UserStore } from "../mcp/user-state";
import type { UserRpc, WriteAnswer } from "./contract";
import { configureUserObjects, DEFAULT_MAX_BYTES, McpUser, type UserStateOptions } from "./object";

export type { UserStateOptions };

/** What per-user state reads of the Worker's bindings (any env: one without MCP_USER gets a clear error). */
type UserStateEnv = { MCP_USER?: DurableObjectNamespace<any> };

/** A key is a non-empty string of at most this many characters. */
const MAX_KEY_CHARS = 512;
/** One value's JSON, at most (SQLite in a Durable Object keeps a value of up to 2 MB). */
const MAX_VALUE_CHARS = 1_048_576; // 1 MiB, as a literal (see DEFAULT_MAX_BYTES)
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

/**
 * Each authenticated caller's own durable storage, `ctx.user` (docs/state.md). Bind its object as
 * MCP_USER (class McpUser, a SQLite class) in wrangler.toml and export `McpUser` from the Worker entry.
 */
export function userState(options: UserStateOptions = {}): UserState {
  if (options.migrations && !options.migrations.every((m) => typeof m === "string" && m.trim()))
    throw new Error("userState: every migration is a SQL script (a non-empty string)");
  if (options.maxBytes !== undefined && !(Number.isSafeInteger(options.maxBytes) && options.maxBytes > 0))
    throw new Error("userState: maxBytes is a positive whole number of bytes");
  const { maxBytes } = configureUserObjects(options);
  return {
    open(env, principal) {
      if (!principal)
        throw new McpError(
          ErrorCode.InvalidRequest,
          "This operation keeps state per user, and the caller is anonymous: it needs an authenticated caller (docs/state.md)",
        );
      return storeOf(env as object, principal, maxBytes);
    },
    objectClass: McpUser,
  };
}

/** A principal's store outside a handler (your own routes, a webhook): the one `ctx.user` is for that principal. */
export const userStore = (env: object, principal: string): UserStore => storeOf(env, principal, DEFAULT_MAX_BYTES);

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

function storeOf(env: object, principal: string, maxBytes: number): UserStore {
  let stub: DurableObjectStub<UserRpc> | undefined;
  const object = () => (stub ??= objectOf(env, principal));
  const written = (answer: WriteAnswer) => {
    if (answer.over !== undefined)
      throw new ToolError(`This user's stored state would pass its bound of ${answer.over} bytes; delete something first`);
    if (answer.error !== undefined) throw new Error(`ctx.user.sql: ${answer.error}`);
  };
  return {
    async get<T>(key: string) {
      const json = await object().get(checkKey(key));
      return json === null ? undefined : (JSON.parse(json) as T);
    },
    async put(key, value) {
      checkKey(key);
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError("ctx.user.put: the value is not JSON (undefined, a function or a symbol)");
      if (json.length > Math.min(MAX_VALUE_CHARS, maxBytes))
        throw new ToolError(
          `A stored value is at most ${Math.min(MAX_VALUE_CHARS, maxBytes)} characters of JSON; this one has ${json.length}`,
        );
      written(await object().put(key, json));
    },
    delete: async (key) => object().delete(checkKey(key)),
    async list<T>(options: UserListOptions = {}) {
      const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
      const rows = await object().list(options.prefix ?? "", options.after ?? "", Number.isFinite(limit) ? limit : DEFAULT_LIST_LIMIT);
      return rows.map((row): UserEntry<T> => ({ key: row.key, value: JSON.parse(row.value) as T }));
    },
    async sql<Row>(query: string, ...bindings: SqlValue[]) {
      const answer: WriteAnswer = await object().sql(query, bindings);
      written(answer);
      return answer.rows as Row[];
    },
  };
}

function checkKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_CHARS)
    throw new TypeError(`A ctx.user key is a non-empty string of at most ${MAX_KEY_CHARS} characters`);
  return key;
}
