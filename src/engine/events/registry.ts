/**
 * The event types this Worker serves, set at start-up: `events([...])` adds its types and their
 * bounds here, and the McpEvents Durable Object class (a module-level class, exported as the Worker's
 * McpEvents) finds the type it serves by name. Compiled on first use, like the app's registry, so a
 * definition mistake fails there and an isolate that never serves an event compiles nothing.
 */
import { compileEvents, type CompiledEvent, type EventDefinition } from "./define";
import type { EventLimits } from "./limits";

/** An event type with the bounds of the `events(...)` that declared it. */
export interface ServedType extends CompiledEvent {
  limits: EventLimits;
}

const sources: { compiled: () => Map<string, CompiledEvent>; limits: EventLimits }[] = [];

/** Adds one `events(...)`'s types; the returned function lists them (events/list). A later declaration of a name wins. */
export function serveTypes(defs: readonly EventDefinition<any, any, any>[], limits: EventLimits): () => Map<string, CompiledEvent> {
  let compiled: Map<string, CompiledEvent> | undefined;
  const source = { compiled: () => (compiled ??= compileEvents(defs)), limits };
  sources.push(source);
  return source.compiled;
}

/** The type named `name`, as the last `events(...)` that declares it serves it. */
export function servedType(name: string): ServedType | undefined {
  for (let i = sources.length - 1; i >= 0; i--) {
    const type = sources[i]!.compiled().get(name);
    if (type) return { ...type, limits: sources[i]!.limits };
  }
  return undefined;
}
