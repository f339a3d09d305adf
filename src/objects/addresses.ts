/**
 * How the engine finds its Durable Objects: one hub for notifications, one
 * object per 2025 session named by its session id. Sharding the hub would
 * start here.
 */
import { toBase64url } from "../mcp/base64url";
import type { Notifier } from "../mcp/context";
import type { ObjectBindings } from "./contracts";

/** One hub for the whole deployment. */
export const hubStub = (env: Pick<ObjectBindings, "MCP_HUB">) => env.MCP_HUB.get(env.MCP_HUB.idFromName("global"));

export const sessionStub = (env: Pick<ObjectBindings, "MCP_SESSION">, sessionId: string) =>
  env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sessionId));

/** Session ids are 256 random bits, base64url: unguessable, and safe in a header. */
export const newSessionId = () => toBase64url(crypto.getRandomValues(new Uint8Array(32)));

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
