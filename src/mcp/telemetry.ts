/**
 * What the engine tells an operator about each request: one structured log
 * line (Workers Logs indexes JSON), an optional Analytics Engine data point,
 * and the app's own hooks. Records carry names and outcomes, never argument
 * values, tokens or secrets; callers and sessions appear only as hashes.
 */

/** W3C trace context as a client sends it in `_meta` (or the `traceparent` header). */
export interface TraceContext {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/** One request as the operator sees it. */
export interface RequestRecord {
  /** The negotiated protocol revision. */
  revision: string;
  lane: "modern" | "legacy";
  method: string;
  /** The tool or prompt name, or the resource URI. */
  name?: string;
  /** `result`; `tool_error` for a tool result with isError; `input_required` while waiting for the client; `error` for a JSON-RPC error. */
  outcome: "result" | "tool_error" | "input_required" | "task" | "error";
  errorCode?: number;
  durationMs: number;
  /** A hash of the caller (authorization on), so calls can be grouped by caller without naming them. */
  principal?: string;
  /** A hash of the 2025 session id. */
  session?: string;
  traceId?: string;
}

/** Hooks an app sets in `defineApp({ telemetry })` to add its own telemetry, on both lanes. */
export interface TelemetryHooks {
  /** Before each request runs (names only: no arguments). */
  onRequest?(event: Pick<RequestRecord, "revision" | "lane" | "method" | "name" | "traceId">): void;
  /** After each request; fields it returns are added to the request's log line. */
  onResult?(record: RequestRecord): Record<string, unknown> | void;
}

/** How much the engine logs: nothing, failed requests only, or one line per request. */
export type LogVolume = "off" | "errors" | "all";

/** What a lane hands the executor so it can report the request. */
export interface Reporting {
  volume: LogVolume;
  /** Analytics Engine dataset (the optional MCP_METRICS binding). */
  metrics?: { writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void };
  hooks?: TelemetryHooks;
  trace: TraceContext;
  sessionId?: string;
  /** Mixed into the hashes (the server's state secret), so a hash cannot be reversed by guessing names. */
  salt?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** W3C limits tracestate to 512 characters in practice; baggage to 8192. Longer values are dropped, not cut. */
const MAX_TRACE_VALUE = 8192;

/** The trace id of a valid traceparent (and never the all-zero id, which W3C calls invalid). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const id = traceparent ? TRACEPARENT.exec(traceparent)?.[1] : undefined;
  return id && !/^0+$/.test(id) ? id : undefined;
}

/** Trace context from a request's `_meta`, falling back to the HTTP `traceparent` header; malformed values are ignored. */
export function readTrace(meta: unknown, header?: string | null): TraceContext {
  const m = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : {};
  const pick = (v: unknown) => (typeof v === "string" && v.length <= MAX_TRACE_VALUE ? v : undefined);
  const fromMeta = traceIdOf(pick(m.traceparent)) ? (m.traceparent as string) : undefined;
  const traceparent = fromMeta ?? (traceIdOf(header ?? undefined) ? header! : undefined);
  if (!traceparent) return {};
  const trace: TraceContext = { traceparent };
  if (fromMeta && pick(m.tracestate)) trace.tracestate = m.tracestate as string;
  if (fromMeta && pick(m.baggage)) trace.baggage = m.baggage as string;
  return trace;
}

const hashes = new Map<string, string>();
/** A short salted SHA-256 of an identifier, cached per isolate (bounded): enough to group by, not to name. */
export async function pseudonym(value: string, salt = ""): Promise<string> {
  const key = `${salt}\u0000${value}`;
  let h = hashes.get(key);
  if (h === undefined) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
    h = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    if (hashes.size >= 1000) hashes.clear();
    hashes.set(key, h);
  }
  return h;
}

/** Writes the record where the operator looks: the log line, the data point, the app's hook. */
export function report(record: RequestRecord, reporting: Reporting): void {
  let extra: Record<string, unknown> | void = undefined;
  try {
    extra = reporting.hooks?.onResult?.(record);
  } catch (err) {
    console.error(JSON.stringify({ mcp: "telemetry_hook_failed", message: err instanceof Error ? err.message : String(err), traceId: record.traceId }));
  }
  const failed = record.outcome === "error" || record.outcome === "tool_error";
  if (reporting.volume === "all" || (reporting.volume === "errors" && failed)) {
    const line = JSON.stringify({ mcp: "request", ...extra, ...record });
    if (failed) console.warn(line);
    else console.log(line);
  }
  reporting.metrics?.writeDataPoint({
    blobs: [record.revision, record.method, record.name ?? "", record.outcome, record.principal ?? "", String(record.errorCode ?? "")],
    doubles: [record.durationMs],
    indexes: [record.name ?? record.method],
  });
}
