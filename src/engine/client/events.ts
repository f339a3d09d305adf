/**
 * MCP Events (`io.modelcontextprotocol/events`) from the client's side: list a server's event types,
 * subscribe a webhook to one (subscribing again with the same key refreshes it), unsubscribe, poll
 * with cursors, and stream (./event-stream); the receiver that verifies the deliveries is in
 * ./webhook-receiver, exported here too. The extension is defined for 2026-07-28. Imported on its
 * own (`./client/events`): a client that does not use events does not carry it.
 */
import type { McpClient } from "./client";
import { McpClientError } from "./errors";
import { requireEvents } from "./events-advertised";
import type { CallOptions } from "./lane";
import type { EventType, ListEventsResult, PollParams, PollResult, SubscribeResult, WebhookSubscription } from "./event-types";

export { EVENTS_EXTENSION } from "../mcp/event-names";

/** `method` with `params`, once the server is known to serve events (events-advertised.ts). */
async function eventsRequest<T>(client: McpClient, method: string, params: Record<string, unknown>, options?: CallOptions): Promise<T> {
  await requireEvents(client, method);
  return client.request<T>(method, params, options);
}

/** One page of the event types the server offers this caller (`events/list`). */
export function listEvents(client: McpClient, cursor?: string, options?: CallOptions): Promise<ListEventsResult> {
  return eventsRequest<ListEventsResult>(client, "events/list", cursor === undefined ? {} : { cursor }, options);
}

/** Every event type, following `nextCursor` for at most `maxPages` pages; a cursor seen before ends the list. */
export async function listAllEvents(client: McpClient, options?: CallOptions & { maxPages?: number }): Promise<EventType[]> {
  const all: EventType[] = [];
  const seen = new Set<string>();
  const maxPages = options?.maxPages ?? 100;
  let cursor: string | undefined;
  for (let pages = 0; pages === 0 || (cursor !== undefined && !seen.has(cursor)); pages++) {
    if (pages >= maxPages) throw new McpClientError(`events/list went on past ${pages} pages`);
    if (cursor !== undefined) seen.add(cursor);
    const page = await listEvents(client, cursor, options);
    all.push(...(page.events ?? []));
    cursor = page.nextCursor;
  }
  return all;
}

/**
 * Subscribes a webhook (`events/subscribe`). The server verifies the callback first (your endpoint
 * must echo its challenge) and answers with the subscription. Calling it again with the same name,
 * arguments and URL is a refresh: the same id, a new grant, a new secret if you give one.
 */
export function subscribeEvents(client: McpClient, sub: WebhookSubscription, options?: CallOptions): Promise<SubscribeResult> {
  const params: Record<string, unknown> = {
    name: sub.name,
    arguments: sub.arguments ?? {},
    delivery: { mode: "webhook", url: sub.url, secret: sub.secret },
    cursor: sub.cursor ?? null,
    ...(sub.maxAgeMs !== undefined ? { maxAgeMs: sub.maxAgeMs } : {}),
    ...(sub.ttlMs !== undefined ? { ttlMs: sub.ttlMs } : {}),
  };
  return eventsRequest<SubscribeResult>(client, "events/subscribe", params, options);
}

/** Renews a subscription before its `refreshBefore`, from the last cursor you received (a delivery's or the last result's). */
export function refreshEvents(
  client: McpClient,
  sub: WebhookSubscription,
  lastCursor: string | null,
  options?: CallOptions,
): Promise<SubscribeResult> {
  return subscribeEvents(client, { ...sub, cursor: lastCursor }, options);
}

/** Ends a webhook subscription (`events/unsubscribe`), by the same name, arguments and URL. */
export async function unsubscribeEvents(
  client: McpClient,
  sub: Pick<WebhookSubscription, "name" | "arguments" | "url">,
  options?: CallOptions,
): Promise<void> {
  await eventsRequest(
    client,
    "events/unsubscribe",
    { name: sub.name, arguments: sub.arguments ?? {}, delivery: { mode: "webhook", url: sub.url } },
    options,
  );
}

/** One poll (`events/poll`): what happened since the cursor. No subscription, no state on the server. */
export function pollEvents(client: McpClient, params: PollParams, options?: CallOptions): Promise<PollResult> {
  return eventsRequest<PollResult>(
    client,
    "events/poll",
    {
      name: params.name,
      arguments: params.arguments ?? {},
      cursor: params.cursor ?? null,
      ...(params.maxEvents !== undefined ? { maxEvents: params.maxEvents } : {}),
      ...(params.maxAgeMs !== undefined ? { maxAgeMs: params.maxAgeMs } : {}),
    },
    options,
  );
}

/** The least wait between polls when nothing is left, whatever the server says. */
const MIN_POLL_MS = 1_000;

/**
 * Polls for as long as `signal` lets it, yielding every result (its `cursor` is the one to keep):
 * again at once while `hasMore`, otherwise after `nextPollMs` (at least a second).
 */
export async function* followEvents(client: McpClient, params: PollParams, options: CallOptions = {}): AsyncGenerator<PollResult> {
  let cursor = params.cursor ?? null;
  const { signal } = options;
  while (!signal?.aborted) {
    const result = await pollEvents(client, { ...params, cursor }, options);
    cursor = result.cursor;
    yield result;
    if (!result.hasMore) await pause(Math.max(MIN_POLL_MS, result.nextPollMs ?? 0), signal);
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });

/** A fresh webhook secret: `whsec_` and the base64 of 32 random bytes. */
export function webhookSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

/**
 * The name of an Events error, read from either numbering a server may use: the one ChatGPT
 * implements (-32011..-32015) or the SEP's (-32023..-32027). Undefined for anything else.
 */
export function eventErrorName(
  err: unknown,
): "NotFound" | "Forbidden" | "ResourceExhausted" | "Unsupported" | "CallbackEndpointError" | undefined {
  if (!(err instanceof McpClientError) || err.code === undefined) return undefined;
  const names = ["NotFound", "Forbidden", "ResourceExhausted", "Unsupported", "CallbackEndpointError"] as const;
  const at =
    err.code <= -32011 && err.code >= -32015 ? -32011 - err.code : err.code <= -32023 && err.code >= -32027 ? -32023 - err.code : -1;
  return names[at];
}

export type * from "./event-types";
export { EventStream, streamEvents, type StreamNotice } from "./event-stream";
export {
  MemoryDeliveryLog,
  WebhookVerificationError,
  verifyWebhook,
  webhookHandler,
  type DeliveryLog,
  type ReceiverSecret,
  type VerifiedDelivery,
  type WebhookHandlerOptions,
  type WebhookReceiverOptions,
} from "./webhook-receiver";
