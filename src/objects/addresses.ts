/**
 * How the engine finds its Durable Objects: one hub for notifications, one
 * object per 2025 session named by its session id. Sharding the hub would
 * start here.
 */
import { toBase64url } from "../mcp/base64url";
import type { Notifier } from "../mcp/context";
import type { ObjectBindings, TaskMethods } from "./contracts";

/** One hub for the whole deployment. */
export const hubStub = (env: Pick<ObjectBindings, "MCP_HUB">) => env.MCP_HUB.get(env.MCP_HUB.idFromName("global"));

export const sessionStub = (env: Pick<ObjectBindings, "MCP_SESSION">, sessionId: string) =>
  env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sessionId));

/** Session and task ids are 256 random bits, base64url: unguessable, and safe in a header. */
export const newSessionId = () => toBase64url(crypto.getRandomValues(new Uint8Array(32)));
export const newTaskId = newSessionId;

/** The task's own object: one per task, named by its id. */
export function taskStub(env: Pick<ObjectBindings, "MCP_TASK">, taskId: string): TaskMethods {
  const ns = taskNamespace(env);
  return ns.get(ns.idFromName(`task:${taskId}`)) as unknown as TaskMethods;
}

/** An owner's task index: what counts its tasks in flight and lists them. */
export function taskIndexStub(env: Pick<ObjectBindings, "MCP_TASK">, indexKey: string): TaskMethods {
  const ns = taskNamespace(env);
  return ns.get(ns.idFromName(`owner:${indexKey}`)) as unknown as TaskMethods;
}

function taskNamespace(env: Pick<ObjectBindings, "MCP_TASK">) {
  if (!env.MCP_TASK) throw new Error("This app has task tools, but no MCP_TASK Durable Object is bound (wrangler.toml: README → Tasks)");
  return env.MCP_TASK;
}

/** Anything that is not shaped like our ids cannot be a session of ours (and needs no object). */
export const isSessionId = (id: string) => /^[A-Za-z0-9_-]{43}$/.test(id);

/** `notify`: list changes and resource updates, published through the hub from anywhere. */
export function createNotifier(env: Pick<ObjectBindings, "MCP_HUB">): Notifier {
  const publish = async (method: string, params?: Record<string, unknown>) => {
    await hubStub(env).publish(params ? { method, params } : { method });
  };
  return {
    toolsListChanged: () => publish("notifications/tools/list_changed"),
    promptsListChanged: () => publish("notifications/prompts/list_changed"),
    resourcesListChanged: () => publish("notifications/resources/list_changed"),
    resourceUpdated: (uri) => publish("notifications/resources/updated", { uri }),
  };
}
