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
import { rpcError } from "./responses";
import type { Quirk } from "../mcp/quirks";

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

/** An answer in the form the request's Accept takes (checkPostMediaTypes' quirk); as it is for any other. */
export const inAcceptedForm = (quirk: Quirk | null, id: RequestId | null, response: Response): Response | Promise<Response> =>
  quirk === "accept-json" ? asJson(response, id) : quirk === "accept-sse" ? asSingleEvent(response) : response;

/** A JSON-RPC response answered as the one event of an SSE stream, for a client that accepts only SSE. */
async function asSingleEvent(response: Response): Promise<Response> {
  if (response.status !== 200 || response.headers.get("Content-Type") !== "application/json") return response;
  // Its other headers (Mcp-Session-Id on initialize) are kept.
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "text/event-stream");
  return new Response(`event: message\ndata: ${await response.text()}\n\n`, { headers });
}

/**
 * For a client that accepts only JSON: the lanes send it no notifications (progress, logs), so its
 * answer is JSON; one that must stream (a 2025 call asking the user for input, a listen) is refused.
 */
function asJson(response: Response, id: RequestId | null): Response {
  if (response.headers.get("Content-Type") !== "text/event-stream") return response;
  void response.body?.cancel();
  return rpcError(id, { code: ErrorCode.InvalidRequest, message: "This answer needs text/event-stream in Accept" }, 406);
}
