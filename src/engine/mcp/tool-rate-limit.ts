/**
 * Per-tool rate limits as a policy (docs/authorization.md): each caller's calls of each tool counted
 * on the platform's Rate Limiting binding (counters at Cloudflare's edge: no Durable Object, no
 * storage). Over the limit, the call is a tool result with `isError` that tells the model when to
 * retry, not an HTTP 429 that would end the client's turn. Only an app that uses it carries it.
 */
import type { Middleware } from "./app";
import { defineMiddleware } from "./middleware";

export interface ToolRateLimitOptions {
  /**
   * The binding's period in seconds (10 or 60, as its `simple.period` in wrangler.toml): the model is
   * told to retry after it, since the binding does not say how much of it is left.
   */
  periodSeconds?: number;
  /** Only these tools count; by default every tool does, each with its own budget. */
  tools?: readonly string[];
}

/**
 * A policy that spends `limiter(env)`'s budget per caller and tool: the caller's rate-limit key, as
 * the request rate limit counts it (its principal; when anonymous, its address, an IPv6 /64), so one
 * anonymous client cannot spend another's. Without the binding (unbound in a test) calls pass.
 */
export function toolRateLimit(limiter: (env: any) => RateLimit | undefined, options: ToolRateLimitOptions = {}): Middleware {
  const period = options.periodSeconds ?? 60;
  return defineMiddleware(async (op, next) => {
    // A task's runs were counted once, as the call that made the task (with its caller's auth).
    if (op.method !== "tools/call" || op.ctx.task || (options.tools && !options.tools.includes(op.name!))) return next();
    const binding = limiter(op.ctx.env);
    if (!binding) return next();
    const { success } = await binding.limit({ key: `${op.caller.rateLimitKey}\n${op.name}` });
    if (success) return next();
    return {
      content: [{ type: "text", text: `Rate limit reached for the tool ${op.name}: try again in ${period} seconds.` }],
      isError: true,
      _meta: { retryAfterSeconds: period },
    };
  });
}
