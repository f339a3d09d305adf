/**
 * Request shapes hosted clients (Claude, ChatGPT, Copilot and others) really send that the spec does
 * not allow, which this edge serves unless STRICT_HEADERS=on. A refused shape leaves the client
 * showing "connected" while every call fails, so where the intent is plain the request is served, and
 * counted: each quirk a request showed goes on its log line and metrics point (`quirks`).
 *
 * The revisions decide which version header a request may carry (revisions/envelope.ts,
 * revisions/2025-11-25.ts); this file holds what is HTTP only: a header a proxy repeated, and the
 * `Accept` header. The recorded requests, and the threads they come from: scripts/doctor/quirks.mjs.
 */
import { ErrorCode } from "../mcp/errors";
import type { RequestId } from "../mcp/jsonrpc";
import type { Reporting } from "../mcp/telemetry";
import { rpcError } from "./responses";

/** The quirks this edge serves, as the log line and the metrics point name them. */
export type Quirk =
  /** `MCP-Protocol-Version: v, v`: the same value twice, comma-joined by a proxy. */
  | "version-repeated"
  /** 2026-07-28: a header naming another known revision than the body's `_meta`. */
  | "version-other"
  /** 2025 session: a header naming a newer known revision than the negotiated one. */
  | "version-newer"
  /** Accept lists application/json only: answered with JSON. */
  | "accept-json"
  /** Accept lists text/event-stream only: answered with one SSE event. */
  | "accept-sse"
  /** No Accept header: anything goes (RFC 9110 §12.5.1). */
  | "accept-none";

/** The quirks one request showed, in the order the edge met them; joined with "+" where they are reported. */
export type Quirks = Quirk[];

/**
 * MCP-Protocol-Version with a repeated value folded into one ("v, v" is "v"; RFC 9110 §5.3 lets a
 * proxy join repeated fields with commas). Different values stay as they are, and are refused.
 * A header without a comma costs one indexOf.
 */
export function oneVersion(value: string | undefined, strict: boolean): string | undefined {
  if (strict || value === undefined || value.indexOf(",") < 0) return value;
  const parts = value.split(",").map((p) => p.trim());
  return parts.some((p) => p !== parts[0]) ? value : parts[0];
}

/** Adds a quirk to a request's list, made on the first one: a well-formed request allocates none. */
export const noted = (quirks: Quirks | undefined, quirk: Quirk): Quirks => (quirks ? (quirks.push(quirk), quirks) : [quirk]);

/** A request's reporting with its quirks, for its log line and metrics point; unchanged without any. */
export function withQuirks(reporting: Reporting, quirks: Quirks | undefined): Reporting {
  if (quirks) reporting.quirks = quirks.join("+");
  return reporting;
}

/** An answer in the form the request's Accept takes (checkPostMediaTypes' quirk); as it is for any other. */
export const inAcceptedForm = (quirk: Quirk | null, id: RequestId | null, response: Response): Response | Promise<Response> =>
  quirk === "accept-json" ? asJson(response, id) : quirk === "accept-sse" ? asSingleEvent(response) : response;

/** A JSON-RPC response answered as the one event of an SSE stream, for a client that accepts only SSE. */
async function asSingleEvent(response: Response): Promise<Response> {
  if (response.status !== 200 || !response.headers.get("Content-Type")?.startsWith("application/json")) return response;
  const body = await response.text();
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "text/event-stream");
  headers.set("Cache-Control", "no-cache");
  headers.delete("Content-Length");
  return new Response(`event: message\ndata: ${body}\n\n`, { status: 200, headers });
}

/**
 * An SSE answer read to its JSON-RPC response, answered as JSON, for a client that accepts only
 * JSON. What the stream carried before (progress, logs, requests to the client) is dropped: the
 * client said it cannot read it.
 */
async function asJson(response: Response, id: RequestId | null): Promise<Response> {
  if (!response.body || !response.headers.get("Content-Type")?.startsWith("text/event-stream")) return response;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buffered += value;
      // Events end with a blank line; only complete ones are read.
      let end: number;
      while ((end = buffered.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, "");
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        let message: { id?: unknown; result?: unknown; error?: unknown; method?: unknown };
        try {
          message = JSON.parse(data);
        } catch {
          continue;
        }
        if (message.method === undefined && (message.result !== undefined || message.error !== undefined)) {
          const headers = new Headers(response.headers);
          headers.set("Content-Type", "application/json");
          headers.delete("Cache-Control");
          return new Response(data, { status: 200, headers });
        }
      }
      if (done) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  // The stream ended without the response (the session ended, or the call waits for input the
  // client cannot give over JSON): the client is told so, not left waiting.
  return rpcError(id, { code: ErrorCode.InternalError, message: "The answer needed a stream, and the request's Accept takes only application/json" }, 200);
}
