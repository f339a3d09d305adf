/**
 * One OpenTelemetry span per MCP operation, named and described as the OTel MCP semantic
 * conventions say (`tools/call convert_temperature`, `mcp.method.name`, `gen_ai.tool.name`, ...),
 * through the Workers tracing API, which nests it under the platform's span for the invocation.
 * The core sees only the calls it makes (Tracer); the edge hands it the platform's (reporting.ts).
 * Like the log line, a span carries names and outcomes, never argument or result values, and the
 * session only as a hash. Small on purpose: it is in every bundle (test/engine/e2e/bundle.mjs).
 */
import { bounded } from "./guards";

type Attributes = Record<string, string | number | boolean | undefined>;

/** The part of a Workers span the engine writes to. */
export interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: "error"; message: string }): unknown;
}

/** `tracing` from "cloudflare:workers" (or `ctx.tracing`), as far as the engine uses it. */
export interface Tracer {
  enterSpan<T>(name: string, callback: (span: SpanLike) => T): T;
  getActiveSpan(): { readonly isTraced: boolean } | undefined;
}

/**
 * Runs `work` inside a span named `name`. Only when the invocation is traced (sampled in by
 * [observability.traces]): making a span costs the runtime tens of µs even when nothing records
 * it, and an untraced request pays only this check. Without a tracer (TRACING=off), just runs it.
 */
export function inSpan<T>(tracer: Tracer | undefined, name: string, work: (span?: SpanLike) => Promise<T>): Promise<T> {
  return tracer?.getActiveSpan()?.isTraced ? tracer.enterSpan(name, work) : work();
}

/**
 * The attributes of the OTel MCP conventions an operation's span starts with. Only those with a value:
 * the platform (and, locally, the trace collector) handles each key it is given, so a span pays for
 * the attributes it has, not for the ones that are empty on most calls.
 */
export function operationAttributes(
  method: string,
  attribute: string | undefined,
  name: string | undefined,
  protocolVersion: string,
  traceparent: string | undefined,
  requestId?: string | number,
): Attributes {
  const attributes: Attributes = { "mcp.method.name": method, "mcp.protocol.version": protocolVersion };
  if (requestId !== undefined) attributes["jsonrpc.request.id"] = bounded(requestId.toString());
  // The caller's span cannot become this one's parent (the platform starts the trace), so it is
  // kept beside it; its trace id is the request's log line's traceId.
  if (traceparent !== undefined) attributes["mcp.caller.traceparent"] = traceparent;
  // The tool, prompt, resource or task the operation names (operations.ts says which attribute).
  if (attribute && name !== undefined) attributes[attribute] = name;
  return attributes;
}

/**
 * The span's attributes, written once when the operation ends: those it started with, and what it
 * ended with: `error.type` (the JSON-RPC code, or `tool_error` for a tool result
 * with isError, as the conventions name them) and an error status; the hashed session; the task it
 * made, ran or was asked about, and how many runs before this one died with their isolate.
 */
export function endAttributes(
  span: SpanLike,
  start: Attributes,
  outcome: { outcome: string; errorCode?: number; session?: string },
  taskId: unknown,
  cutShort?: number,
): void {
  const failed = outcome.outcome === "error" ? String(outcome.errorCode) : outcome.outcome === "tool_error" ? outcome.outcome : undefined;
  // Added to `start` (made for this span alone) rather than spread into another object.
  if (outcome.session !== undefined) start["mcp.session.id"] = outcome.session;
  if (failed !== undefined) start["error.type"] = failed;
  if (typeof taskId === "string") start["mcp.task.id"] = bounded(taskId);
  if (cutShort !== undefined) start["mcp.task.cut_short"] = cutShort;
  span.setAttributes(start);
  if (failed) span.setStatus({ code: "error", message: failed });
}
