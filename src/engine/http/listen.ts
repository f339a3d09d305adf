/**
 * subscriptions/listen (2026-07-28): a long-lived SSE response held by the
 * Worker, fed by the hub over a hibernatable WebSocket. The stream opens with
 * the acknowledgement, tags every notification with the subscription id,
 * sends keep-alive comments, and ends with the listen result when the server
 * side closes.
 */
import type { Env } from "../env";
import { authView, type Auth } from "../mcp/auth";
import { encodeModernResult } from "../mcp/encode";
import { ErrorCode, invalidParams, missingClientCapability, toMcpError } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { notification, resultResponse, type JsonRpcRequest } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { META } from "../mcp/versions";
import type { ClientCapabilities } from "../mcp/types";
import { readConfig } from "../config";
import { HUB_READY, type HubFilter, type HubListener, type ListenRefusal } from "../objects/contracts";
import { completeFrame } from "../objects/frames";
import { rpcError } from "./responses";
import { refusedStatus } from "./status";
import type { Caller } from "../mcp/auth";
import { openHubSocket } from "./hub-stream";
import { SseStream } from "./sse";

/** The filter's list-changed switches, each with the capability that must declare `listChanged` for it. */
const LIST_CHANGED = { toolsListChanged: "tools", promptsListChanged: "prompts", resourcesListChanged: "resources" } as const;

/**
 * Resource URIs one listen request may subscribe to. Every publish of a resource update checks each
 * of them, so the list is capped; a client that needs more opens another listen stream.
 */
const MAX_LISTEN_RESOURCE_URIS = 256;
/**
 * Longest resource URI in a listen filter, in UTF-8 bytes: the common practical limit for URLs.
 * With the count cap a filter stays under 512 KiB, which the hub stores and sends in one frame.
 */
const MAX_LISTEN_URI_LENGTH = 2048;

/** The tasks extension, which a listen filter needs on both sides to name task ids. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Task ids one listen request may follow, and the longest id: each publish of a task checks them all. */
export const MAX_LISTEN_TASK_IDS = 256;
export const MAX_LISTEN_TASK_ID_LENGTH = 256;

const encoder = new TextEncoder();

/** How one list of a filter is bounded: how many entries, and how long each one may be (and in what). */
interface ListBounds {
  /** What the list holds, as the errors name it: "URIs" and "a URI". */
  entries: string;
  entry: string;
  maxEntries: number;
  lengthOf(entry: string): number;
  unit: string;
  maxLength: number;
}

const RESOURCE_URIS: ListBounds = {
  entries: "URIs",
  entry: "a URI",
  maxEntries: MAX_LISTEN_RESOURCE_URIS,
  lengthOf: (uri) => encoder.encode(uri).byteLength,
  unit: "bytes",
  maxLength: MAX_LISTEN_URI_LENGTH,
};
const TASK_IDS: ListBounds = {
  entries: "ids",
  entry: "an id",
  maxEntries: MAX_LISTEN_TASK_IDS,
  lengthOf: (id) => id.length,
  unit: "characters",
  maxLength: MAX_LISTEN_TASK_ID_LENGTH,
};

/** `notifications[key]`, checked in shape and against its bounds; undefined when absent. */
function requestedList(
  r: Record<string, unknown>,
  key: string,
  { entries, entry, maxEntries, lengthOf, unit, maxLength }: ListBounds,
): string[] | undefined {
  const list = r[key];
  if (list === undefined) return undefined;
  if (!(Array.isArray(list) && list.every((s) => typeof s === "string")))
    throw invalidParams(`notifications.${key} must be an array of strings`);
  if (list.length > maxEntries)
    throw invalidParams(`notifications.${key} has ${list.length} ${entries}; at most ${maxEntries} per listen request`);
  for (const item of list as string[]) {
    const length = lengthOf(item);
    if (length > maxLength) throw invalidParams(`notifications.${key} has ${entry} of ${length} ${unit}; at most ${maxLength}`);
  }
  return list as string[];
}

/**
 * The subset of the requested filter this server honours (echoed in the acknowledgement).
 * `client` is the request's declared capabilities (its `_meta` envelope).
 */
export function honouredFilter(requested: unknown, reg: Registry, client?: ClientCapabilities, auth?: Auth): HubFilter {
  if (!isObject(requested)) throw invalidParams("subscriptions/listen needs params.notifications (an object)");
  const r = requested;
  for (const key in LIST_CHANGED)
    if (r[key] !== undefined && typeof r[key] !== "boolean") throw invalidParams(`notifications.${key} must be a boolean`);
  const uris = requestedList(r, "resourceSubscriptions", RESOURCE_URIS);
  // Task ids are checked in shape first, then against the client's declared extensions.
  const taskIds = requestedList(r, "taskIds", TASK_IDS);
  if (taskIds && !(isObject(client?.extensions) && client.extensions[TASKS_EXTENSION]))
    throw missingClientCapability({ extensions: { [TASKS_EXTENSION]: {} } });

  const caps = reg.capabilities;
  const out: HubFilter = {};
  for (const [key, capability] of Object.entries(LIST_CHANGED))
    if (r[key] === true && caps[capability]?.listChanged) out[key as keyof typeof LIST_CHANGED] = true;
  // Only the resources the caller may read: subscribing needs what reading needs (operations.ts).
  if (uris && caps.resources?.subscribe)
    out.resourceSubscriptions = auth && reg.allows ? uris.filter((uri) => reg.allows!("resources/subscribe", { uri }, auth)) : uris;
  const extensions = caps.extensions as Record<string, unknown> | undefined;
  if (taskIds && extensions?.[TASKS_EXTENSION]) out.taskIds = taskIds;
  return out;
}

/** What a 429 from the hub means for the client: which of its limits it reached. */
const LISTEN_REFUSALS: Record<ListenRefusal, string> = {
  streams: "this client has too many open listen streams (MAX_LISTEN_STREAMS)",
  "filter-bytes": "this client's open listen streams hold too many filter bytes (MAX_LISTEN_FILTER_BYTES)",
};

/**
 * Opens a listen stream for `caller`. Its rate-limit key names the client whose budget of streams and
 * filter bytes it spends (its principal, or its address when anonymous): the hub shard of that
 * client counts both.
 */
export async function serveListen(msg: JsonRpcRequest, reg: Registry, env: Env, caller: Caller): Promise<Response> {
  const principal = caller.principal || undefined;
  const clientKey = caller.rateLimitKey;
  const auth = authView(caller);
  // Only the id outlives this call: the request, its filter included, is not kept while the stream is open.
  const { id } = msg;
  let filter: HubFilter | undefined;
  try {
    const meta = msg.params?._meta;
    const client =
      isObject(meta) && isObject(meta[META.clientCapabilities]) ? (meta[META.clientCapabilities] as ClientCapabilities) : undefined;
    filter = honouredFilter(msg.params?.notifications, reg, client, auth);
  } catch (err) {
    const e = toMcpError(err);
    return rpcError(id, e.toJSON(), refusedStatus(e.code));
  }
  // The principal stays with the filter in the hub, so a principal's notifications reach only its streams.
  const listener = JSON.stringify({ ...filter, principal: principal ?? "" } satisfies HubListener);
  const bytes = encoder.encode(listener).byteLength;
  const { maxListenStreams, maxListenFilterBytes } = readConfig(env);
  if (bytes > maxListenFilterBytes)
    return rpcError(
      id,
      invalidParams(`this listen filter is ${bytes} bytes; at most ${maxListenFilterBytes} (MAX_LISTEN_FILTER_BYTES)`).toJSON(),
      400,
    );

  const subscriptionMeta = { [META.subscriptionId]: id };
  // This stream's member of every notification's _meta, serialised once.
  const member = JSON.stringify(subscriptionMeta).slice(1, -1);

  const unavailable = () =>
    rpcError(id, { code: ErrorCode.InternalError, message: "The notification hub is unavailable; retry the listen request" }, 503);
  const hub = await openHubSocket(
    env,
    clientKey,
    { bytes, streams: maxListenStreams, budget: maxListenFilterBytes },
    "subscriptions/listen",
  );
  if ("refused" in hub)
    return rpcError(
      id,
      {
        code: ErrorCode.InvalidRequest,
        message: `Too Many Requests: ${LISTEN_REFUSALS[hub.refused]}; close one, or listen to more in one stream`,
      },
      429,
    );
  if ("unavailable" in hub) return unavailable();
  const { ws } = hub;

  const sse = new SseStream(() => ws.close(1000, "client closed the listen stream"));
  ws.addEventListener("message", (event) => {
    if (filter) {
      if (event.data !== HUB_READY) return;
      // Ack only once the hub has the filter, so nothing published after the ack can be missed.
      sse.send(notification("notifications/subscriptions/acknowledged", { _meta: subscriptionMeta, notifications: filter }));
      // From here the hub alone holds the filter: the Worker keeps none of it while the stream is open.
      filter = undefined;
      return;
    }
    // The hub's frame is the notification itself, short of this stream's subscription id.
    sse.sendJson(completeFrame(event.data as string, member));
  });
  ws.addEventListener("close", () => {
    // The server side ended the subscription: say so with the listen result, then close.
    if (sse.isOpen) {
      sse.send(resultResponse(id, encodeModernResult("subscriptions/listen", { _meta: subscriptionMeta }, reg, principal)));
      sse.close();
    }
  });
  ws.send(listener);
  sse.comment("listening");
  sse.startKeepAlive();
  return sse.response;
}
