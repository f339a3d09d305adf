/**
 * Rate limits with the platform's own Rate Limiting binding: counters live at Cloudflare's edge, so
 * they cost no Durable Object and no storage. A limited request answers 429 with Retry-After.
 */
import { ErrorCode } from "../mcp/errors";
import { reject } from "./responses";

/**
 * The binding counts over its configured period, 10 or 60 seconds, and does not say which: a client
 * told to wait 60 seconds never comes back too early.
 */
export const RATE_LIMIT_RETRY_SECONDS = 60;

/** Whose budget a request spends: the authenticated principal, or the client's address when anonymous. */
export function rateLimitKey(request: Request, principal: string): string {
  return principal ? `principal:${principal}` : `ip:${request.headers.get("CF-Connecting-IP") ?? "unknown"}`;
}

/** The 429 to answer when `limiter` says this key is over its limit; null when it is not (or there is no limiter). */
export async function overLimit(limiter: RateLimit | undefined, key: string, what: string, binding: string): Promise<Response | null> {
  if (!limiter) return null;
  const { success } = await limiter.limit({ key });
  if (success) return null;
  return reject(429, ErrorCode.InvalidRequest, `Too Many Requests: ${what} (${binding}); retry after ${RATE_LIMIT_RETRY_SECONDS} seconds`, {
    "Retry-After": String(RATE_LIMIT_RETRY_SECONDS),
  });
}
