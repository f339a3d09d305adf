/** The bounds of the Events extension, with their defaults; `events(defs, options)` changes them (docs/events.md). */
export interface EventsOptions {
  /** Webhook subscriptions one principal may hold per event type (default 100); more is ResourceExhausted. */
  maxSubscriptionsPerPrincipal?: number;
  /**
   * How far behind the log's head a new subscription's replay may start (default 1000 occurrences).
   * A live subscription is bounded by the log itself: what the log no longer keeps is not sent.
   */
  maxPendingPerSubscription?: number;
  /** Delivery attempts per occurrence, the first included (default 5). */
  maxAttempts?: number;
  /** A subscription's lifetime when the client asks for none (default an hour), the least and the most granted (a minute, a day). */
  defaultTtlMs?: number;
  minTtlMs?: number;
  maxTtlMs?: number;
  /** Items per page of events/list (default 50). */
  pageSize?: number;
  /**
   * Verification requests one event type sends to one destination host a minute (default 60): what a
   * caller can make this server POST at someone else's host. One host serves all of ChatGPT's users.
   */
  verificationsPerMinute?: number;
  /** How often an events/stream sends its heartbeat and rechecks the subscriber's access (default 25 s, at most 30 s). */
  streamHeartbeatMs?: number;
  /**
   * The Durable Objects a type's webhook subscriptions are spread over (default 8, 1 to 1,000), by a
   * hash of the subscriber's principal; docs/scale.md sizes it. Raising it moves principals to new
   * shards: their subscriptions there start at the next refresh, while the old shard's go on until
   * their TTL passes, so a receiver may get an occurrence twice meanwhile (de-duplicate by `eventId`).
   */
  shards?: number;
  /**
   * Deliveries one run of a shard's alarm sends at most (default 45); it runs again at once for the
   * rest. Each is a subrequest: the default fits the Workers Free plan's 50 an invocation; on the Paid
   * plan (10,000) up to 5,000 saves an alarm run per batch (docs/scale.md).
   */
  deliveriesPerPass?: number;
}

export type EventLimits = Required<EventsOptions>;

export const limitsOf = (o: EventsOptions = {}): EventLimits => ({
  maxSubscriptionsPerPrincipal: o.maxSubscriptionsPerPrincipal ?? 100,
  maxPendingPerSubscription: o.maxPendingPerSubscription ?? 1000,
  maxAttempts: Math.min(o.maxAttempts ?? 5, 10),
  defaultTtlMs: o.defaultTtlMs ?? 3_600_000,
  minTtlMs: o.minTtlMs ?? 60_000,
  maxTtlMs: o.maxTtlMs ?? 86_400_000,
  pageSize: o.pageSize ?? 50,
  verificationsPerMinute: o.verificationsPerMinute ?? 60,
  streamHeartbeatMs: Math.min(o.streamHeartbeatMs ?? 25_000, 30_000),
  shards: Math.min(Math.max(Math.floor(o.shards ?? 8), 1), 1000),
  deliveriesPerPass: Math.min(Math.max(Math.floor(o.deliveriesPerPass ?? 45), 1), 5000),
});

/** Wait before attempt n+1 (n = attempts so far): 2 s, 10 s, 1 min, 5 min, then 15 min. */
export const backoffMs = (attempts: number) => [2_000, 10_000, 60_000, 300_000][attempts - 1] ?? 900_000;

/** How long the replaced secret still signs after a refresh changed it. */
export const SECRET_GRACE_MS = 600_000; // 10 minutes

/** How long a verified callback stays verified for its principal. */
export const VERIFIED_FOR_MS = 86_400_000; // a day

/**
 * The log a type without `replay` keeps for its webhook deliveries (a shard reads occurrences from the
 * type's log): the same bounds as a replay log's defaults, never offered to clients as cursors.
 */
export const DELIVERY_LOG = { maxEvents: 1000, maxAgeMs: 86_400_000 };

/** Occurrences a shard reads from the type's log at a time. */
export const LOG_PAGE = 200;

/**
 * Deliveries a shard has in flight at once, each subscription's one after another. On Cloudflare one
 * invocation opens 6 connections at a time and queues the rest, so more in flight hides the receivers'
 * answer time only up to that.
 */
export const DELIVERY_CONCURRENCY = 25;

/** Due subscriptions a pass loads at a time (at most `deliveriesPerPass`): its memory stays bounded whatever the shard holds. */
export const MAX_DUE_BATCH = 500;

/** How often a poller should come back when nothing is left (the client's floor is about 1 s). */
export const NEXT_POLL_MS = 5_000;

/** How often a shard with subscriptions and nothing to send looks in (expiry, and a type a deploy removed). */
export const SHARD_CHECK_MS = 900_000; // 15 minutes
