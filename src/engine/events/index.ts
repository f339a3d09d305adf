/**
 * The Events extension (`io.modelcontextprotocol/events`, docs/events.md): `events([...types])` in
 * `defineApp({ extensions })` serves events/list, events/subscribe (and refresh), events/unsubscribe,
 * events/poll and events/stream (stream.ts) on 2026-07-28, advertised under `capabilities.extensions` and the top-level
 * `capabilities.events` ChatGPT reads; `emit` publishes an occurrence from a tool, a route, a queue
 * consumer or a cron trigger. Everything here reaches a bundle only through those two imports.
 */
import * as v from "valibot";
import type { Extension } from "../mcp/app";
import type { HandlerContext } from "../mcp/context";
import { invalidParams, McpError, toMcpError } from "../mcp/errors";
import { EVENTS_EXTENSION } from "../mcp/event-names";
import { isObject } from "../mcp/guards";
import { defineExtension } from "../mcp/ext/host";
import { paginate } from "../mcp/pagination";
import { canonicalJson } from "./canonical";
import { compileEvents, type CompiledEvent, type DeliveryMode, type EventDefinition } from "./define";
import { eventError } from "./errors";
import { limitsOf, type EventsOptions } from "./limits";
import { eventsObjectFor, type EmitRequest } from "./object";
import { decodeCursor } from "./cursor";
import { openEventStream, refusal } from "./stream";
import { callbackRefusal, secretKey } from "./webhook";

/** The largest subscription arguments, in UTF-8 bytes of canonical JSON. */
const MAX_ARGUMENT_BYTES = 4096;

type EventsNamespace = DurableObjectNamespace<InstanceType<ReturnType<typeof eventsObjectFor>>>;

/** The events extension, and the Durable Object class `createMcpWorker` exports as McpEvents. */
export interface EventsExtension extends Extension {
  McpEvents: ReturnType<typeof eventsObjectFor>;
}

function namespaceOf(env: unknown): EventsNamespace {
  const ns = (env as { MCP_EVENTS?: EventsNamespace } | undefined)?.MCP_EVENTS;
  if (!ns) throw new Error("MCP_EVENTS is not bound: add the McpEvents Durable Object to wrangler.toml (docs/events.md)");
  return ns;
}

const stubOf = (env: unknown, name: string) => {
  const ns = namespaceOf(env);
  return ns.get(ns.idFromName(name));
};

/** An RPC answer's result, or its error thrown as the McpError it was. */
function unwrap<T>(a: { result: T } | { error: { code: number; message: string; data?: unknown } }): T {
  if ("error" in a) throw new McpError(a.error.code, a.error.message, a.error.data);
  return a.result;
}

/** Serves the event types: `extensions: [events([ticketCreated])]` in defineApp. */
export function events(defs: readonly EventDefinition<any, any, any>[], options: EventsOptions = {}): EventsExtension {
  const limits = limitsOf(options);
  let compiled: Map<string, CompiledEvent> | undefined;
  // Compiled on first use (JSON Schemas), like the app's registry; a definition mistake fails there.
  const types = () => (compiled ??= compileEvents(defs));

  const typeNamed = (params: Record<string, unknown>, mode?: DeliveryMode): CompiledEvent => {
    if (typeof params.name !== "string") throw invalidParams("params.name must be the event type's name");
    const type = types().get(params.name);
    if (!type) throw eventError("NotFound", `No event type "${params.name}"`, { kind: "event" });
    if (mode && !type.modes.has(mode))
      throw eventError("Unsupported", `${params.name} is not delivered by ${mode}`, { feature: "deliveryMode", value: mode });
    return type;
  };
  const scopesOf = (ctx: HandlerContext<any>) => ctx.auth?.scopes ?? [];
  /** The arguments, validated against the type's input schema; in canonical JSON for the key. */
  const argumentsOf = (type: CompiledEvent, params: Record<string, unknown>) => {
    const args = params.arguments ?? {};
    if (!isObject(args)) throw invalidParams("params.arguments must be an object");
    // Stored with every subscription and compared at every emit: bounded like the URL and the secret.
    if (new TextEncoder().encode(canonicalJson(args)).byteLength > MAX_ARGUMENT_BYTES)
      throw invalidParams(`params.arguments must stay under ${MAX_ARGUMENT_BYTES} bytes of JSON`);
    if (!type.def.input) return { parsed: args, canonical: canonicalJson(args) };
    const parsed = v.safeParse(type.def.input, args);
    if (!parsed.success) throw invalidParams(`Invalid arguments for ${type.def.name}: ${parsed.issues.map((i) => i.message).join("; ")}`);
    return { parsed: parsed.output as Record<string, unknown>, canonical: canonicalJson(args) };
  };
  // The type's `scopes` were checked before the method ran, by the one authorization (its `guard`
  // below, with `implies` and the app's policy); `allow` is the type's own check.
  const checkAccess = async (type: CompiledEvent, parsed: Record<string, unknown>, ctx: HandlerContext<any>) => {
    if (
      type.def.allow &&
      !(await type.def.allow({ principal: ctx.auth?.principal ?? "", scopes: scopesOf(ctx), arguments: parsed, env: ctx.env }))
    )
      throw eventError("Forbidden", `This caller may not subscribe to ${type.def.name} with these arguments`);
  };
  const principalOf = (ctx: HandlerContext<any>, what: string) => {
    const principal = ctx.auth?.principal;
    // Webhooks outlive the request: only an authenticated principal can own one.
    if (!principal) throw eventError("Forbidden", `${what} needs an authenticated caller`);
    return principal;
  };
  const optionalMs = (value: unknown, name: string) => {
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      throw invalidParams(`params.${name} must be a non-negative number of milliseconds`);
    return value;
  };
  const webhookOf = (params: Record<string, unknown>, ctx: HandlerContext<any>, needSecret: boolean) => {
    const delivery = params.delivery;
    if (!isObject(delivery)) throw invalidParams("params.delivery must be an object with mode, url and secret");
    if (delivery.mode !== undefined && delivery.mode !== "webhook")
      throw eventError("Unsupported", `events/subscribe takes webhook delivery; use events/poll for polling`, {
        feature: "deliveryMode",
        value: delivery.mode,
      });
    if (needSecret && delivery.mode !== "webhook") throw invalidParams('params.delivery.mode must be "webhook"');
    const refused = callbackRefusal(delivery.url, ctx.env?.MCP_DEV === "on");
    if (refused) throw invalidParams(refused);
    if (needSecret && !secretKey(delivery.secret))
      throw invalidParams("params.delivery.secret must be whsec_ followed by the base64 of 24 to 64 random bytes");
    return { url: new URL(delivery.url as string).href, secret: delivery.secret as string };
  };

  const ext = defineExtension({
    id: EVENTS_EXTENSION,
    settings: {},
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
      "events/subscribe": {
        run: async (params, ctx) => {
          const principal = principalOf(ctx, "Webhook delivery");
          const type = typeNamed(params, "webhook");
          const args = argumentsOf(type, params);
          await checkAccess(type, args.parsed, ctx);
          const { url, secret } = webhookOf(params, ctx, true);
          if (params.cursor !== undefined && params.cursor !== null && typeof params.cursor !== "string")
            throw invalidParams("params.cursor must be a string or null");
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
          return unwrap(await stubOf(ctx.env, type.def.name).subscribe(type.def.name, req, true));
        },
      },
      "events/unsubscribe": {
        run: async (params, ctx) => {
          const principal = principalOf(ctx, "Unsubscribing");
          const type = typeNamed(params);
          const args = argumentsOf(type, params);
          const { url } = webhookOf(params, ctx, false);
          const id = await subscriptionId(principal, url, type.def.name, args.canonical);
          // Unknown keys are answered as done (ChatGPT's reading): unsubscribing twice is not an error.
          unwrap(await stubOf(ctx.env, type.def.name).unsubscribe(type.def.name, id));
          return {};
        },
      },
      "events/stream": {
        run: () => {
          throw invalidParams("events/stream answers as an SSE stream on 2026-07-28");
        },
        respond: async (request, caller) => {
          const params = request.params ?? {};
          const ctx = { auth: caller.auth, env: caller.env } as HandlerContext<any>;
          let type: CompiledEvent;
          let args: { parsed: Record<string, unknown>; canonical: string };
          try {
            type = typeNamed(params, "push");
            args = argumentsOf(type, params);
            await checkAccess(type, args.parsed, ctx);
            if (params.cursor !== undefined && params.cursor !== null) decodeCursor(params.cursor);
          } catch (err) {
            return refusal(request.id, toMcpError(err));
          }
          const stub = stubOf(caller.env, type.def.name);
          const maxAgeMs = typeof params.maxAgeMs === "number" ? params.maxAgeMs : undefined;
          const poll = async (cursor: unknown) =>
            unwrap(
              await stub.poll(type.def.name, { args: args.canonical, cursor, maxAgeMs, maxEvents: 100, withCursors: true }),
            ) as Awaited<ReturnType<Parameters<typeof openEventStream>[3]>>;
          const subscribed = (params.arguments ?? {}) as Record<string, unknown>;
          const stillAllowed = () =>
            checkAccess(type, args.parsed, ctx).then(
              () => true,
              () => false,
            );
          return openEventStream(request, caller, { name: type.def.name, args: subscribed, cursor: params.cursor }, poll, {
            heartbeatMs: limits.streamHeartbeatMs,
            stillAllowed,
          });
        },
      },
      "events/poll": {
        run: async (params, ctx) => {
          const type = typeNamed(params, "poll");
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
          return unwrap(await stubOf(ctx.env, type.def.name).poll(type.def.name, req));
        },
      },
    },
  });
  return { ...ext, McpEvents: eventsObjectFor(types, limits) };
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
 * tool's `ctx.env`, a route, a queue consumer, a cron trigger). Resolves once the occurrence is stored
 * and queued: deliveries follow from the type's Durable Object, and survive a restart. Throws for an
 * unknown type or a payload that does not match its schema.
 */
export async function emit(
  env: unknown,
  name: string,
  payload: Record<string, unknown>,
  options: EmitOptions = {},
): Promise<{ eventId: string; subscriptions: number }> {
  const req: EmitRequest = { data: payload, match: options.match ?? {}, eventId: options.id, timestamp: options.timestamp };
  const answer = (await stubOf(env, name).emit(name, req)) as
    | { result: { eventId: string; subscriptions: number } }
    | { error: { message: string } };
  if ("error" in answer) throw new Error(answer.error.message);
  return answer.result;
}

export { defineEvent, type DeliveryMode, type EventDefinition, type EventSubscriber, type ReplayOptions } from "./define";
export type { EventsOptions } from "./limits";
