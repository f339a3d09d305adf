/**
 * What a server the client connects to may make it do, at most. A server may
 * be hostile or broken; none of these can be reached by one that follows the
 * protocol with sensible answers, and each can be raised (McpClientOptions.limits)
 * by an app that talks to a server it trusts to send more. docs/client-limits.md
 * lists them.
 */
export interface ClientLimits {
  /** Bytes of one message: a JSON body, or one SSE event (default 16 MiB). */
  maxMessageBytes: number;
  /** Pages `listAllTools` follows (default 100); a cursor seen before ends the listing at once. */
  maxListPages: number;
  /** Requests the app's handlers answer in one 2026-07-28 input round (default 16). */
  maxInputRequests: number;
  /** The shortest wait before reconnecting a 2025-11-25 stream, whatever `retry:` says (default 500 ms). */
  minRetryMs: number;
  /**
   * Reconnections in a row that bring nothing before a 2025-11-25 stream is given up (default 8); each
   * waits twice the last, up to 30 s. A GET stream that stayed open that long was not empty.
   */
  maxReconnects: number;
  /** Schema nodes the outputSchema check visits per result (default 10 000); past it the rest passes. */
  schemaSteps: number;
  /** How deep the outputSchema check follows nested schemas and `$ref`s (default 64); deeper passes. */
  schemaDepth: number;
  /** Longest string a `pattern` is tested on (default 10 000 characters); longer strings pass. */
  patternInputLength: number;
}

export const DEFAULT_LIMITS: Readonly<ClientLimits> = {
  maxMessageBytes: 16 * 1024 * 1024,
  maxListPages: 100,
  maxInputRequests: 16,
  minRetryMs: 500,
  maxReconnects: 8,
  schemaSteps: 10_000,
  schemaDepth: 64,
  patternInputLength: 10_000,
};

/** The longest wait between reconnections, however many came back empty. */
export const MAX_BACKOFF_MS = 30_000;

/** The wait before reconnection number `idle` (0 after a connection that brought something). */
export function backoff(retry: number, idle: number, limits: ClientLimits): number {
  const base = Math.max(retry, limits.minRetryMs);
  return Math.max(base, Math.min(MAX_BACKOFF_MS, base * 2 ** Math.min(idle, 16)));
}
