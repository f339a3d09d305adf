/**
 * Settings from wrangler.toml [vars] and secrets, read once per isolate.
 * Every setting has a safe default; the README lists them. A leaf: it parses
 * strings and knows nothing of the objects or the lanes.
 */

export interface Vars {
  /** Comma-separated Host names (optionally host:port) the server answers; others get 403. */
  ALLOWED_HOSTS?: string;
  /** Comma-separated extra browser origins allowed besides the allowed hosts. */
  ALLOWED_ORIGINS?: string;
  /** Largest accepted request body in bytes (413 above). */
  MAX_BODY_BYTES?: string;
  /** How long a sealed requestState stays valid, in seconds. */
  INPUT_STATE_TTL_SECONDS?: string;
  /** HMAC key for requestState (`wrangler secret put MCP_STATE_SECRET`; `.dev.vars` locally). */
  MCP_STATE_SECRET?: string;
  /** The secret before the last rotation: what it sealed still opens, nothing new is sealed with it. */
  MCP_STATE_SECRET_PREVIOUS?: string;
  /** A 2025 session ends after this many idle seconds. */
  SESSION_IDLE_SECONDS?: string;
  /** The longest a 2025 session lives, in seconds, however busy: its sealed id stops opening then. */
  SESSION_MAX_SECONDS?: string;
  /**
   * 2025 sessions holding state (a stream, a log level, a subscription, a task, a waiting call) that one
   * client (a principal; anonymous: an address) may have at once; the next one's first stateful step is 429,
   * or, for a call that would only stream progress or logs, a plain JSON answer without them (docs/sessions.md).
   */
  SESSION_MAX_LIVE?: string;
  /** How long a server-to-client request (elicitation, sampling, roots) may wait for its answer. */
  PENDING_REQUEST_SECONDS?: string;
  /** Per-stream event log caps for Last-Event-ID replay. */
  EVENT_LOG_MAX_EVENTS?: string;
  EVENT_LOG_MAX_BYTES?: string;
  /** How long a finished POST stream (or a replaced GET stream) can still be replayed. */
  STREAM_REPLAY_SECONDS?: string;
  /** Per session: the UTF-8 bytes the logs of finished streams may keep for replay; the oldest go first. */
  CLOSED_LOG_MAX_BYTES?: string;
  /** Authorization: "none" (default), "token" (static bearer token) or "jwt" (OAuth access tokens). */
  AUTH_MODE?: string;
  /** "token" mode: the one accepted bearer token (a secret). */
  MCP_AUTH_TOKEN?: string;
  /** "jwt" mode: the authorization server (token issuer) and where its keys are. */
  AUTH_ISSUER?: string;
  AUTH_JWKS_URL?: string;
  /** "jwt" mode: the keys inline, as a JWKS JSON document (instead of AUTH_JWKS_URL). */
  AUTH_JWKS?: string;
  /**
   * Other audiences a token may name instead of this server's canonical URI (https://host/mcp,
   * always accepted), space- or comma-separated: the name your authorization server gives this
   * server, or the client id it writes into `aud` when a client sends no `resource`.
   */
  AUTH_AUDIENCE?: string;
  /** Space-separated scopes every request needs. */
  AUTH_SCOPES?: string;
  /** Limits against hostile input (see docs/security.md). */
  MAX_JSON_DEPTH?: string;
  MAX_HEADER_BYTES?: string;
  MAX_STREAMS_PER_SESSION?: string;
  MAX_PENDING_PER_SESSION?: string;
  /** One JSON log line per request: "all" (default), "errors" (failed requests only) or "off". */
  LOG_REQUESTS?: string;
  /** One OpenTelemetry span per MCP operation (docs/tracing.md): on unless "off". */
  TRACING?: string;
  /** "on": refuse the request shapes hosted clients send that the spec does not allow (src/engine/http/quirks.ts); served by default. */
  STRICT_HEADERS?: string;
  MAX_SUBSCRIPTIONS_PER_SESSION?: string;
  /** Tasks: how long a task and its result are kept when the tool names no ttl, and the most any may ask. */
  TASK_TTL_SECONDS?: string;
  TASK_MAX_TTL_SECONDS?: string;
  /** Tasks not yet finished that one owner (a principal; anonymous: a session or a client address) may have. */
  MAX_TASKS_IN_FLIGHT?: string;
  /**
   * Tasks one owner may keep, finished or not, and the UTF-8 bytes their objects may hold together;
   * over either a new task is refused (finished tasks are kept until their ttl ends).
   */
  MAX_TASKS_RETAINED?: string;
  MAX_TASK_BYTES_RETAINED?: string;
  /** Largest task result kept, in UTF-8 bytes of its JSON; a larger one fails the task. */
  TASK_MAX_RESULT_BYTES?: string;
  /** A task run that has not finished after this many seconds is started again if its isolate died. */
  TASK_LEASE_SECONDS?: string;
  /** How many hub Durable Objects notifications fan out through (docs/scale.md). */
  HUB_SHARDS?: string;
  /** Open `subscriptions/listen` streams one client (a principal; anonymous: an address) may hold. */
  MAX_LISTEN_STREAMS?: string;
  /** UTF-8 bytes of listen filters one client's open streams may hold together. */
  MAX_LISTEN_FILTER_BYTES?: string;
  /** Open `events/stream` streams one client may hold: their own bound, apart from MAX_LISTEN_STREAMS. */
  MAX_EVENT_STREAMS?: string;
  /**
   * "on" under `npm run dev` only (scripts/dev.mjs passes it; never set it in wrangler.toml): a tool's
   * exception is also printed as a plain stack, which wrangler maps to src/, and a definition
   * mistake is named in the answer instead of a bare "Internal error".
   */
  MCP_DEV?: string;
  /**
   * Set by `npm run dev` only (scripts/dev.mjs; never in wrangler.toml, and `npm run deploy` refuses
   * it): the key of the dev tokens `npm run token` mints, accepted beside AUTH_MODE (docs/security.md).
   */
  MCP_DEV_TOKEN_KEY?: string;
  /**
   * The official MCP Registry's HTTP proof record (`v=MCPv1; k=ed25519; p=…`), served at
   * /.well-known/mcp-registry-auth by an app with `discovery()` (docs/discovery.md). Public, not a secret.
   */
  MCP_REGISTRY_AUTH?: string;
}

export interface Config {
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  inputStateTtlSeconds: number;
  stateSecret?: string;
  stateSecretPrevious?: string;
  sessionIdleMs: number;
  sessionMaxMs: number;
  sessionMaxLive: number;
  pendingRequestMs: number;
  eventLogMaxEvents: number;
  eventLogMaxBytes: number;
  streamReplayMs: number;
  closedLogMaxBytes: number;
  auth: AuthConfig;
  /** MCP_DEV_TOKEN_KEY: under `npm run dev`, the key dev tokens are signed with. */
  devTokenKey?: string;
  maxJsonDepth: number;
  maxHeaderBytes: number;
  maxStreamsPerSession: number;
  maxPendingPerSession: number;
  logRequests: "off" | "errors" | "all";
  tracing: boolean;
  /** STRICT_HEADERS=on: refuse the hosted clients' header quirks (http/quirks.ts) instead of serving them. */
  strictHeaders: boolean;
  maxSubscriptionsPerSession: number;
  taskTtlMs: number;
  taskMaxTtlMs: number;
  maxTasksInFlight: number;
  maxTasksRetained: number;
  maxTaskBytesRetained: number;
  taskMaxResultBytes: number;
  taskLeaseMs: number;
  hubShards: number;
  maxListenStreams: number;
  maxEventStreams: number;
  maxListenFilterBytes: number;
}

export type AuthConfig =
  | { mode: "none" }
  | { mode: "token"; token: string; scopes: string[] }
  | { mode: "jwt"; issuer: string; jwksUrl?: string; jwks?: string; audiences: string[]; scopes: string[] };

function readAuth(env: Vars): AuthConfig {
  const mode = (env.AUTH_MODE ?? "").trim().toLowerCase() || "none";
  const scopes = (env.AUTH_SCOPES ?? "").split(/\s+/).filter(Boolean);
  if (mode === "none") return { mode };
  if (mode === "token") {
    if (!env.MCP_AUTH_TOKEN) throw new Error("AUTH_MODE=token needs the secret MCP_AUTH_TOKEN (wrangler secret put MCP_AUTH_TOKEN)");
    return { mode, token: env.MCP_AUTH_TOKEN, scopes };
  }
  if (mode === "jwt") {
    if (!env.AUTH_ISSUER || !(env.AUTH_JWKS_URL || env.AUTH_JWKS))
      throw new Error("AUTH_MODE=jwt needs AUTH_ISSUER and AUTH_JWKS_URL (or AUTH_JWKS)");
    const audiences = (env.AUTH_AUDIENCE ?? "").split(/[\s,]+/).filter(Boolean);
    return { mode, issuer: env.AUTH_ISSUER, jwksUrl: env.AUTH_JWKS_URL, jwks: env.AUTH_JWKS, audiences, scopes };
  }
  throw new Error(`AUTH_MODE must be none, token or jwt, got "${env.AUTH_MODE}"`);
}

/**
 * Loopback names for `wrangler dev`, and workers.dev for the first deploy. A Host header carries the
 * name the browser looked up; names under workers.dev resolve only to Cloudflare, so a DNS-rebinding
 * page cannot aim one at a server on your machine.
 */
const DEFAULT_HOSTS = ["localhost", "127.0.0.1", "[::1]", "*.workers.dev"];

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function logVolume(value: string | undefined): Config["logRequests"] {
  const v = (value ?? "all").trim().toLowerCase() || "all";
  if (v === "all" || v === "errors" || v === "off") return v;
  throw new Error(`LOG_REQUESTS must be all, errors or off, got "${value}"`);
}

/** A positive integer setting, `fallback` when unset; the name is read once, as the key and in the error. */
function positiveInt(env: Vars, name: keyof Vars, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/**
 * Every publish is one call per hub shard from the publishing invocation, which has other calls to
 * make and a per-invocation subrequest budget (10,000 on the Paid plan): the count stays well below it.
 */
export const MAX_HUB_SHARDS = 1000;

function hubShards(env: Vars): number {
  const n = positiveInt(env, "HUB_SHARDS", 8);
  if (n > MAX_HUB_SHARDS) throw new Error(`HUB_SHARDS must be at most ${MAX_HUB_SHARDS}, got "${env.HUB_SHARDS}"`);
  return n;
}

let cached: { env: Vars; config: Config } | undefined;

export function readConfig(env: Vars): Config {
  if (cached?.env === env) return cached.config;
  const hosts = list(env.ALLOWED_HOSTS);
  const config: Config = {
    allowedHosts: hosts.length > 0 ? hosts : DEFAULT_HOSTS,
    allowedOrigins: list(env.ALLOWED_ORIGINS),
    maxBodyBytes: positiveInt(env, "MAX_BODY_BYTES", 1024 * 1024),
    inputStateTtlSeconds: positiveInt(env, "INPUT_STATE_TTL_SECONDS", 600),
    stateSecret: env.MCP_STATE_SECRET || undefined,
    stateSecretPrevious: env.MCP_STATE_SECRET_PREVIOUS || undefined,
    sessionIdleMs: positiveInt(env, "SESSION_IDLE_SECONDS", 3600) * 1000,
    // A week: a session in use all day must not end under a client that never initializes again.
    sessionMaxMs: positiveInt(env, "SESSION_MAX_SECONDS", 7 * 86_400) * 1000,
    // Above what the fastest-churning hosted client keeps within the default idle hour (about 3 new
    // sessions a minute), were every one of its sessions to hold state.
    sessionMaxLive: positiveInt(env, "SESSION_MAX_LIVE", 200),
    pendingRequestMs: positiveInt(env, "PENDING_REQUEST_SECONDS", 600) * 1000,
    eventLogMaxEvents: positiveInt(env, "EVENT_LOG_MAX_EVENTS", 10_000),
    eventLogMaxBytes: positiveInt(env, "EVENT_LOG_MAX_BYTES", 4 * 1024 * 1024),
    streamReplayMs: positiveInt(env, "STREAM_REPLAY_SECONDS", 300) * 1000,
    // Two full per-stream logs: the last finished streams stay replayable, and a session's finished
    // streams never hold more than this however many it runs inside one replay window.
    closedLogMaxBytes: positiveInt(env, "CLOSED_LOG_MAX_BYTES", 8 * 1024 * 1024),
    auth: readAuth(env),
    devTokenKey: env.MCP_DEV_TOKEN_KEY || undefined,
    maxJsonDepth: positiveInt(env, "MAX_JSON_DEPTH", 64),
    maxHeaderBytes: positiveInt(env, "MAX_HEADER_BYTES", 8192),
    maxStreamsPerSession: positiveInt(env, "MAX_STREAMS_PER_SESSION", 16),
    maxPendingPerSession: positiveInt(env, "MAX_PENDING_PER_SESSION", 32),
    logRequests: logVolume(env.LOG_REQUESTS),
    tracing: env.TRACING?.trim().toLowerCase() !== "off",
    strictHeaders: env.STRICT_HEADERS?.trim().toLowerCase() === "on",
    maxSubscriptionsPerSession: positiveInt(env, "MAX_SUBSCRIPTIONS_PER_SESSION", 256),
    taskTtlMs: positiveInt(env, "TASK_TTL_SECONDS", 3600) * 1000,
    taskMaxTtlMs: positiveInt(env, "TASK_MAX_TTL_SECONDS", 86_400) * 1000,
    maxTasksInFlight: positiveInt(env, "MAX_TASKS_IN_FLIGHT", 16),
    maxTasksRetained: positiveInt(env, "MAX_TASKS_RETAINED", 1000),
    // 64 results of the largest size, or many more smaller ones: a bound on what one owner can make the server keep.
    maxTaskBytesRetained: positiveInt(env, "MAX_TASK_BYTES_RETAINED", 64 * 1024 * 1024),
    // A Durable Object's SQLite row holds at most 2 MB; half of that leaves room for the rest of the task.
    taskMaxResultBytes: positiveInt(env, "TASK_MAX_RESULT_BYTES", 1024 * 1024),
    taskLeaseMs: positiveInt(env, "TASK_LEASE_SECONDS", 60) * 1000,
    hubShards: hubShards(env),
    maxListenStreams: positiveInt(env, "MAX_LISTEN_STREAMS", 16),
    // One filter at the listen caps (256 URIs of 2 KiB, 256 task ids) is about 580 KiB: it fits.
    maxListenFilterBytes: positiveInt(env, "MAX_LISTEN_FILTER_BYTES", 1024 * 1024),
    // events/stream is exempt from the cap on listen streams (the Events extension's MUST), so it has its own.
    maxEventStreams: positiveInt(env, "MAX_EVENT_STREAMS", 16),
  };
  cached = { env, config };
  return config;
}
