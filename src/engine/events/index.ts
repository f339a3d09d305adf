/**
 * The Events extension (`io.modelcontextprotocol/events`, docs/events.md): `events([...types])` in
 * `defineApp({ extensions })` serves events/list, events/subscribe (and refresh), events/unsubscribe,
 * events/poll and events/stream (stream.ts) on 2026-07-28, advertised under `capabilities.extensions` and the top-level
 * `capabilities.events` ChatGPT reads; `emit` publishes an occurrence from a tool, a route, a queue
 * consumer or a cron trigger. Everything here reaches a bundle only through those two imports.
 */
import type { Extension, StreamCaller } from "../mcp/app";
import type { HandlerContext } from "../mcp/context";
import { invalidParams, McpError, toMcpError } from "../mcp/errors";
import { EVENTS_EXTENSION } from "../mcp/event-names";
import { defineExtension } from "../mcp/ext/host";
import { paginate } from "../mcp/pagination";
import { decodeCursor } from "./cursor";
import { eventError } from "./errors";
import type { CompiledEvent, EventDefinition } from "./define";
import { limitsOf, type EventLimits, type EventsOptions } from "./limits";
import type { EmitRequest } from "./contracts";
import { McpEvents } from "./object";
import { shardOf, shardStub, typeStub } from "./placement";
import { serveTypes } from "./registry";
import { type Arguments, argumentsOf, checkAccess, optionalMs, principalOf, scopesOf, type Types, typeNamed, webhookOf } from "./requests";
import { openEventStream, refusal } from "./stream";

/** The events extension, and the Durable Object class `createMcpWorker` exports as McpEvents. */
export interface EventsExtension extends Extension {
  McpEvents: typeof McpEvents;
}

/** An RPC answer's result, or its error thrown as the McpError it was. */
function unwrap<T>(a: { result: T } | { error: { code: number; message: string; data?: unknown } }): T {
  if ("error" in a) throw new McpError(a.error.code, a.error.message, a.error.data);
  return a.result;
}

async function subscribe(types: Types, limits: EventLimits, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const principal = principalOf(ctx, "Webhook delivery");
  const type = typeNamed(types, params, "webhook");
  const args = argumentsOf(type, params);
  await checkAccess(type, args.parsed, ctx);
  const { url, secret } = webhookOf(params, ctx, true);
  // Everything is checked before anything is stored: a refused subscribe leaves no subscription behind.
  decodeCursor(params.cursor);
  const ttlMs = params.ttlMs === null ? null : optionalMs(params.ttlMs, "ttlMs");
  const id = await subscriptionId(principal, url, type.def.name, args.canonical);
  const req = {
    id,
    principal,
    // The type's scopes were granted (the one authorization, `implies` included): kept with the
    // caller's own, so the deliveries' recheck of them holds.
    scopes: [...new Set([...scopesOf(ctx), ...(type.def.scopes ?? [])])],
    args: args.canonical,
    url,
    secret,
    cursor: params.cursor,
    maxAgeMs: optionalMs(params.maxAgeMs, "maxAgeMs"),
    ttlMs,
  };
  const k = shardOf(principal, limits.shards);
  return unwrap(await shardStub(ctx.env, type.def.name, k).subscribe(type.def.name, k, req, true));
}

async function unsubscribe(types: Types, limits: EventLimits, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const principal = principalOf(ctx, "Unsubscribing");
  const type = typeNamed(types, params);
  const args = argumentsOf(type, params);
  const { url } = webhookOf(params, ctx, false);
  const id = await subscriptionId(principal, url, type.def.name, args.canonical);
  // Unknown keys are answered as done (ChatGPT's reading): unsubscribing twice is not an error.
  const k = shardOf(principal, limits.shards);
  unwrap(await shardStub(ctx.env, type.def.name, k).unsubscribe(type.def.name, k, id));
  return {};
}

async function poll(types: Types, params: Record<string, unknown>, ctx: HandlerContext<any>) {
  const type = typeNamed(types, params, "poll");
  const args = argumentsOf(type, params);
  await checkAccess(type, args.parsed, ctx);
  const maxEvents = optionalMs(params.maxEvents, "maxEvents") ?? 100;
  if (!Number.isInteger(maxEvents) || maxEvents < 1) throw invalidParams("params.maxEvents must be a positive integer");
  const req = {
    args: args.canonical,
    cursor: params.cursor,
    maxAgeMs: optionalMs(params.maxAgeMs, "maxAgeMs"),
    maxEvents: Math.min(maxEvents, 1000),
  };
  return unwrap(await typeStub(ctx.env, type.def.name).poll(type.def.name, req));
}

/** events/stream: checked like a poll, then held open as an SSE stream fed by the hub (stream.ts). */
async function stream(
  types: Types,
  limits: EventLimits,
  request: { id: string | number; params?: Record<string, unknown> },
  caller: StreamCaller,
) {
  const params = request.params ?? {};
  const ctx = { auth: caller.auth, env: caller.env } as HandlerContext<any>;
  let type: CompiledEvent;
  let args: Arguments;
  try {
    type = typeNamed(types, params, "push");
    args = argumentsOf(type, params);
    await checkAccess(type, args.parsed, ctx);
    const from = decodeCursor(params.cursor);
    // A cursor past the log's head was never this log's: InvalidParams, before any stream is opened.
    if (from !== null && type.replay && from > unwrap(await typeStub(caller.env, type.def.name).read(type.def.name, from, 0)).head)
      throw invalidParams("Invalid cursor: it is ahead of this event type's log");
  } catch (err) {
    return refusal(request.id, toMcpError(err));
  }
  const stub = typeStub(caller.env, type.def.name);
  const maxAgeMs = typeof params.maxAgeMs === "number" ? params.maxAgeMs : undefined;
  const read = async (cursor: unknown) =>
    unwrap(await stub.poll(type.def.name, { args: args.canonical, cursor, maxAgeMs, maxEvents: 100, withCursors: true })) as Awaited<
      ReturnType<Parameters<typeof openEventStream>[3]>
    >;
  const stillAllowed = () =>
    checkAccess(type, args.parsed, ctx).then(
      () => true,
      () => false,
    );
  return openEventStream(request, caller, { name: type.def.name, args: args.parsed, cursor: params.cursor }, read, {
    heartbeatMs: limits.streamHeartbeatMs,
    stillAllowed,
  });
}

/** Serves the event types: `extensions: [events([ticketCreated])]` in defineApp. */
export function events(defs: readonly EventDefinition<any, any, any>[], options: EventsOptions = {}): EventsExtension {
  const limits = limitsOf(options);
  const types = serveTypes(defs, limits);
  const ext = defineExtension({
    id: EVENTS_EXTENSION,
    settings: {},
    // An event type's `scopes` are the one authorization's to check (its `events/*` rows in
    // operations.ts), with `implies`, hidden lists and the app's policy, as for a tool.
    guard: {
      scopes: (name) => {
        const type = types().get(name);
        return type ? type.def.scopes : null;
      },
      declared: () => defs.map((d) => d.scopes),
      refusal: (name) => eventError("Forbidden", `This caller may not use the event type ${name}`),
    },
    // ChatGPT reads `capabilities.events`; the extension's own entry is under `extensions`.
    topLevelCapability: "events",
    methods: {
      "events/list": {
        run: (params, ctx, core) =>
          // Only the types this caller may use, as the one authorization says (scopes, `implies`).
          paginate(
            "events",
            [...types().values()]
              .filter((t) => core.allows?.("events/subscribe", { name: t.def.name }, ctx.auth) ?? true)
              .map((t) => t.wire),
            params.cursor,
            limits.pageSize,
          ),
      },
      "events/subscribe": { run: (params, ctx) => subscribe(types, limits, params, ctx) },
      "events/unsubscribe": { run: (params, ctx) => unsubscribe(types, limits, params, ctx) },
      "events/stream": {
        run: () => {
          throw invalidParams("events/stream answers as an SSE stream on 2026-07-28");
        },
        respond: (request, caller) => stream(types, limits, request, caller),
      },
      "events/poll": { run: (params, ctx) => poll(types, params, ctx) },
    },
  });
  return { ...ext, McpEvents };
}

/** The subscription's id: derived from its key (principal, URL, type, canonical arguments), the same across refreshes and restarts. */
async function subscriptionId(principal: string, url: string, name: string, args: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify([principal, url, name, args])));
  return `sub_${[...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export interface EmitOptions {
  /**
   * The subscription arguments this occurrence is for: `{ topic: "billing" }` reaches subscriptions to
   * that topic (and those that named no topic). Default: every subscription.
   */
  match?: Record<string, unknown>;
  /** A stable id (the upstream's own, for one): the same id is delivered once per subscriber. Default: a fresh one. */
  id?: string;
  /** When it happened (ISO 8601 with a timezone). Default: now. */
  timestamp?: string;
}

/**
 * Publishes one occurrence of an event type to its subscribers, from anywhere with the Worker's env (a
 * tool's `ctx.env`, a route, a queue consumer, a cron trigger). Resolves once the occurrence is
 * written to the type's log, whatever the number of subscribers: the type's shards deliver it after,
 * and a restart in between loses nothing. `shards`: the shards with subscriptions that were woken
 * (0 for a duplicate id). Throws for an unknown type or a payload that does not match its schema.
 */
export async function emit(
  env: unknown,
  name: string,
  payload: Record<string, unknown>,
  options: EmitOptions = {},
): Promise<{ eventId: string; shards: number }> {
  const req: EmitRequest = { data: payload, match: options.match ?? {}, eventId: options.id, timestamp: options.timestamp };
  const answer = (await typeStub(env, name).emit(name, req)) as
    | { result: { eventId: string; shards: number } }
    | { error: { message: string } };
  if ("error" in answer) throw new Error(answer.error.message);
  return answer.result;
}

export { defineEvent, type DeliveryMode, type EventDefinition, type EventSubscriber, type ReplayOptions } from "./define";
export type { EventsOptions } from "./limits";
