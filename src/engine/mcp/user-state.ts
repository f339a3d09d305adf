/**
 * `ctx.user` as the core sees it (docs/state.md): the shape of a caller's own store, and the opt-in
 * value `defineApp({ userState })` holds. The store itself (a Durable Object per principal) is the
 * runtime's, in src/engine/user/, which the value brings: an app without `userState` carries
 * none of it, and this file holds only types.
 */
/** A value a column of a user's own tables holds. */
export type SqlValue = string | number | null | ArrayBuffer;

/** One entry of `ctx.user.list()`. */
export interface UserEntry<T = unknown> {
  key: string;
  value: T;
}

export interface UserListOptions {
  /** Only keys that start with it. */
  prefix?: string;
  /** Only keys after this one (the last key of the page before), for paging. */
  after?: string;
  /** At most this many entries (default 100, at most 1000). */
  limit?: number;
}

/**
 * The caller's own durable storage: a Durable Object of that principal's alone, which nothing else
 * reads. Nothing is stored (and nothing costs storage) until the first write.
 */
export interface UserStore {
  /** The JSON value kept at `key`, or undefined. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Keeps a JSON value at `key` (replacing any). A ToolError when the caller's state would pass its bound. */
  put(key: string, value: unknown): Promise<void>;
  /** Removes `key`; true when there was a value. */
  delete(key: string): Promise<boolean>;
  /** Entries in key order. */
  list<T = unknown>(options?: UserListOptions): Promise<UserEntry<T>[]>;
  /**
   * One SQL statement (or several, `;`-separated; the rows are the last one's) against the caller's own
   * tables, which the app's `migrations` create. `?` placeholders take `bindings`.
   */
  sql<Row extends Record<string, SqlValue> = Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]): Promise<Row[]>;
}

/** What `userState(...)` (src/engine/user/) gives `defineApp({ userState })`. */
export interface UserState {
  /**
   * The caller's store for this request's bindings; the runtime's, so an app without it carries none.
   * An anonymous caller (no principal) has none: it throws a UserStateError (a tool error), no store is shared.
   */
  open(env: unknown, principal: string | undefined): UserStore;
  /** Its Durable Object class (bound as MCP_USER), for `createMcpWorker` to hand out. */
  objectClass: unknown;
}
