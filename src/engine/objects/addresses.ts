/**
 * How the engine finds its Durable Objects: HUB_SHARDS hub shards for
 * notifications, one object per 2025 session named by its session id.
 *
 * Listeners are spread over the shards by client (not grouped by topic: a list
 * change goes to nearly every listener, so topic shards would put them all on
 * one), and a publish calls every shard once, in parallel: the publisher's cost
 * follows the shard count, each shard's the listeners it holds. A task's
 * notification for a principal is the exception: only that principal's listen
 * streams may have it, and they are all on one shard.
 */
import { readConfig, type Vars } from "../config";
import { toBase64url } from "../mcp/base64url";
import type { Notifier } from "../mcp/context";
import {
  TASK_NOTIFICATION,
  type HubNotification,
  type ObjectBindings,
  type TaskIndexMethods,
  type TaskMethods,
  type TaskOwner,
} from "./contracts";

type HubEnv = Pick<ObjectBindings, "MCP_HUB"> & Vars;

/** Shard 0 keeps the name of the single hub of earlier versions, so an upgrade keeps its sessions and listeners. */
const shardName = (index: number) => (index === 0 ? "global" : `global/${index}`);

export const hubShardCount = (env: Vars) => readConfig(env).hubShards;

/** The object of a namespace that has this name. */
const named = <T extends Rpc.DurableObjectBranded | undefined>(ns: DurableObjectNamespace<T>, name: string) => ns.get(ns.idFromName(name));

/** Hub shard `index` (0 ≤ index < HUB_SHARDS). */
export const hubStub = (env: Pick<ObjectBindings, "MCP_HUB">, index = 0) => named(env.MCP_HUB, shardName(index));

/** The client key of an authenticated principal: its listen streams' shard, and its rate-limit budget. */
export const principalClientKey = (principal: string) => `principal:${principal}`;

/**
 * Where a client's listen streams go, from its key (its principal, or its address when anonymous):
 * all of them to one shard, under one tag, so that the shard can count them and their filters. The
 * tag is a SHA-256 of the key: the same length for every client, and two clients never share one.
 * A publish calls every shard (but for a principal's task notification), so which one holds a stream
 * matters mostly for the count; hashes spread the clients evenly.
 */
export async function listenerPlace(env: Vars, clientKey: string): Promise<{ shard: number; client: string }> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(clientKey)));
  const word = ((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0;
  return { shard: word % hubShardCount(env), client: toBase64url(digest) };
}

/**
 * The shard a 2025 session registers with, from its id (random, so the spread is even). The session
 * keeps the index it joined with, so a later change of HUB_SHARDS does not move it.
 */
export function sessionShard(sessionId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) h = Math.imul(h ^ sessionId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
}

/**
 * Publishes through every hub shard at once (or only through shard `only`); resolves, once every
 * shard has accepted it, with how many listeners and sessions it goes to (the shards deliver after
 * answering). Throws when a shard could not be reached (the others still deliver).
 */
export async function publishToHub(env: HubEnv, n: HubNotification, only?: number): Promise<number> {
  const indices = only === undefined ? Array.from({ length: hubShardCount(env) }, (_, i) => i) : [only];
  const results = await Promise.allSettled(indices.map((i) => hubStub(env, i).publish(n)));
  const failed = results.filter((r) => r.status === "rejected");
  if (failed.length > 0)
    throw new Error(
      `${failed.length} of ${indices.length} hub shards could not be reached: ${(failed[0] as PromiseRejectedResult).reason}`,
    );
  return results.reduce((sum, r) => sum + (r as PromiseFulfilledResult<number>).value, 0);
}

/**
 * A task's notification goes to listen streams only (no 2025 session takes it), and with a principal
 * only to that principal's, which all joined the shard of its client key: one call instead of one per
 * shard. An anonymous task's may be followed from any address, so any shard.
 */
export async function publishTaskNotification(env: HubEnv, n: HubNotification & { method: typeof TASK_NOTIFICATION }): Promise<number> {
  return publishToHub(env, n, n.principal ? (await listenerPlace(env, principalClientKey(n.principal))).shard : undefined);
}

/**
 * A session's object is named by the random part of its id: a sealed id (src/engine/http/session-id.ts)
 * starts with it, a plain id is nothing else.
 */
export const sessionName = (sessionId: string) => sessionId.split(".", 1)[0]!;

export const sessionStub = (env: Pick<ObjectBindings, "MCP_SESSION">, sessionId: string) => named(env.MCP_SESSION, sessionName(sessionId));

/**
 * The index of one client's live sessions (live-sessions-store.ts): an object of the session class,
 * named by the client's key. Session objects are named by 43 base64url characters, never with a colon.
 */
export const liveSessionsStub = (env: Pick<ObjectBindings, "MCP_SESSION">, clientKey: string) =>
  named(env.MCP_SESSION, `live:${clientKey}`);

/** Session and task ids are 256 random bits, base64url: unguessable, and safe in a header. */
export const newSessionId = () => toBase64url(crypto.getRandomValues(new Uint8Array(32)));
export const newTaskId = newSessionId;

/** The task's own object: one per task, named by its id. */
export function taskStub(env: Pick<ObjectBindings, "MCP_TASK">, taskId: string): TaskMethods {
  return named(taskNamespace(env), `task:${taskId}`) as unknown as TaskMethods;
}

/**
 * The key of an owner's task index: its principal, or for an anonymous owner the key whose budget it
 * spends. Each revision has its own index, so a 2025 tasks/list never shows a 2026 task (which a 2025
 * session cannot read), and each revision's in-flight count is its own.
 */
export const taskIndexKey = (owner: TaskOwner, anonymousKey: string) =>
  `${owner.era}:${owner.principal ? principalClientKey(owner.principal) : anonymousKey}`;

/** An owner's task index: what counts its tasks in flight and lists them. */
export function taskIndexStub(env: Pick<ObjectBindings, "MCP_TASK">, indexKey: string): TaskIndexMethods {
  return named(taskNamespace(env), `owner:${indexKey}`) as unknown as TaskIndexMethods;
}

function taskNamespace(env: Pick<ObjectBindings, "MCP_TASK">) {
  if (!env.MCP_TASK) throw new Error("This app has task tools, but no MCP_TASK Durable Object is bound (wrangler.toml: docs/tasks.md)");
  return env.MCP_TASK;
}

/** Anything that is not shaped like our ids cannot be a session of ours (and needs no object). */
export const isSessionId = (id: string) => /^[A-Za-z0-9_-]{43}$/.test(id);

/** `notify`: list changes and resource updates, published through the hub from anywhere. */
export function createNotifier(env: HubEnv): Notifier {
  const publish = async (method: string, params?: Record<string, unknown>) => {
    await publishToHub(env, { method, params });
  };
  return {
    toolsListChanged: () => publish("notifications/tools/list_changed"),
    promptsListChanged: () => publish("notifications/prompts/list_changed"),
    resourcesListChanged: () => publish("notifications/resources/list_changed"),
    resourceUpdated: (uri) => publish("notifications/resources/updated", { uri }),
  };
}
