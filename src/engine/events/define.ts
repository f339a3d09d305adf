/**
 * What an app writes to declare an event type (`defineEvent`), and what the server lists of it: the
 * subscription arguments and the payload are valibot schemas, published as JSON Schema the way tool
 * schemas are, computed once per isolate.
 */
import type * as v from "valibot";
import type { DefaultEnv, ObjectSchema } from "../mcp/app";
import { objectJsonSchema } from "../mcp/json-schema";

/** How a subscriber may receive an event type. */
export type DeliveryMode = "poll" | "push" | "webhook";

/** The modes this server serves. */
const SERVED_MODES: readonly DeliveryMode[] = ["poll", "push", "webhook"];

/** Who a subscription belongs to, as `allow` sees it. */
export interface EventSubscriber<Args, Env> {
  /** The authenticated principal ("" when anonymous: poll only). */
  principal: string;
  scopes: readonly string[];
  arguments: Args;
  env: Env;
}

export interface ReplayOptions {
  /** Occurrences kept for replay and polling (default 1000, at most 10 000). */
  maxEvents?: number;
  /** How long an occurrence is kept, in ms (default a day). */
  maxAgeMs?: number;
}

export interface EventDefinition<
  I extends ObjectSchema = ObjectSchema,
  P extends ObjectSchema = ObjectSchema,
  Env = DefaultEnv,
  Name extends string = string,
> {
  /** Stable for the life of the type: a breaking change ships under a new name. */
  name: Name;
  description?: string;
  /** The subscription's arguments (filters, options), validated at subscribe and poll. Omit for none. */
  input?: I;
  /** The occurrence's `data`, validated at emit. */
  payload: P;
  /** The modes offered (ChatGPT uses "webhook" only). */
  delivery: readonly DeliveryMode[];
  /**
   * Keep a bounded, durable log of occurrences, so subscribers resume from a cursor and `events/poll`
   * has something to read. Without it cursors are always null and missed events are lost.
   */
  replay?: boolean | ReplayOptions;
  /** The scopes a subscriber's token must hold, checked at subscribe, at every poll and before every delivery. */
  scopes?: readonly string[];
  /**
   * The app's own check, at subscribe, at every poll and before every delivery (for instance against
   * a grant the user can revoke): false refuses the subscription, or ends it with a `terminated` envelope.
   */
  allow?: (who: EventSubscriber<I extends ObjectSchema ? v.InferOutput<I> : Record<string, unknown>, Env>) => boolean | Promise<boolean>;
  _meta?: Record<string, unknown>;
}

/** Declares an event type for `events([...])` (docs/events.md); `emit` then publishes its occurrences. */
export const defineEvent = <
  const Name extends string,
  I extends ObjectSchema = ObjectSchema,
  P extends ObjectSchema = ObjectSchema,
  Env = DefaultEnv,
>(
  def: EventDefinition<I, P, Env, Name>,
) => def;

const EVENT_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

/** An event type as the server serves it. */
export interface CompiledEvent {
  def: EventDefinition<any, any, any>;
  /** The EventType object events/list serves. */
  wire: Record<string, unknown>;
  modes: Set<DeliveryMode>;
  replay?: Required<ReplayOptions>;
}

export function compileEvents(defs: readonly EventDefinition<any, any, any>[]): Map<string, CompiledEvent> {
  const out = new Map<string, CompiledEvent>();
  for (const def of defs) {
    if (!EVENT_NAME.test(def.name)) throw new Error(`Event name "${def.name}" must be 1-128 characters of A-Z a-z 0-9 _ . - /`);
    if (out.has(def.name)) throw new Error(`Event "${def.name}" is defined twice`);
    const modes = new Set(def.delivery.filter((m) => SERVED_MODES.includes(m)));
    if (modes.size === 0) throw new Error(`Event "${def.name}": delivery must name "poll", "push" or "webhook"`);
    if (modes.has("poll") && !def.replay) throw new Error(`Event "${def.name}": "poll" reads the replay log; set replay: true`);
    const r = def.replay === true ? {} : def.replay || undefined;
    const replay = r && { maxEvents: Math.min(r.maxEvents ?? 1000, 10_000), maxAgeMs: r.maxAgeMs ?? 86_400_000 };
    const wire: Record<string, unknown> = {
      name: def.name,
      ...(def.description ? { description: def.description } : {}),
      delivery: [...modes],
      inputSchema: def.input ? objectJsonSchema(def.input, `event ${def.name} input`) : { type: "object", properties: {} },
      payloadSchema: objectJsonSchema(def.payload, `event ${def.name} payload`),
      ...(def._meta ? { _meta: def._meta } : {}),
    };
    out.set(def.name, { def, wire, modes, replay });
  }
  return out;
}
