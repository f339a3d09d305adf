/** What every handler (tool, resource, prompt, completion) receives besides its arguments. */
import type { Auth, Caller } from "./auth";
import type { Input } from "./input";
import type { TraceContext } from "./telemetry";
import type { UserStore } from "./user-state";
import type { CallToolResult, ClientCapabilities, Implementation, LogLevel } from "./types";

export interface Notifier {
  toolsListChanged(): Promise<void>;
  promptsListChanged(): Promise<void>;
  resourcesListChanged(): Promise<void>;
  resourceUpdated(uri: string): Promise<void>;
}

export interface HandlerContext<Env = unknown> {
  /** Which lane serves this request: "modern" (2026-07-28) or "legacy" (2025 sessions). */
  era: "modern" | "legacy";
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Aborted when the request is cancelled (2026: the client closed the stream; 2025: notifications/cancelled). */
  signal: AbortSignal;
  /** Reports progress; does nothing unless the client sent a progressToken. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message; dropped unless at or above the level the client asked for. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Take-or-require input from the client (elicitation, sampling, roots). */
  input: Input;
  /** Publishes list changes and resource updates to every listener, on both revisions. */
  notify: Notifier;
  /**
   * 2025 polling: closes the client's connection now, without ending the
   * request, after telling it to reconnect in `retryMs`; it resumes with
   * Last-Event-ID and misses nothing. Does nothing on 2026-07-28.
   */
  closeStream(retryMs?: number): void;
  /**
   * 2025: tells the client that the URL elicitation with this id (from `elicitUrl`) is finished, with
   * `notifications/elicitation/complete`, so it can retry what waited for it. Does nothing on
   * 2026-07-28, which has no such notification (the client's retry carries the answer).
   */
  completeElicitation(elicitationId: string): void;
  /** The Worker's bindings and vars. */
  env: Env;
  /** Who is calling, when authorization is on. */
  principal?: string;
  /**
   * The authenticated caller, when authorization is on: principal, scopes, client id and the claims
   * the app asked for (docs/authorization.md). Never the raw token.
   */
  auth?: Auth;
  /**
   * Who is calling, authenticated or not: ctx.auth's fields, `authenticated`, and `rateLimitKey` (the
   * key its budgets are counted under: its principal, or its address when anonymous).
   */
  caller: Caller;
  /**
   * The caller's own durable storage (docs/state.md), with `userState` in defineApp: JSON values by key
   * and the app's own tables, the same on both revisions and in a task's runs. Reading it for an
   * anonymous caller throws a clear error; no store is shared.
   */
  readonly user: UserStore;
  /** The caller's W3C trace context (`traceparent`…), to pass on to what the handler calls. */
  trace: TraceContext;
  /**
   * Runs `fn` once per task: inside a task its result (JSON) is kept in the task's storage, and a
   * later run of the handler (after input arrived, or after the object was evicted) gets the kept
   * value instead of running `fn` again. Outside a task it simply runs `fn`.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * For a tool with `task: durableTask({ support, startsInline: true })`: from here on the call is a task. In a request
   * that can take a task the handler stops here and runs again, from the start, inside the task
   * (code before this line must be safe to run twice; input asked before it is kept). Inside the task,
   * or where no task can be made, it returns at once.
   */
  startTask(): void;
  /** Inside a task: its id. */
  task?: { id: string };
  /**
   * With a surface in defineApp (`toolSearch()`, `codeMode()`; docs/tools-at-scale.md): calls the app's
   * tool `name` as a `tools/call` in this request would, through the same scope check, middleware,
   * rate limits, span and log line, and answers what that call answers. Undefined without a surface.
   */
  callTool?(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}
