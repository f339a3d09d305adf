/**
 * What `mountServer` takes (docs/mount.md), and the names it serves an upstream's lists under: the
 * options and the constants every part of the mount folder reads.
 */
import type { AuthProvider } from "../client/client";
import type { Protocol } from "../client/era";
import type { MountedList } from "../mcp/mounts";

export interface MountOptions<Env = any> {
  /**
   * Mounted tools and prompts are named `<prefix>_<name>`, resources `<prefix>+<uri>`: a letter, then
   * letters, digits, `-` and `.` (no `_`, so names stay unambiguous), at most 32.
   */
  prefix: string;
  /**
   * Where the upstream's MCP endpoint is: a URL, or a function of `env` giving a URL (kept in a var or
   * a secret) or a service binding to another Worker (`(env) => env.NOTES_MCP`; its `/mcp` is called).
   */
  url: string | ((env: Env) => string | Fetcher);
  /**
   * Headers for every request to the upstream, from `env` (a token kept in a secret:
   * `(env) => ({ Authorization: \`Bearer ${env.EX_TOKEN}\` })`). None by default; the caller's own
   * token is never sent.
   */
  headers?: (env: Env) => Record<string, string>;
  /**
   * Credentials obtained for the upstream, made once per isolate from `env`: OAuth client credentials
   * with the issuer pinned, `(env) => new ClientCredentials({ clientId, clientSecret: env.EX_SECRET,
   * issuer })` from `./client`. None by default.
   */
  auth?: (env: Env) => AuthProvider;
  /** The scopes a call of any mounted tool needs here (docs/authorization.md). */
  scopes?: readonly string[];
  /** Scopes by the upstream tool's name, in place of `scopes` for that tool. */
  toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** How long the upstream's tool list is kept before it is asked again (default 60 000 ms; the upstream's ttlMs when shorter). */
  listTtlMs?: number;
  /** With a service binding: the URL the upstream Worker is called at (default `http://localhost/mcp`), for its host check. */
  serviceUrl?: string;
  /** Which revision to speak upstream: `auto` (the default) tries 2026-07-28 and falls back to 2025-11-25. */
  protocol?: Protocol;
  /** How long a call may wait on the upstream without an answer or progress (default 60 000 ms). */
  timeoutMs?: number;
}

export const PREFIX = /^[A-Za-z][A-Za-z0-9.-]{0,31}$/;

/** The request that lists each kind. */
export const LIST_METHOD: Record<MountedList, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};

/** The notification each list's change is, upstream and here. */
export const CHANGED: Record<MountedList, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed",
  resourceTemplates: "notifications/resources/list_changed",
};

/** The lists an upstream's list-changed notification makes stale. */
export const STALE: Record<string, MountedList[]> = {
  "notifications/tools/list_changed": ["tools"],
  "notifications/prompts/list_changed": ["prompts"],
  "notifications/resources/list_changed": ["resources", "resourceTemplates"],
};
