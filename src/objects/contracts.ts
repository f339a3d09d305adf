/**
 * What the Worker and the two Durable Objects say to each other: the RPC
 * surfaces, the frames on their WebSockets, and the answers a session gives.
 * Kept apart from the classes so that each side can name the other without
 * importing it (the hub calls sessions, sessions call the hub).
 */
import type { ClientCapabilities, Implementation } from "../mcp/types";
import type { JsonRpcErrorObject } from "../mcp/errors";
import type { Message } from "../mcp/jsonrpc";

/** What a `subscriptions/listen` stream wants, already narrowed to the server's capabilities. */
export interface HubFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` this stream wants (the tasks extension). */
  taskIds?: string[];
}

/** What a listen socket sends its hub shard: the filter, and whose stream it is ("" when anonymous). */
export interface HubListener extends HubFilter {
  principal?: string;
}

export interface HubNotification {
  method: string;
  params?: Record<string, unknown>;
  /**
   * Set: only listeners (and 2025 sessions) of this principal get it ("" is the anonymous one).
   * It stays between the objects: the hub never sends it to a client.
   */
  principal?: string;
}

/** A task's status notification: reaches the listen streams that named its taskId, never a 2025 session. */
export const TASK_NOTIFICATION = "notifications/tasks";

/** The frame the hub sends once a listener's filter is stored: notifications published after it arrive. */
export const HUB_READY = "ready";

export interface HubRpc extends Rpc.DurableObjectBranded {
  /** A 2025 session joins, or updates its resource subscriptions. */
  register(sessionId: string, subscriptions: string[]): Promise<void>;
  unregister(sessionId: string): Promise<void>;
  /**
   * Accepts a notification for every listener and session of this shard that asked for it, and
   * returns how many that is; the sends follow the answer. Publishers call every shard
   * (addresses.ts `publishToHub`).
   */
  publish(n: HubNotification): Promise<number>;
  /** One node of a fan-out tree: delivers `n` to these 2025 sessions (through further relays when they are many). */
  relay(sessionIds: string[], n: HubNotification): Promise<number>;
}

/** Why a session refused a message; the edge turns it into an HTTP status. */
export type Refusal = "unknown-session" | "invalid" | "too-many-streams";

/** What a session answers; the edge turns it into HTTP. */
export type SessionAnswer =
  | { kind: "reply"; message: object }
  | { kind: "accepted" }
  | { kind: "stream"; stream: string; after: number }
  | { kind: "refused"; refusal: Refusal; id: string | number | null; error: JsonRpcErrorObject };

export interface SessionStart {
  sessionId: string;
  principal: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
}

/** Who sends session traffic: the principal, and the MCP-Protocol-Version header when there was one. */
export interface Caller {
  principal: string;
  /** Absent means the negotiated revision; present, it must be the negotiated one. */
  protocolVersion?: string;
}

export interface SessionRpc extends Rpc.DurableObjectBranded {
  initialize(args: SessionStart): Promise<void>;
  /** `traceparent` is the HTTP header's, for a client that sends trace context there rather than in `_meta`. */
  handle(args: Caller & { message: Message; traceparent?: string }): Promise<SessionAnswer>;
  openGet(args: Caller & { lastEventId?: string }): Promise<SessionAnswer>;
  /** `accepted` when the session is gone; a refusal when there is no such session for this caller. */
  terminate(args: Caller): Promise<SessionAnswer>;
  /** A notification published through the hub. */
  deliver(n: HubNotification): Promise<void>;
  /** Sends `ping` on the session's GET stream; false when the client holds none. */
  pingClient(): Promise<boolean>;
}

/** What a session sends a relay socket: an event (id and data), or the end of the stream. */
export type StreamFrame = { e: string; d: string } | { end: true; retry?: number };

/** The Durable Object bindings the engine needs (wrangler.toml names them). */
export interface ObjectBindings {
  MCP_SESSION: DurableObjectNamespace<SessionRpc>;
  MCP_HUB: DurableObjectNamespace<HubRpc>;
}
