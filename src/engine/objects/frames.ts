/**
 * The frame a hub shard sends its listen sockets for one notification: the JSON-RPC notification
 * the client gets, built once per publish, with a NUL character where each stream's own member of
 * `params._meta` (its subscription id) goes. JSON.stringify escapes every control character, so
 * the NUL cannot occur anywhere else, and the Worker completes the frame with two slices instead
 * of parsing and serialising it again for every stream.
 */
import { isObject } from "../mcp/guards";
import { META } from "../mcp/versions";
import type { HubNotification } from "./contracts";

const SLOT = "\u0000";

/** The notification without the hub's routing fields, `params._meta` opening with the slot. */
export function notificationFrame(n: HubNotification): string {
  const { _meta, ...params } = n.params ?? {};
  // The stream's subscription id is the one its client asked with, whatever the publisher put there.
  const { [META.subscriptionId]: _ignored, ...meta } = isObject(_meta) ? _meta : {};
  // Each serialised alone, "{}" when empty (members whose value is undefined are left out).
  const rest = JSON.stringify(params).slice(1, -1);
  const others = JSON.stringify(meta).slice(1, -1);
  const head = `{"jsonrpc":"2.0","method":${JSON.stringify(n.method)},"params":{${rest}${rest ? "," : ""}`;
  return `${head}"_meta":{${SLOT}${others ? "," : ""}${others}}}}`;
}

/** The frame as one stream's client gets it: `member` (`"key":value`, JSON) in the slot. */
export function completeFrame(frame: string, member: string): string {
  const at = frame.indexOf(SLOT);
  return at === -1 ? frame : frame.slice(0, at) + member + frame.slice(at + 1);
}
