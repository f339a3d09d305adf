/**
 * The client's side of MCP Events (docs/events.md): typed calls for another server's events (list,
 * subscribe and refresh, unsubscribe, poll) on an McpClient, and `receiveEvent`, which a Worker route
 * uses to take the deliveries: it checks the Standard Webhooks signature and its timestamp, answers
 * the verification handshake itself, and hands the route the occurrence (or the control envelope).
 */
import type { McpClient } from "./client";

export interface EventType {
  name: string;
  description?: string;
  delivery: ("poll" | "push" | "webhook")[];
  inputSchema: Record<string, unknown>;
  payloadSchema: Record<string, unknown>;
}

export interface EventOccurrence {
  eventId: string;
  name: string;
  timestamp: string;
  data: Record<string, unknown>;
  cursor?: string | null;
}

export interface WebhookSubscription {
  id: string;
  refreshBefore: string | null;
  cursor: string | null;
  truncated: boolean;
  deliveryStatus?: { active: boolean; lastDeliveryAt?: string; lastError?: string; failedSince?: string };
}

export interface PolledEvents {
  events: EventOccurrence[];
  cursor: string | null;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
}

/** One page of the server's event types. */
export const listEvents = (client: McpClient, cursor?: string) =>
  client.request<{ events: EventType[]; nextCursor?: string }>("events/list", cursor === undefined ? {} : { cursor });

/**
 * Subscribes a webhook, or refreshes it: call again with the same name, arguments and URL (and the last
 * cursor your receiver saw) before `refreshBefore`. `secret` is yours: `whsec_` and the base64 of 24 to 64 random bytes.
 */
export const subscribeEvent = (
  client: McpClient,
  s: { name: string; arguments?: Record<string, unknown>; url: string; secret: string; cursor?: string | null; ttlMs?: number | null },
) =>
  client.request<WebhookSubscription>("events/subscribe", {
    name: s.name,
    arguments: s.arguments ?? {},
    delivery: { mode: "webhook", url: s.url, secret: s.secret },
    cursor: s.cursor ?? null,
    ...(s.ttlMs === undefined ? {} : { ttlMs: s.ttlMs }),
  });

export const unsubscribeEvent = (client: McpClient, s: { name: string; arguments?: Record<string, unknown>; url: string }) =>
  client.request<Record<string, never>>("events/unsubscribe", { name: s.name, arguments: s.arguments ?? {}, delivery: { mode: "webhook", url: s.url } });

/** One poll: `cursor: null` starts from now; poll again at once while `hasMore`, else after `nextPollMs`. */
export const pollEvents = (client: McpClient, p: { name: string; arguments?: Record<string, unknown>; cursor: string | null; maxEvents?: number }) =>
  client.request<PolledEvents>("events/poll", { name: p.name, arguments: p.arguments ?? {}, cursor: p.cursor, ...(p.maxEvents ? { maxEvents: p.maxEvents } : {}) });

/** What `receiveEvent` made of a request: an occurrence to store, a control envelope, or the answer to send now. */
export type Received =
  | { kind: "event"; subscriptionId: string; webhookId: string; event: EventOccurrence }
  | { kind: "control"; subscriptionId: string; envelope: { type: string; [key: string]: unknown } }
  | { kind: "answer"; response: Response };

const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 262_144;

/**
 * Takes one delivery in a Worker route. `secret` is the subscription's (or a lookup by the
 * `X-MCP-Subscription-Id` header). Answers the handshake and refuses a bad signature, a timestamp more
 * than 5 minutes off or a body over 256 KiB by itself (`kind: "answer"`: return `response`); for an
 * event, store it durably (dedup on subscriptionId + webhookId), then answer 2xx.
 */
export async function receiveEvent(request: Request, secret: string | ((subscriptionId: string) => string | undefined | Promise<string | undefined>)): Promise<Received> {
  const refuse = (status: number, why: string): Received => ({ kind: "answer", response: new Response(why, { status }) });
  if (request.method !== "POST") return refuse(405, "POST only");
  const subscriptionId = request.headers.get("X-MCP-Subscription-Id") ?? "";
  const webhookId = request.headers.get("webhook-id") ?? "";
  const timestamp = request.headers.get("webhook-timestamp") ?? "";
  const signatures = (request.headers.get("webhook-signature") ?? "").split(" ");
  if (!webhookId || !/^\d{1,12}$/.test(timestamp)) return refuse(400, "missing webhook headers");
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return refuse(400, "timestamp too old or too new");
  const raw = new Uint8Array(await request.arrayBuffer());
  if (raw.byteLength > MAX_BODY_BYTES) return refuse(413, "too large");
  const body = new TextDecoder().decode(raw);
  const key = await keyOf(typeof secret === "string" ? secret : await secret(subscriptionId));
  if (!key) return refuse(401, "unknown subscription");
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${webhookId}.${timestamp}.${body}`)));
  const valid = signatures.some((s) => s.startsWith("v1,") && sameBytes(decode(s.slice(3)), expected));
  if (!valid) return refuse(401, "bad signature");
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return refuse(400, "not JSON");
  }
  if (json.type === "verification") return { kind: "answer", response: Response.json({ challenge: json.challenge }) };
  if (typeof json.type === "string") return { kind: "control", subscriptionId, envelope: json as { type: string } };
  return { kind: "event", subscriptionId, webhookId, event: json as unknown as EventOccurrence };
}

async function keyOf(secret: string | undefined): Promise<CryptoKey | undefined> {
  if (!secret?.startsWith("whsec_")) return undefined;
  const bytes = decode(secret.slice(6));
  if (bytes.length < 24) return undefined;
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

function decode(b64: string): Uint8Array {
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
