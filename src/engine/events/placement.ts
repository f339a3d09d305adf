/**
 * Where a type's parts live, all objects of the one McpEvents class (bound as MCP_EVENTS): the type's
 * own object, named by the type, holds its log; its webhook subscriptions are spread over `shards`
 * objects named `<type>#<k>`, a principal's on the shard of a hash of the principal, so the bound on
 * one principal's subscriptions and its verified callbacks are one shard's to keep. (A type's name
 * never holds `#`, define.ts.)
 */
import type { EventsRpc } from "./contracts";

type EventsNamespace = DurableObjectNamespace;

function namespaceOf(env: unknown): EventsNamespace {
  const ns = (env as { MCP_EVENTS?: EventsNamespace } | undefined)?.MCP_EVENTS;
  if (!ns) throw new Error("MCP_EVENTS is not bound: add the McpEvents Durable Object to wrangler.toml (docs/events.md)");
  return ns;
}

/** The object named `name`, as its RPC surface (object.ts implements EventsRpc). */
const named = (env: unknown, name: string): EventsRpc => {
  const ns = namespaceOf(env);
  return ns.get(ns.idFromName(name)) as unknown as EventsRpc;
};

/** The type's own object: its log, its emits and polls. */
export const typeStub = (env: unknown, type: string) => named(env, type);

/** Shard `k` of a type's webhook subscriptions. */
export const shardStub = (env: unknown, type: string, k: number) => named(env, `${type}#${k}`);

/** The shard that holds a principal's subscriptions to a type, of `shards` (FNV-1a of the principal). */
export function shardOf(principal: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < principal.length; i++) h = Math.imul(h ^ principal.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
}
