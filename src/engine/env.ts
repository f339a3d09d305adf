/** What the engine finds in `env`: its settings (vars and secrets), its Durable Object bindings, the optional metrics dataset. */
import type { Vars } from "./config";
import type { ObjectBindings } from "./objects/contracts";

/**
 * Cloudflare Rate Limiting bindings (`[[ratelimits]]` in wrangler.toml), each optional: without the
 * binding there is no limit. Counted per principal, or per client address when anonymous.
 */
export interface RateLimitBindings {
  /** Every request to the MCP endpoint. */
  MCP_RATE_LIMIT?: RateLimit;
  /** 2025 session creation (`initialize`), on top of MCP_RATE_LIMIT. */
  MCP_SESSION_RATE_LIMIT?: RateLimit;
  /** `discovery()`'s documents (the Server Card, the catalog); unbound, MCP_RATE_LIMIT's limit counted apart. */
  MCP_DISCOVERY_RATE_LIMIT?: RateLimit;
}

export type Env = Vars &
  ObjectBindings &
  RateLimitBindings & {
    /** Optional Workers Analytics Engine dataset: one data point per request (docs/observability.md). */
    MCP_METRICS?: AnalyticsEngineDataset;
  };
