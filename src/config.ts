/**
 * Settings from wrangler.toml [vars] and secrets, read once per isolate.
 * Every setting has a safe default; the README lists them.
 */

export interface Env {
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
  /** A 2025 session ends after this many idle seconds. */
  SESSION_IDLE_SECONDS?: string;
  /** How long a server-to-client request (elicitation, sampling, roots) may wait for its answer. */
  PENDING_REQUEST_SECONDS?: string;
  /** Per-stream event log caps for Last-Event-ID replay. */
  EVENT_LOG_MAX_EVENTS?: string;
  EVENT_LOG_MAX_BYTES?: string;
  /** How long a finished POST stream can still be replayed. */
  STREAM_REPLAY_SECONDS?: string;
  /** 2025 sessions, one Durable Object each. */
  MCP_SESSION: DurableObjectNamespace<import("./objects/session").SessionObject>;
  /** The notification hub (subscriptions/listen and notify). */
  MCP_HUB: DurableObjectNamespace<import("./objects/hub").McpHub>;
}

export interface Config {
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  inputStateTtlSeconds: number;
  stateSecret?: string;
  sessionIdleMs: number;
  pendingRequestMs: number;
  eventLogMaxEvents: number;
  eventLogMaxBytes: number;
  streamReplayMs: number;
}

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

let cached: { env: Env; config: Config } | undefined;

export function readConfig(env: Env): Config {
  if (cached?.env === env) return cached.config;
  const hosts = list(env.ALLOWED_HOSTS);
  const config: Config = {
    allowedHosts: hosts.length > 0 ? hosts : LOCAL_HOSTS,
    allowedOrigins: list(env.ALLOWED_ORIGINS),
    maxBodyBytes: positiveInt(env.MAX_BODY_BYTES, 1024 * 1024, "MAX_BODY_BYTES"),
    inputStateTtlSeconds: positiveInt(env.INPUT_STATE_TTL_SECONDS, 600, "INPUT_STATE_TTL_SECONDS"),
    stateSecret: env.MCP_STATE_SECRET || undefined,
    sessionIdleMs: positiveInt(env.SESSION_IDLE_SECONDS, 3600, "SESSION_IDLE_SECONDS") * 1000,
    pendingRequestMs: positiveInt(env.PENDING_REQUEST_SECONDS, 600, "PENDING_REQUEST_SECONDS") * 1000,
    eventLogMaxEvents: positiveInt(env.EVENT_LOG_MAX_EVENTS, 10_000, "EVENT_LOG_MAX_EVENTS"),
    eventLogMaxBytes: positiveInt(env.EVENT_LOG_MAX_BYTES, 4 * 1024 * 1024, "EVENT_LOG_MAX_BYTES"),
    streamReplayMs: positiveInt(env.STREAM_REPLAY_SECONDS, 300, "STREAM_REPLAY_SECONDS") * 1000,
  };
  cached = { env, config };
  return config;
}
