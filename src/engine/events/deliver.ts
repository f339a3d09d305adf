/**
 * One webhook attempt from a shard, and what it reports: the signed POST of one occurrence, its
 * outcome (delivered, retry, abandoned, refused), one MCP_METRICS point per attempt and a log line per
 * failed one, and one line per pass with the outcomes counted;
 * the signed `terminated` envelope that ends a subscription; and the verification handshake.
 */
import type { Env } from "../env";
import { eventError, type CallbackFailure } from "./errors";
import type { LogRow } from "./log-store";
import type { SubRow } from "./shard-store";
import { controlId, postSigned, sameText } from "./webhook";
import { writeLog, writePoint } from "../mcp/telemetry";
import type { SpanLike } from "../mcp/tracing";

export type Outcome = "delivered" | "retry" | "abandoned" | "refused";

const secretsOf = (sub: Pick<SubRow, "secret" | "prev_secret" | "prev_until">, now = Date.now()): string[] =>
  sub.prev_secret && (sub.prev_until ?? 0) > now ? [sub.secret, sub.prev_secret] : [sub.secret];

/**
 * POSTs one occurrence to a subscription: `body` is the occurrence with its cursor (everything before
 * it was dealt with), built once per pass. The answer's outcome, reported, is the caller's to record.
 */
export async function deliverOnce(
  env: Env,
  name: string,
  sub: SubRow,
  row: LogRow,
  body: string,
  attempt: number,
  maxAttempts: number,
  span?: SpanLike,
): Promise<{ outcome: Outcome; reason?: CallbackFailure }> {
  const started = Date.now();
  const sent = await postSigned(sub.url, body, { id: row.event_id, subscriptionId: sub.id, secrets: secretsOf(sub, started) });
  const now = Date.now();
  const outcome: Outcome = sent.ok
    ? "delivered"
    : // 410 Gone and 413 Too Large: never retried for this delivery; the subscription stays.
      sent.status === 410 || sent.status === 413
      ? "refused"
      : attempt >= maxAttempts
        ? "abandoned"
        : "retry";
  const status = sent.status;
  span?.setAttributes({
    "mcp.event.name": name,
    "mcp.event.subscription.id": sub.id,
    "mcp.event.attempt": attempt,
    "http.response.status_code": status,
    "mcp.event.outcome": outcome,
  });
  if (!sent.ok) span?.setStatus({ code: "error", message: sent.reason });
  // One data point per attempt, beside the requests' (docs/observability.md): the type is the app's
  // name, the outcome one of four, so no caller can add rows to the metrics' index.
  writePoint(env.MCP_METRICS, {
    revision: "2026-07-28",
    method: "events/deliver",
    name,
    outcome,
    code: sent.ok ? String(status) : sent.reason,
    durationMs: now - started,
    attempt,
    index: name,
  });
  // A failed attempt is a line of its own; those that landed are counted in their pass's line (reportPass).
  if (!sent.ok)
    writeLog("log", "event_delivery", {
      event: name,
      subscription: sub.id,
      eventId: row.event_id,
      attempt,
      outcome,
      status,
      reason: sent.reason,
      durationMs: now - started,
    });
  return sent.ok ? { outcome } : { outcome, reason: sent.reason };
}

/** One line per alarm pass that sent anything: how many attempts had each outcome. */
export function reportPass(name: string, tally: Record<Outcome, number>): void {
  if (tally.delivered + tally.retry + tally.abandoned + tally.refused > 0) writeLog("log", "event_deliveries", { event: name, ...tally });
}

/** Ends a subscription for its receiver: a signed `terminated` envelope with `error` (best effort), and a log line. */
export async function sendTerminated(
  name: string,
  sub: SubRow,
  error: { code: number; message: string; data?: unknown },
  why: string,
): Promise<void> {
  const sent = await postSigned(sub.url, JSON.stringify({ type: "terminated", error }), {
    id: controlId("terminated"),
    subscriptionId: sub.id,
    secrets: secretsOf(sub),
  });
  writeLog("log", "event_subscription_terminated", { event: name, subscription: sub.id, reason: why, delivered: sent.ok });
}

/** The handshake: a signed challenge the callback must echo, before it gets any event. */
export async function verifyCallback(req: { id: string; url: string; secret: string }): Promise<void> {
  const challenge = [...crypto.getRandomValues(new Uint8Array(24))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const body = JSON.stringify({ type: "verification", challenge });
  const sent = await postSigned(req.url, body, { id: controlId("verification"), subscriptionId: req.id, secrets: [req.secret] }, true);
  let reason: CallbackFailure | undefined = sent.ok ? undefined : sent.reason;
  if (sent.ok) {
    let echoed: unknown;
    try {
      echoed = JSON.parse(sent.body)?.challenge;
    } catch {}
    if (typeof echoed !== "string" || !sameText(echoed, challenge)) reason = "challenge_failed";
  }
  if (reason) throw eventError("CallbackEndpointError", `The callback did not pass verification (${reason})`, { reason });
}
