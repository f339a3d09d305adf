/**
 * The hosted-client quirks a request was served with (src/engine/http/quirks.ts serves them), as its
 * log line and metrics point name them: here, so that the session objects and the core can carry
 * them without depending on the HTTP edge.
 */

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

/**
 * The quirks one request showed, each once, in the order the edge met them; its log line and metrics
 * point join them with "+" ("version-other+accept-json": quirksNamed).
 */
export type Quirks = readonly Quirk[];

/** The quirks of a request with one more. */
export const noted = (quirks: Quirks | undefined, quirk: Quirk): Quirks =>
  !quirks ? [quirk] : quirks.includes(quirk) ? quirks : [...quirks, quirk];
