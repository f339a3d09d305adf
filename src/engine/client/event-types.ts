/**
 * The Events extension's wire shapes as the client reads and sends them (src/engine/client/events.ts):
 * event types, occurrences, webhook subscriptions and their results, polls. Types only.
 */
export type EventDeliveryMode = "poll" | "push" | "webhook";

/** One event type, as `events/list` gives it. */
export interface EventType {
  name: string;
  description?: string;
  delivery: EventDeliveryMode[];
  /** JSON Schema of the subscription's `arguments`. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of each occurrence's `data`. */
  payloadSchema: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One occurrence of an event, by poll or in a webhook delivery. */
export interface EventOccurrence {
  /** The same on every retry: de-duplicate on it. */
  eventId: string;
  name: string;
  /** When it happened, ISO 8601. */
  timestamp: string;
  data: Record<string, unknown>;
  /** The position after this event (webhook and push; a poll carries it on the result). */
  cursor?: string | null;
  _meta?: Record<string, unknown>;
}

export interface ListEventsResult {
  events: EventType[];
  nextCursor?: string;
}

/** A webhook subscription's key (the server adds your principal) and what it asks for. */
export interface WebhookSubscription {
  name: string;
  arguments?: Record<string, unknown>;
  /** Your callback URL: https, reachable from the server, answering the handshake (webhookHandler does). */
  url: string;
  /** `whsec_` and the base64 of 24 to 64 random bytes: webhookSecret() makes one. Keep it; you verify with it. */
  secret: string;
  /** Where delivery starts: the last cursor you received, or null (the default) for "from now on". */
  cursor?: string | null;
  /** Don't replay anything older than this. */
  maxAgeMs?: number;
  /** The lifetime you ask for; `null` asks for no expiry; left out, the server's default. */
  ttlMs?: number | null;
}

export interface DeliveryStatus {
  active: boolean;
  lastDeliveryAt?: string;
  lastError?: string;
  failedSince?: string;
  throttled?: boolean;
  retryAfterMs?: number;
}

export interface SubscribeResult {
  /** Derived from the key: the same across refreshes, sent as X-MCP-Subscription-Id with each delivery. */
  id: string;
  /** Refresh before this (ISO 8601), or null for a grant without expiry. */
  refreshBefore: string | null;
  cursor: string | null;
  /** Delivery starts later than the cursor you gave: some events are lost. */
  truncated: boolean;
  /** On a refresh: how delivery has gone. */
  deliveryStatus?: DeliveryStatus;
}

export interface PollParams {
  name: string;
  arguments?: Record<string, unknown>;
  /** null (the default) answers no events and a cursor for "now"; then pass the cursor of the last result. */
  cursor?: string | null;
  maxEvents?: number;
  maxAgeMs?: number;
}

export interface PollResult {
  events: EventOccurrence[];
  cursor: string | null;
  truncated: boolean;
  /** More are waiting: poll again at once. */
  hasMore: boolean;
  /** Otherwise, when to poll next. */
  nextPollMs: number;
}
