/**
 * The webhook wire: the subscriber's secret, Standard Webhooks signatures over the exact bytes sent,
 * the rules a callback URL must meet, and one POST to it (no redirects followed, a deadline, the
 * outcome as a category, never the endpoint's own words).
 */
import type { CallbackFailure } from "./errors";
import { nonGlobalHost } from "./global-address";

/** The largest body one delivery may carry (ChatGPT's limit; the SEP's is the same 256 KiB). */
export const MAX_DELIVERY_BYTES = 262_144;

/** How long a callback has to answer. */
const RESPONSE_TIMEOUT_MS = 10_000;

/** The key a `whsec_` secret holds (base64 of 24 to 64 bytes), or undefined for anything else. */
export function secretKey(secret: unknown): Uint8Array | undefined {
  if (typeof secret !== "string" || !secret.startsWith("whsec_")) return undefined;
  const b64 = secret.slice(6);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    return undefined;
  }
  if (bin.length < 24 || bin.length > 64) return undefined;
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

const base64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Imported HMAC keys by secret: a shard signs many deliveries with each; bounded, and dropped whole when full. */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
const MAX_CACHED_KEYS = 1000;

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    if (hmacKeys.size >= MAX_CACHED_KEYS) hmacKeys.clear();
    key = crypto.subtle.importKey("raw", secretKey(secret)!, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

/** `webhook-signature`: one `v1,<base64 HMAC-SHA256>` per secret (two during a rotation's grace), space-separated. */
async function signatures(secrets: readonly string[], id: string, timestamp: number, body: string): Promise<string> {
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const parts = await Promise.all(
    secrets.map(async (secret) => `v1,${base64(await crypto.subtle.sign("HMAC", await hmacKey(secret), signed))}`),
  );
  return parts.join(" ");
}

/** The loopback hosts a receiver on the developer's machine answers at, all three accepted under `npm run dev`. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** What every refusal of an address adds, so that a developer reads the exception that applies to them. */
const DEV_EXCEPTION = "under `npm run dev` (MCP_DEV=on), http or https on 127.0.0.1, localhost or [::1] is accepted (docs/events.md)";

/**
 * Why a callback URL is refused, or undefined when it may be used: https only, no credentials, and
 * no host that can reach a non-global address (global-address.ts: loopback, private, link-local,
 * unique-local, CGNAT, the IPv6 forms that carry an IPv4 address, `localhost`, `.local`, `.internal`).
 * Under `wrangler dev` (`dev`), a loopback host is accepted too, by either scheme, so a receiver on the
 * developer's machine works; a deployed Worker never has `dev` set.
 */
export function callbackRefusal(raw: unknown, dev: boolean): string | undefined {
  if (typeof raw !== "string" || raw.length > 2048) return "delivery.url must be a URL of at most 2048 characters";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "delivery.url is not a URL";
  }
  if (url.username || url.password) return "delivery.url must not carry credentials";
  const local = dev && LOOPBACK.has(url.hostname.toLowerCase());
  if (local && (url.protocol === "http:" || url.protocol === "https:")) return undefined;
  if (url.protocol !== "https:") return `delivery.url must be https; ${DEV_EXCEPTION}`;
  if (nonGlobalHost(url.hostname)) return `delivery.url names a host that can reach a non-global address; ${DEV_EXCEPTION}`;
  return undefined;
}

type PostOutcome = { ok: true; status: number; body: string } | { ok: false; status?: number; reason: CallbackFailure };

/** A random `msg_<type>_<hex>` id for a control envelope (verification, terminated). */
export const controlId = (type: string) =>
  `msg_${type}_${[...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * POSTs one signed body. A redirect is not followed (a 3xx is a failure of its own); the answer is
 * read only for a control envelope that expects one, and at most 4 KiB of it.
 */
export async function postSigned(
  url: string,
  body: string,
  headers: { id: string; subscriptionId: string; secrets: readonly string[] },
  readBody = false,
): Promise<PostOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await signatures(headers.secrets, headers.id, timestamp, body);
  let res: Response;
  // A timer cleared once the answer is in: a pending one would keep the object awake (and billed) after the send.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException("The callback did not answer in time", "TimeoutError")),
    RESPONSE_TIMEOUT_MS,
  );
  try {
    res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: deadline.signal,
      headers: {
        "Content-Type": "application/json",
        "webhook-id": headers.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
        "X-MCP-Subscription-Id": headers.subscriptionId,
      },
      body,
    });
  } catch (err) {
    const name = (err as Error)?.name;
    const text = String((err as Error)?.message ?? "");
    return {
      ok: false,
      reason:
        deadline.signal.aborted || name === "TimeoutError"
          ? "timeout"
          : /tls|ssl|certificate/i.test(text)
            ? "tls_error"
            : "connection_refused",
    };
  } finally {
    clearTimeout(timer);
  }
  if (res.status >= 200 && res.status < 300) {
    const text = readBody ? (await res.text()).slice(0, 4096) : "";
    if (!readBody) await res.body?.cancel();
    return { ok: true, status: res.status, body: text };
  }
  await res.body?.cancel();
  return { ok: false, status: res.status, reason: res.status >= 500 ? "http_5xx" : res.status >= 400 ? "http_4xx" : "challenge_failed" };
}

/** Constant-time comparison of the echoed challenge. */
export function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
