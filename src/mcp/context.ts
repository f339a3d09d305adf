/** What every handler (tool, resource, prompt, completion) receives besides its arguments. */
import type { Input } from "./input";
import type { TraceContext } from "./telemetry";
import type { ClientCapabilities, Implementation, LogLevel } from "./types";

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
  /** The caller's W3C trace context (`traceparent`…), to pass on to what the handler calls. */
  trace: TraceContext;
}
