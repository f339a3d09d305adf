/**
 * Rate limits with the platform's own Rate Limiting binding: counters live at Cloudflare's edge, so
 * they cost no Durable Object and no storage. A limited request answers 429 with Retry-After.
 */
import { ErrorCode } from "../mcp/errors";
import type { RequestId } from "../mcp/jsonrpc";
import { principalClientKey } from "../objects/addresses";
import { rpcError } from "./responses";

/**
 * The binding counts over its configured period, 10 or 60 seconds, and does not say which: a client
 * told to wait 60 seconds never comes back too early.
 */
const RATE_LIMIT_RETRY_SECONDS = 60;

/**
 * The part of a client address that one client controls. An IPv6 client is normally given a whole
 * /64 and may use any address in it, so keying on the full address would give it 2^64 budgets; it
 * gets one, like an IPv4 client with its one address.
 */
function clientAddress(ip: string): string {
  if (!ip.includes(":")) return ip;
  let host: string;
  try {
    // The URL parser validates the address and writes it in its one canonical form (RFC 5952).
    host = new URL(`http://[${ip}]/`).hostname;
  } catch {
    return ip;
  }
  const [head = "", tail] = host.slice(1, -1).split("::");
  const groups = (s = "") => (s === "" ? [] : s.split(":"));
  const [left, right] = [groups(head), groups(tail)];
  // "::" stands for the zero groups that make eight; without it `left` is all eight.
  const prefix = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right].slice(0, 4);
  // ::/64 holds no client networks, only special forms that name one host (::1, IPv4-mapped ::ffff:a.b.c.d).
  return prefix.every((g) => g === "0") ? host.slice(1, -1) : `${prefix.join(":")}::/64`;
}

/** Whose budget a request spends: the authenticated principal, or the client's address (an IPv6 /64) when anonymous. */
export function rateLimitKey(request: Request, principal: string): string {
  return principal ? principalClientKey(principal) : `ip:${clientAddress(request.headers.get("CF-Connecting-IP") ?? "unknown")}`;
}

/**
 * The 429 to answer when `limiter` says this key is over its limit; null when it is not (or there is
 * no limiter). `id` is the request's, when one was read.
 */
export async function overLimit(
  limiter: RateLimit | undefined,
  key: string,
  what: string,
  binding: string,
  id: RequestId | null = null,
): Promise<Response | null> {
  if (!limiter) return null;
  const { success } = await limiter.limit({ key });
  if (success) return null;
  const message = `Too Many Requests: ${what} (${binding}); retry after ${RATE_LIMIT_RETRY_SECONDS} seconds`;
  return rpcError(id, { code: ErrorCode.InvalidRequest, message }, 429, { "Retry-After": String(RATE_LIMIT_RETRY_SECONDS) });
}
