/**
 * "Finish this in your browser first": a handler that cannot go on until the user completes a
 * URL elicitation (a sign-in, a payment) throws `urlElicitationRequired(...)`.
 *
 * - 2025-11-25: the request fails with -32042 and `data.elicitations` (each with its
 *   `elicitationId`); the client opens the URLs and retries, ideally after the server sent
 *   `notifications/elicitation/complete` (`ctx.completeElicitation(id)`).
 * - 2026-07-28 has no -32042: the same requests become an input_required round, and the
 *   client's retry runs the handler again, which checks whether the flow is done.
 */
import { ErrorCode, McpError } from "./errors";
import { elicitUrl, type ElicitRequest, type ElicitUrlParams, type InputRequest } from "./input";

export class UrlElicitationRequired extends McpError {
  constructor(
    readonly elicitations: ElicitUrlParams[],
    message: string,
  ) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations });
  }

  /** The 2026 form: one URL elicitation input request per entry. */
  asInputRequests(): Record<string, ElicitRequest> {
    return Object.fromEntries(
      this.elicitations.map((params, i) => [params.elicitationId ?? `url${i}`, { method: "elicitation/create", params }]),
    );
  }
}

/** Builds the error a handler throws; each entry is an `elicitUrl(...)` request (or its params). */
export function urlElicitationRequired(
  elicitations: (ElicitRequest | ElicitUrlParams)[],
  message = "This request needs you to complete an action in your browser first",
): UrlElicitationRequired {
  const params = elicitations.map((e) => {
    const p = ("method" in e ? e.params : e) as ElicitUrlParams;
    if (p.mode !== "url") throw new Error("urlElicitationRequired takes URL elicitations only (elicitUrl)");
    // The 2025 schema requires an id on every URL elicitation.
    return p.elicitationId ? p : elicitUrl(p.message, p.url).params;
  });
  return new UrlElicitationRequired(params, message);
}

/** Input requests with each URL elicitation's params changed (each revision shapes them its own way). */
export function withUrlParams(
  requests: Record<string, InputRequest>,
  change: (params: ElicitUrlParams) => ElicitUrlParams,
): Record<string, InputRequest> {
  const out: Record<string, InputRequest> = {};
  for (const [key, r] of Object.entries(requests))
    out[key] = r.method === "elicitation/create" && r.params.mode === "url" ? { method: r.method, params: change(r.params) } : r;
  return out;
}
