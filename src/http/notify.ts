/**
 * `notify`: publishing list changes and resource updates through the hub,
 * from a tool, a cron trigger or a queue consumer alike.
 */
import type { Env } from "../config";
import type { Notifier } from "../mcp/context";

/** One hub for the whole deployment; shard by topic here if one object is ever not enough. */
export const hubStub = (env: Pick<Env, "MCP_HUB">) => env.MCP_HUB.get(env.MCP_HUB.idFromName("global"));

export function createNotifier(env: Pick<Env, "MCP_HUB">): Notifier {
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
