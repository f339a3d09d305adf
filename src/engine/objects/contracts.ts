/**
 * What the Worker and the Durable Objects (hub shard, session, task) say to each other: the RPC
 * surfaces, the frames on their WebSockets, and the answers a session gives.
 * Kept apart from the classes so that each side can name the other without
 * importing it.
 */
import type { Quirks } from "../mcp/quirks";
import type { Auth, Caller } from "../mcp/auth";
import type { TaskOwner, TaskView } from "../mcp/tasks";

export type { TaskOwner };
import type { TraceContext } from "../mcp/telemetry";
import type { ClientCapabilities, Implementation } from "../mcp/types";
import type { JsonRpcErrorObject } from "../mcp/errors";
import type { Message } from "../mcp/jsonrpc";
import type { OverLimit, TaskLimits } from "./task-index-store";
import type { UserRpc } from "../user/contract";

/** What a `subscriptions/listen` stream wants, already narrowed to the server's capabilities. */
export interface HubFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` this stream wants (the tasks extension). */
  taskIds?: string[];
  /** An `events/stream`'s subscription: the event type, and its arguments with each value as canonical JSON. */
  event?: { name: string; args: Record<string, string> };
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
  /** An event occurrence's `match`, each value as canonical JSON: it reaches the event streams whose arguments fit. */
  match?: Record<string, string>;
}

/** An event occurrence on an `events/stream` (MCP Events, src/engine/events/). */
export const EVENT_NOTIFICATION = "notifications/events/event";

/** A task's status notification: reaches the listen streams that named its taskId, never a 2025 session. */
export const TASK_NOTIFICATION = "notifications/tasks";

/** The frame the hub sends once a listener's filter is stored: notifications published after it arrive. */
export const HUB_READY = "ready";

/**
 * What a client reads when a session refuses it: the same words whether the session object said it
 * or the Worker did (a stream the object had no room for, a session id it could not open), once here.
 */
export const SESSION_NOT_FOUND = "Session not found; send initialize again";
export const TOO_MANY_STREAMS = "Too Many Requests: this session has too many open streams (MAX_STREAMS_PER_SESSION)";

/** The header of a 2025 GET stream socket's 101: the stream's place in the shard's session log when it joined. */
export const HUB_SEQ_HEADER = "Hub-Seq";

/**
 * Why a hub shard refused a new listen socket (the body of its 429): the client already holds
 * MAX_LISTEN_STREAMS streams, or this filter would take its filters past MAX_LISTEN_FILTER_BYTES.
 */
export type ListenRefusal = "streams" | "filter-bytes";

/** The hub shard's role (hub.ts): who listens, and publishing to them. */
export interface HubShardRpc {
  /** A 2025 session joins, or updates its resource subscriptions. */
  register(sessionId: string, subscriptions: string[]): Promise<void>;
  unregister(sessionId: string): Promise<void>;
  /**
   * Accepts a notification for every listener and session of this shard that asked for it, and
   * returns how many that is; the sends follow the answer. Publishers call every shard
   * (addresses.ts `publishToHub`).
   */
  publish(n: HubNotification): Promise<number>;
  /**
   * What a 2025 GET stream resuming after row `after` of this shard's session log missed, and the
   * newest row: its socket then joins from there (the Worker writes these before anything else).
   */
  missedBy(seat: { session: string; principal: string }, after: number): Promise<{ frames: HubSessionFrame[]; head: number }>;
}

interface HubRpc extends HubShardRpc, Rpc.DurableObjectBranded {}

/**
 * Where a 2025 GET stream takes its session's notifications from: a socket to the hub shard the
 * session joined, beside the pipe to the session object. `after` is the last row of the shard's
 * session log the client has (from its Last-Event-ID), or -1 for a new stream (from now on).
 */
export interface HubSeat {
  shard: number;
  session: string;
  principal: string;
  after: number;
}

/** Why a session refused a message; the edge turns it into an HTTP status. */
export type Refusal = "unknown-session" | "invalid" | "too-many-streams" | "too-many-sessions";

/** What a session answers; the edge turns it into HTTP. */
export type SessionAnswer =
  | { kind: "reply"; message: object }
  /** A call's JSON-RPC response, serialised once by the session: the Worker sends the text as it is. */
  | { kind: "json"; text: string }
  | { kind: "accepted" }
  | { kind: "stream"; stream: string; after: number; hub?: HubSeat }
  | { kind: "refused"; refusal: Refusal; id: string | number | null; error: JsonRpcErrorObject };

export interface SessionStart {
  sessionId: string;
  principal: string;
  /** Anonymous: the client's key (its address), whose task budget the session's tasks spend. */
  clientKey?: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** When initialize ran, epoch milliseconds: a session lives at most SESSION_MAX_SECONDS from then. */
  createdAt: number;
}

/** Who sends session traffic: the principal, and the MCP-Protocol-Version header when there was one. */
export interface SessionRequester {
  principal: string;
  /**
   * Who sends this request, as the edge authenticated it: its handlers' ctx.caller (the session is
   * bound to `principal`). Absent for a caller nobody authenticated, who is its `clientKey` alone:
   * the object rebuilds that caller rather than have it cloned across on every request.
   */
  caller?: Caller;
  /** An anonymous caller's key (its address, as the rate limits key it), when `caller` is absent. */
  clientKey?: string;
  /** Absent means the negotiated revision; present, it must be the negotiated one (or, unless STRICT_HEADERS=on, a newer one). */
  protocolVersion?: string;
  /** The hosted-client quirks the Worker served in this request (http/quirks.ts), for its log line. */
  quirks?: Quirks;
  /** STRICT_HEADERS as the Worker reads it: on, a newer revision's header is refused too. */
  strictHeaders?: boolean;
  /**
   * What the sealed session id says initialize negotiated, checked by the Worker for this principal.
   * A session that holds no state yet has nothing else; absent for a plain (stored) session id.
   */
  seal?: SessionStart;
  /** SESSION_MAX_LIVE as the Worker reads it, per request like every limit the edge passes on. */
  maxLive?: number;
}

export interface SessionRpc extends Rpc.DurableObjectBranded {
  /** Stores a session from the start: only for an id that could not be sealed. Refused over SESSION_MAX_LIVE. */
  initialize(args: SessionStart, maxLive?: number): Promise<SessionAnswer>;
  /** `traceparent` is the HTTP header's, for a client that sends trace context there rather than in `_meta`. */
  handle(args: SessionRequester & { message: Message; traceparent?: string }): Promise<SessionAnswer>;
  openGet(args: SessionRequester & { lastEventId?: string }): Promise<SessionAnswer>;
  /** `accepted` when the session is gone; a refusal when there is no such session for this caller. */
  terminate(args: SessionRequester): Promise<SessionAnswer>;
  /** Sends `ping` on the session's GET stream; false when the client holds none. */
  pingClient(): Promise<boolean>;
  /** A task this session created or waits on changed: its status notification, and the answer to a waiting `tasks/result`. */
  taskUpdated(task: TaskView): Promise<void>;
  /** A task this session created or waits on passed its ttl and is gone: a `tasks/result` still waiting on it ends with -32602. */
  taskExpired(taskId: string): Promise<void>;
  /** A 2025 task's progress or log message, for the session's GET stream. */
  taskMessage(message: { method: string; params?: Record<string, unknown> }): Promise<void>;
  // The same class serves as a client's index of live sessions (one object per client key).
  /** Counts a session that starts holding state; false when the client already holds `cap` (and `force` is not set). */
  admitLive(sessionId: string, cap: number, expiresAt: number, force: boolean): Promise<boolean>;
  /** A counted session ended. */
  releaseLive(sessionId: string): Promise<void>;
}

/** What a lane hands the task object to create a task. */
export interface TaskStart {
  taskId: string;
  owner: TaskOwner;
  /** The owner index that counts this task against the owner's limits (and lists it, for tasks/list). */
  indexKey: string;
  limits: TaskLimits;
  /** The tools/call params, as the client sent them. */
  params: Record<string, unknown>;
  /** The tool's name, kept with the record when the params are dropped (a finished task's owner is checked for its scopes). */
  tool?: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Answers gathered in the request before the call became a task (startsInline). */
  answers: Record<string, unknown>;
  ttlMs: number;
  pollIntervalMs: number;
  immediateMs: number;
  trace: TraceContext;
  /** 2025: the original request's progressToken, which stays valid for the task's life. */
  progressToken?: string | number;
  /** Who made the task (never a token; its claims bounded), which each run's handler sees as ctx.caller. */
  caller?: Caller;
  /** Older tasks (before `caller`): the view of an authenticated maker, and its rate-limit key. */
  auth?: Auth;
  rateLimitKey?: string;
}

export type TaskCreated =
  | { kind: "task"; task: TaskView }
  /** Finished within the tool's immediateMs: answered as a plain result; the task is gone. */
  | { kind: "immediate"; result: Record<string, unknown> }
  | { kind: "refused"; error: JsonRpcErrorObject };

/**
 * A task object's methods as callers see them. Its values are JSON; the platform's RPC types cannot
 * prove that of `unknown` fields (they type such a result as never), so stubs are given this type.
 */
export interface TaskMethods {
  create(start: TaskStart): Promise<TaskCreated>;
  /** null: no such task for this owner (never created, expired, or someone else's). */
  get(owner: TaskOwner): Promise<TaskView | null>;
  /** The tool the task runs, for its owner ("" for anyone else): its scopes are checked again when the owner reaches it. */
  toolOf(owner: TaskOwner): Promise<string>;
  /**
   * 2025 tasks/result: the task as get() gives it, and from now on `sessionId` is told of its changes
   * and its expiry (any session of the owner may wait on it); an error when too many already are.
   */
  watch(owner: TaskOwner, sessionId: string): Promise<{ task: TaskView } | { error: JsonRpcErrorObject } | null>;
  /** Takes answers to outstanding input requests; unknown or already answered keys are ignored. */
  update(owner: TaskOwner, inputResponses: Record<string, unknown>): Promise<{ error?: JsonRpcErrorObject } | null>;
  /** Stops the task and deletes it: its anonymous 2025 session ended, so nobody can reach it again. */
  discard(owner: TaskOwner): Promise<void>;
  /** Cancels a task that has not finished; `wasTerminal` when it had (and nothing changed). */
  cancel(owner: TaskOwner): Promise<{ task: TaskView; wasTerminal: boolean } | null>;
}

/** The same class named by an owner key is that owner's task index (task-index.ts). */
export interface TaskIndexMethods {
  /** Counts a new task (with the bytes it stores at first) against the owner's limits; the limit it would pass, if any. */
  admit(taskId: string, task: TaskView, bytes: number, limits: TaskLimits): Promise<OverLimit | undefined>;
  /** The task's latest state for listing and the bytes its object stores, or null to forget it (expired). */
  record(taskId: string, task: TaskView | null, bytes: number): Promise<void>;
  list(cursor: string | undefined, pageSize: number): Promise<{ tasks: TaskView[]; nextCursor?: string } | null>;
}

/** With `resultBudget()`, the same class named `result:<id>` keeps one cut tool result whole (kept-results.ts). */
export interface KeptResultMethods {
  /** Keeps `whole` (a CallToolResult's JSON) for `owner` ("" for anonymous) until `expiresAt` (ms). */
  keepResult(owner: string, whole: string, expiresAt: number): Promise<void>;
  /** The kept JSON when `principal` may read it (its owner; anyone for an anonymous owner's) and it has not expired. */
  readKeptResult(principal: string): Promise<string | undefined>;
}

export interface TaskRpc extends TaskMethods, TaskIndexMethods, Rpc.DurableObjectBranded {}
export interface KeptResultRpc extends KeptResultMethods, Rpc.DurableObjectBranded {}

/** What a session sends the Worker's pipe socket: an event (id and data), or the end of the stream. */
export type StreamFrame = { e: string; d: string } | { end: true; retry?: number };

/** What a hub shard sends a 2025 GET stream's socket: a notification and its row in the shard's session log. */
export interface HubSessionFrame {
  h: number;
  d: string;
}

/** The Durable Object bindings the engine needs (wrangler.toml names them). */
export interface ObjectBindings {
  MCP_SESSION: DurableObjectNamespace<SessionRpc>;
  MCP_HUB: DurableObjectNamespace<HubRpc>;
  /** Tasks and their owners' indexes, and cut tool results kept whole (docs/results.md); needed only by an app with task tools or `resultBudget()`. */
  MCP_TASK?: DurableObjectNamespace<TaskRpc>;
  /** Per-user state (docs/state.md), one object per principal; needed only by an app with `userState`. */
  MCP_USER?: DurableObjectNamespace<UserRpc>;
}
