/**
 * What the engine tells an operator about each request: one structured log
 * line (Workers Logs indexes JSON), an optional Analytics Engine data point,
 * and the app's own hooks. Records carry names and outcomes, never argument
 * values, tokens or secrets; callers and sessions appear only as hashes.
 */
import { messageOf } from "./errors";
import { bounded, isObject } from "./guards";
import type { Guard } from "./operations";
import type { Tracer } from "./tracing";

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
  /** The request shapes the edge served that the spec does not allow ("version-other+accept-json"; docs/connect.md). */
  quirks?: string;
}

/** Hooks an app sets in `defineApp({ telemetry })` to add its own telemetry, on both lanes. */
export interface TelemetryHooks {
  /** Before each request runs (names only: no arguments). */
  onRequest?(event: Pick<RequestRecord, "revision" | "lane" | "method" | "name" | "traceId">): void;
  /** After each request; fields it returns are added to the request's log line. */
  onResult?(record: RequestRecord): Record<string, unknown> | void;
}

/** The Analytics Engine dataset (the optional MCP_METRICS binding), as far as the engine writes to it. */
interface Metrics {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

/**
 * One metrics point, by name: the one layout every emitter writes (requests, event deliveries),
 * docs/observability.md: blob1 revision, blob2 method, blob3 name, blob4 outcome, blob5 caller hash,
 * blob6 code, blob7 quirks; double1 duration, double2 attempt; index1 what it is indexed by.
 */
interface MetricsPoint {
  revision: string;
  method: string;
  /** The app's name for the target (a registered tool, an event type); never one a client made up. */
  name?: string;
  outcome: string;
  principal?: string;
  /** The JSON-RPC error code, an HTTP status or a reason. */
  code?: string;
  quirks?: string;
  durationMs: number;
  /** A delivery's attempt number. */
  attempt?: number;
  /** The index: the name, else the method. */
  index: string;
}

/** Writes one metrics point in the one layout (MetricsPoint); without the binding, nothing. */
export function writePoint(metrics: Metrics | undefined, p: MetricsPoint): void {
  metrics?.writeDataPoint({
    blobs: [p.revision, p.method, p.name ?? "", p.outcome, p.principal ?? "", p.code ?? "", p.quirks ?? ""],
    doubles: p.attempt === undefined ? [p.durationMs] : [p.durationMs, p.attempt],
    indexes: [p.index],
  });
}

/**
 * Writes one structured log line, `{"mcp":"<kind>",…fields}` (Workers Logs indexes JSON): the one
 * writer of the engine's lines, to the console method `level` names.
 */
export function writeLog(level: "log" | "warn" | "error", kind: string, fields: object): void {
  // The fields behind `"mcp":kind` (each kind the engine's own word): the same text as serializing the
  // merged object, without building it on every request.
  const rest = logLine(fields);
  // Fields that are all undefined serialize to "{}": the line is then the kind alone, still JSON.
  console[level](rest === "{}" ? `{"mcp":"${kind}"}` : `{"mcp":"${kind}",${rest.slice(1)}`);
}

/** How much the engine logs: nothing, failed requests only, or one line per request. */
type LogVolume = "off" | "errors" | "all";

/** What a lane hands the executor so it can report the request. */
export interface Reporting {
  volume: LogVolume;
  /** Analytics Engine dataset (the optional MCP_METRICS binding). */
  metrics?: Metrics;
  hooks?: TelemetryHooks;
  trace: TraceContext;
  sessionId?: string;
  /** Mixed into the hashes (the server's state secret), so a hash cannot be reversed by guessing names. */
  salt?: string;
  /**
   * The name the app registered for a request's target (a tool or prompt, a resource or the template
   * it matches); undefined for a name the client made up, which never becomes a metrics dimension.
   */
  registered?(guard: Guard | undefined): string | undefined;
  /** Where the request's span is made (the Workers tracing API); omitted (TRACING=off), none is. */
  tracer?: Tracer;
  /** The JSON-RPC id of the request, for its span. */
  requestId?: string | number;
  /** The quirks the edge served in this request (http/quirks.ts), named in RequestRecord.quirks. */
  quirks?: readonly string[];
}

/**
 * A valid traceparent, its trace id captured. W3C Trace Context calls version ff and an all-zero trace
 * or parent id invalid, so the lookaheads refuse them.
 */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** W3C limits tracestate to 512 characters in practice; baggage to 8192. Longer values are dropped, not cut. */
const MAX_TRACE_VALUE = 8192;

/** The trace id of a valid traceparent (see TRACEPARENT); an invalid one is ignored. */
export const traceIdOf = (traceparent: string | undefined): string | undefined => TRACEPARENT.exec(traceparent ?? "")?.[1];

/** Trace context from a request's `_meta`, falling back to the HTTP `traceparent` header; malformed values are ignored. */
export function readTrace(meta: unknown, header?: string | null): TraceContext {
  const m = isObject(meta) ? meta : {};
  const pick = (v: unknown) => (typeof v === "string" && v.length <= MAX_TRACE_VALUE ? v : undefined);
  const fromMeta = traceIdOf(pick(m.traceparent)) ? (m.traceparent as string) : undefined;
  const traceparent = fromMeta ?? (traceIdOf(header ?? undefined) ? header! : undefined);
  if (!traceparent) return {};
  const trace: TraceContext = { traceparent };
  if (fromMeta && pick(m.tracestate)) trace.tracestate = m.tracestate as string;
  if (fromMeta && pick(m.baggage)) trace.baggage = m.baggage as string;
  return trace;
}

/**
 * Hashes made in this isolate, by salt, then by the value. Keyed by the value itself rather than by
 * salt and value joined: a 2025 session's sealed id is over a kilobyte, and the same string comes
 * with every request of the session, so its hash is computed once rather than a joined copy hashed
 * on each request. Bounded: a map that fills starts again.
 */
const hashes = new Map<string, Map<string, string>>();
/** A short salted SHA-256 of an identifier, cached per isolate (bounded): enough to group by, not to name. */
export async function pseudonym(value: string, salt = ""): Promise<string> {
  let bySalt = hashes.get(salt);
  if (!bySalt) {
    // Salts are the server's secrets, one or two; more means settings changed under a live isolate.
    if (hashes.size >= 4) hashes.clear();
    hashes.set(salt, (bySalt = new Map()));
  }
  let h = bySalt.get(value);
  if (h === undefined) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${salt}\u0000${value}`)));
    h = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    if (bySalt.size >= 1000) bySalt.clear();
    bySalt.set(value, h);
  }
  return h;
}

/**
 * A request's target (tool or prompt name, resource URI) as a log line carries it. The client chose
 * it, so it is bounded, and a URI loses its query and fragment, where tokens travel.
 */
export const loggedName = (uri: boolean, target: string): string => bounded(uri ? target.replace(/[?#][\s\S]*$/, "") : target);

/**
 * One JSON log line. JSON.stringify leaves U+2028 and U+2029 as they are, and some log viewers break
 * lines at them: escaped, a client's string cannot start a line of its own.
 */
function logLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** Runs one of the app's telemetry hooks: one that throws is logged, and the request goes on. */
export function runHook<T>(hook: () => T, traceId: string | undefined): T | undefined {
  try {
    return hook();
  } catch (err) {
    writeLog("error", "telemetry_hook_failed", { message: messageOf(err), traceId });
    return undefined;
  }
}

/**
 * Writes the record where the operator looks: the log line, the data point, the app's hook.
 * `registered` is the app's name for the target (see Reporting.registered): only that and the method
 * (which names no method a client made up) are metrics dimensions, so a client cannot add rows to
 * the metrics' index by making names up.
 */
export function report(record: RequestRecord, reporting: Reporting, registered?: string): void {
  const extra = runHook(() => reporting.hooks?.onResult?.(record), record.traceId);
  const failed = record.outcome === "error" || record.outcome === "tool_error";
  if (reporting.volume === "all" || (reporting.volume === "errors" && failed))
    // A hook adds fields; it does not rename the line.
    writeLog(failed ? "warn" : "log", "request", extra ? { ...extra, mcp: undefined, ...record } : record);
  // The record's fields by their names; the name is the app's (registered), never the client's.
  writePoint(reporting.metrics, { ...record, name: registered, code: record.errorCode?.toString(), index: registered ?? record.method });
}
