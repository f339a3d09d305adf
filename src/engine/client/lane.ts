/**
 * What both revisions offer the client: send one request and get its
 * result. The 2026-07-28 lane does it statelessly in one POST; the 2025-11-25
 * lane inside a session. Everything above this (typed methods, the input
 * loop, caching) is written once against this interface.
 */
import type { LogLevel } from "../mcp/types";
import type { InputHandlers } from "./handlers";
import type { ClientLimits } from "./limits";
import type { ListenFilter } from "./listen";
import type { Fetch, WireMessage } from "./wire";

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
export interface LogMessage {
  level: LogLevel;
  logger?: string;
  data: unknown;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Called for each `notifications/progress` of this request (asks the server for them). */
  onProgress?: (progress: Progress) => void;
  /** Called for each log message of this request (2026-07-28 asks per request; 2025-11-25 per session). */
  onLog?: (message: LogMessage) => void;
  /** Extra headers for this request (the client adds `Mcp-Param-*` here). */
  headers?: Record<string, string>;
  /**
   * Give up (and cancel) when the server has sent nothing for this request for this long; each progress
   * notification, log line or question restarts the clock, up to ten times this in all. Defaults to the
   * client's `timeoutMs`; 0 waits for ever.
   */
  timeoutMs?: number;
}

/** How the client follows tasks (McpClientOptions.tasks). */
export interface TaskOptions {
  /** Poll no more often than this, whatever the server suggests (default 100 ms). */
  minPollMs?: number;
  /** 2025-11-25: how long the server should keep a task and its result (`params.task.ttl`); the server may cap it. */
  ttlMs?: number;
  /** Called with the task whenever the client learns its state (created, each poll). */
  onTask?: (task: Record<string, unknown>) => void;
}

export interface Lane {
  /** The protocol revision this lane speaks. */
  readonly version: string;
  /** "modern": 2026-07-28, each request stands alone; "legacy": a 2025-11-25 session. */
  readonly era: "modern" | "legacy";
  request(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Shows the server is there: `ping` in a session; a revision without `ping` discovers. */
  ping(signal?: AbortSignal): Promise<void>;
  /** Tells the server the app's roots changed; a revision that has no such notice does nothing. */
  rootsChanged(): Promise<void>;
  /**
   * Starts delivering what `filter` asks for. Resolves once the server will send it (it acknowledged,
   * or the session stream is open) with what it agreed to and the messages; `signal` ends it.
   */
  listen(filter: ListenFilter, signal: AbortSignal): Promise<{ filter: ListenFilter; messages: AsyncGenerator<WireMessage> }>;
  close(): Promise<void>;
}

/** What a lane needs from the client that built it. */
export interface LaneConfig {
  url: string;
  fetch: Fetch;
  clientInfo: { name: string; version: string; [key: string]: unknown };
  handlers: InputHandlers;
  /** Headers sent with every request (an app's own, never routing ones). */
  headers: Record<string, string>;
  logLevel?: LogLevel;
  /** The default request timeout (McpClientOptions.timeoutMs). */
  timeoutMs: number;
  /** What a server may make the client do, at most (McpClientOptions.limits over DEFAULT_LIMITS). */
  limits: ClientLimits;
  /** Extensions the client declares (McpClientOptions.extensions). */
  extensions?: Record<string, object>;
  /** Set when the client takes tasks (McpClientOptions.tasks). */
  tasks?: TaskOptions;
  /** Notifications that belong to no request of ours (list changes, session-wide logs). */
  onNotification?: (message: WireMessage) => void;
}

let counter = 0;
/** Request ids unique among this isolate's outstanding requests, which is all 2026-07-28 asks. */
export const nextId = (): number => ++counter;

/** Routes a request-scoped notification to the callbacks of its request. */
export function deliver(
  message: WireMessage,
  options: CallOptions | undefined,
  progressToken: string | number | undefined,
  fallback?: (m: WireMessage) => void,
): void {
  const p = message.params ?? {};
  if (message.method === "notifications/progress" && options?.onProgress && p.progressToken === progressToken) {
    options.onProgress({
      progress: p.progress as number,
      ...(p.total !== undefined ? { total: p.total as number } : {}),
      ...(p.message !== undefined ? { message: p.message as string } : {}),
    });
    return;
  }
  if (message.method === "notifications/message" && options?.onLog) {
    options.onLog({ level: p.level as LogLevel, data: p.data, ...(p.logger !== undefined ? { logger: p.logger as string } : {}) });
    return;
  }
  fallback?.(message);
}
