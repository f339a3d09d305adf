/**
 * The receiving end of MCP Events webhooks, for a Worker route that consumes another server's
 * events: it checks a delivery the way the Standard Webhooks scheme asks (an HMAC-SHA256 signature
 * over `webhook-id.webhook-timestamp.body`, the exact bytes received, a timestamp within five
 * minutes), answers the server's callback verification handshake, and drops a delivery it already
 * took (de-duplicated on what is signed: `webhook-id` and the body). Web APIs only; no server code. It comes
 * with `./client/events` and nowhere else.
 */
import { readCapped } from "../mcp/read-capped";
import type { EventOccurrence } from "./event-types";

/** A secret (`whsec_…`), several (while you rotate one), or a lookup by request and subscription id. */
export type ReceiverSecret =
  | string
  | readonly string[]
  | ((
      request: Request,
      subscriptionId: string | undefined,
    ) => string | readonly string[] | undefined | Promise<string | readonly string[] | undefined>);

/** Where the receiver remembers the deliveries it took; a KV namespace or a Durable Object can stand behind it. */
export interface DeliveryLog {
  has(key: string): boolean | Promise<boolean>;
  add(key: string): void | Promise<void>;
}

export interface WebhookReceiverOptions {
  /**
   * The secret you gave in `events/subscribe`. The handshake arrives before you know the
   * subscription's id, so a lookup should go by the request (a key of your own in the callback URL's
   * path) rather than by `X-MCP-Subscription-Id` alone.
   */
  secret: ReceiverSecret;
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The largest body accepted, in bytes (default 262,144: the most a server sends). */
  maxBytes?: number;
}

/** What a verified request holds. */
export type VerifiedDelivery =
  | { type: "event"; event: EventOccurrence; webhookId: string; subscriptionId?: string; timestamp: number }
  | { type: "verification"; challenge: string; webhookId: string; subscriptionId?: string; timestamp: number }
  | { type: "control"; envelope: { type: string; [key: string]: unknown }; webhookId: string; subscriptionId?: string; timestamp: number };

type Refusal = "too_large" | "missing_headers" | "bad_timestamp" | "stale" | "no_secret" | "bad_signature" | "bad_body";

/** Why a request was not accepted as a delivery; `status` is the HTTP answer a handler gives for it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    message: string,
    readonly reason: Refusal,
  ) {
    super(message);
  }
  get status(): number {
    return this.reason === "too_large"
      ? 413
      : this.reason === "bad_body" || this.reason === "missing_headers" || this.reason === "bad_timestamp"
        ? 400
        : 401;
  }
}

const DEFAULT_MAX_BYTES = 262_144;
const DEFAULT_TOLERANCE_S = 300;

/** The request's body as text, refused once it passes `max` bytes (never read whole first). */
async function boundedText(request: Request, max: number): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > max) throw new WebhookVerificationError(`The body is larger than ${max} bytes`, "too_large");
  if (!request.body) return "";
  const bytes = await readCapped(request.body, max);
  if (bytes === null) throw new WebhookVerificationError(`The body is larger than ${max} bytes`, "too_large");
  return new TextDecoder().decode(bytes);
}

const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};

/** The HMAC key of a `whsec_` secret (a bare base64 secret is read the same way, as Standard Webhooks libraries do). */
async function hmacKey(secret: string): Promise<CryptoKey | undefined> {
  const raw = fromBase64(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  if (!raw || raw.byteLength === 0) return undefined;
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/** Whether one of the `v1,` signatures verifies with one of the secrets (each compared by WebCrypto, in constant time). */
async function signedBy(secrets: readonly string[], header: string, signed: Uint8Array): Promise<boolean> {
  const signatures = header
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => fromBase64(s.slice(3)))
    .filter((s): s is Uint8Array => s !== undefined);
  for (const secret of secrets) {
    const key = await hmacKey(secret);
    if (!key) continue;
    for (const signature of signatures) if (await crypto.subtle.verify("HMAC", key, signature, signed)) return true;
  }
  return false;
}

/**
 * Verifies one request as a signed delivery and reads it: an event, the verification handshake,
 * or another control envelope (`terminated`, `gap`). Throws WebhookVerificationError for anything
 * that is not signed with your secret within the time tolerance, or is not a delivery's body.
 */
export async function verifyWebhook(request: Request, options: WebhookReceiverOptions): Promise<VerifiedDelivery> {
  const body = await boundedText(request, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const webhookId = request.headers.get("webhook-id");
  const stamp = request.headers.get("webhook-timestamp");
  const signature = request.headers.get("webhook-signature");
  if (!webhookId || !stamp || !signature)
    throw new WebhookVerificationError("webhook-id, webhook-timestamp and webhook-signature are required", "missing_headers");
  if (!/^\d{1,12}$/.test(stamp)) throw new WebhookVerificationError("webhook-timestamp is not a Unix time in seconds", "bad_timestamp");
  const timestamp = Number(stamp);
  // Too old is a replay; too far ahead is one prepared for later. Both are refused.
  if (Math.abs(Date.now() / 1000 - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_S))
    throw new WebhookVerificationError("webhook-timestamp is outside the tolerance", "stale");
  const subscriptionId = request.headers.get("x-mcp-subscription-id") ?? undefined;
  const found = typeof options.secret === "function" ? await options.secret(request, subscriptionId) : options.secret;
  const secrets = found === undefined ? [] : typeof found === "string" ? [found] : found;
  if (secrets.length === 0) throw new WebhookVerificationError("No secret for this delivery", "no_secret");
  if (!(await signedBy(secrets, signature, new TextEncoder().encode(`${webhookId}.${stamp}.${body}`))))
    throw new WebhookVerificationError("No signature matches the secret", "bad_signature");

  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError("The body is not JSON", "bad_body");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new WebhookVerificationError("The body is not a JSON object", "bad_body");
  const common = { webhookId, timestamp, ...(subscriptionId !== undefined ? { subscriptionId } : {}) };
  const message = json as Record<string, unknown>;
  // A top-level `type` marks a control envelope; an event keeps its fields under `data`.
  if (message.type === "verification") {
    if (typeof message.challenge !== "string") throw new WebhookVerificationError("The verification has no challenge", "bad_body");
    return { type: "verification", challenge: message.challenge, ...common };
  }
  if (typeof message.type === "string") return { type: "control", envelope: message as { type: string }, ...common };
  if (typeof message.eventId !== "string" || typeof message.name !== "string" || typeof message.data !== "object" || message.data === null)
    throw new WebhookVerificationError("The body is neither an event nor a control envelope", "bad_body");
  return { type: "event", event: message as unknown as EventOccurrence, ...common };
}

/** The deliveries one isolate took, the latest `max` of them: the default log, enough against quick retries. */
export class MemoryDeliveryLog implements DeliveryLog {
  private readonly keys = new Set<string>();
  constructor(private readonly max = 10_000) {}
  has(key: string): boolean {
    return this.keys.has(key);
  }
  add(key: string): void {
    this.keys.add(key);
    // A Set iterates in insertion order: the first key is the oldest.
    if (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value!);
  }
}

export interface WebhookHandlerOptions extends WebhookReceiverOptions {
  /** Takes one event; store it durably before returning. A throw answers 500, and the server retries. */
  onEvent: (event: EventOccurrence, delivery: Extract<VerifiedDelivery, { type: "event" }>) => void | Promise<void>;
  /** A `terminated` or `gap` envelope (and any other control the server sends). */
  onControl?: (delivery: Extract<VerifiedDelivery, { type: "control" }>) => void | Promise<void>;
  /** Deliveries already taken, by `webhook-id` and a digest of the body, what is signed (default: in memory, per isolate). */
  seen?: DeliveryLog;
}

/** A taken delivery's key in the log: its `webhook-id` and the SHA-256 of its event, both signed. */
async function signedKey(delivery: Extract<VerifiedDelivery, { type: "event" }>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(delivery.event)));
  return `${delivery.webhookId} ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}

/**
 * A Worker route's handler for one callback URL: verifies each request, echoes the handshake's
 * challenge, hands each new event to `onEvent` once (a retry of one already taken is acknowledged
 * without calling it again), and answers what the sender expects: 2xx taken, 4xx refused, 500 retry.
 */
export function webhookHandler(options: WebhookHandlerOptions): (request: Request) => Promise<Response> {
  const seen = options.seen ?? new MemoryDeliveryLog();
  return async (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { Allow: "POST" } });
    let delivery: VerifiedDelivery;
    try {
      delivery = await verifyWebhook(request, options);
    } catch (err) {
      if (err instanceof WebhookVerificationError) return new Response(err.message, { status: err.status });
      throw err;
    }
    if (delivery.type === "verification") return Response.json({ challenge: delivery.challenge });
    try {
      if (delivery.type === "control") await options.onControl?.(delivery);
      else {
        // The key is what the signature covers (webhook-id and body), never X-MCP-Subscription-Id, which
        // it does not: one captured delivery sent again under other headers is the same delivery.
        const key = await signedKey(delivery);
        if (await seen.has(key)) return new Response(null, { status: 204 });
        await options.onEvent(delivery.event, delivery);
        await seen.add(key);
      }
    } catch {
      return new Response("The delivery could not be taken", { status: 500 });
    }
    return new Response(null, { status: 204 });
  };
}
