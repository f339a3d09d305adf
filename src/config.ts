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
  /** The notification hub (subscriptions/listen and notify). */
  MCP_HUB: DurableObjectNamespace<import("./objects/hub").McpHub>;
}

export interface Config {
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  inputStateTtlSeconds: number;
  stateSecret?: string;
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
  };
  cached = { env, config };
  return config;
}
