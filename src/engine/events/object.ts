/**
 * McpEvents: one Durable Object per event type (named by the type's name), holding its webhook
 * subscriptions, its replay log and its pending deliveries (store.ts). `emit` records an occurrence
 * and queues it for every matching subscription; the alarm sends what is due, signed, retries with
 * backoff, and gives up after a bounded number of attempts. Each delivery first checks the
 * subscription is still live and still allowed (scopes, the app's `allow`): a revoked one gets a
 * signed `terminated` envelope and is deleted, and never another payload.
 */
import * as v from "valibot";
import { readConfig } from "../config";
import type { Env } from "../env";
import { McpError, messageOf, toMcpError, type JsonRpcErrorObject } from "../mcp/errors";
import { inSpan, type SpanLike } from "../mcp/tracing";
import { writeLog, writePoint } from "../mcp/telemetry";
import { DurableObject } from "../objects/durable-object";
import { tracerFor } from "../reporting";
import { publishToHub } from "../objects/addresses";
import { EVENT_NOTIFICATION } from "../objects/contracts";
import { canonicalJson, matches } from "./canonical";
import { decodeCursor, encodeCursor } from "./cursor";
import type { CompiledEvent } from "./define";
import { eventError, type CallbackFailure } from "./errors";
import { backoffMs, DELIVERY_BATCH, DELIVERY_LEASE_MS, NEXT_POLL_MS, SECRET_GRACE_MS, VERIFIED_FOR_MS, type EventLimits } from "./limits";
import { EventStore, type DeliveryRow, type SubRow } from "./store";
import { controlId, MAX_DELIVERY_BYTES, postSigned, sameText } from "./webhook";

export interface EmitRequest {
  data: unknown;
  match: Record<string, unknown>;
  eventId?: string;
  timestamp?: string;
}

interface SubscribeRequest {
  id: string;
  principal: string;
  scopes: readonly string[];
  /** The arguments as sent (validated), in canonical JSON. */
  args: string;
  url: string;
  secret: string;
  cursor: unknown;
  maxAgeMs?: number;
  ttlMs: number | null | undefined;
}

interface PollRequest {
  args: string;
  cursor: unknown;
  maxAgeMs?: number;
  maxEvents: number;
  /** For a stream's replay: each event with its own cursor. */
  withCursors?: boolean;
}

type Answer<T> = { result: T } | { error: JsonRpcErrorObject };

/**
 * An RPC's outcome as data (an error's class does not cross the RPC boundary). `forApp`: the caller is
 * the app's own code (emit), which is told what was wrong; a client is told only what an McpError says.
 */
const answer = async <T>(work: () => Promise<T> | T, forApp = false): Promise<Answer<T>> => {
  try {
    return { result: await work() };
  } catch (err) {
    return { error: forApp && !(err instanceof McpError) ? { code: -32603, message: messageOf(err) } : toMcpError(err).toJSON() };
  }
};

/** The McpEvents class for an app's event types. */
export function eventsObjectFor(types: () => Map<string, CompiledEvent>, limits: EventLimits) {
  return class McpEvents extends DurableObject<Env> {
    private readonly store: EventStore;
    /** The hub publishes of this instance, one after another. */
    private pushed: Promise<void> = Promise.resolve();

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this.store = new EventStore(ctx.storage.sql);
    }

    /** This object's type: its name is the object's name, kept on the first call. */
    private async type(name?: string): Promise<CompiledEvent> {
      const known = name ?? (await this.ctx.storage.get<string>("name"));
      const type = known === undefined ? undefined : types().get(known);
      if (!type) throw eventError("NotFound", `No event type "${known}"`, { kind: "event" });
      if (name !== undefined) await this.ctx.storage.put("name", name);
      return type;
    }

    async emit(name: string, req: EmitRequest): Promise<Answer<{ eventId: string; subscriptions: number }>> {
      return answer(
        () =>
          inSpan(tracerFor(readConfig(this.env)), `events/emit ${name}`, async (span) => {
            const type = await this.type(name);
            const parsed = v.safeParse(type.def.payload, req.data);
            if (!parsed.success)
              throw new TypeError(
                `emit ${name}: the payload does not match the event's payload schema: ${parsed.issues.map((i) => i.message).join("; ")}`,
              );
            const now = Date.now();
            const seq = this.store.nextSeq();
            const eventId = req.eventId ?? `evt_${crypto.randomUUID()}`;
            const timestamp = req.timestamp ?? new Date(now).toISOString();
            if (Number.isNaN(Date.parse(timestamp))) throw new TypeError(`emit ${name}: timestamp must be an ISO 8601 date-time`);
            // An upstream that sends the same event twice (its own retry) reaches each subscriber once.
            if (type.replay && this.store.logged(eventId)) return { eventId, subscriptions: 0 };
            const occurrence = JSON.stringify({ eventId, name, timestamp, data: parsed.output });
            // Room for the cursor that each delivery adds.
            if (new TextEncoder().encode(occurrence).length + 64 > MAX_DELIVERY_BYTES)
              throw new RangeError(
                `emit ${name}: an occurrence must stay under ${MAX_DELIVERY_BYTES} bytes; send a summary and a tool that reads the record`,
              );
            const match = JSON.stringify(req.match);
            if (type.replay) this.store.append(seq, eventId, now, match, occurrence, type.replay);
            this.store.sweep(now);
            let n = 0;
            for (const sub of this.store.liveSubs(now)) {
              if (!matches(JSON.parse(sub.args), req.match)) continue;
              // A subscriber that far behind misses what comes next rather than growing without bound.
              if (this.store.pendingCount(sub.id) >= limits.maxPendingPerSubscription) continue;
              this.store.enqueue(sub.id, seq, eventId, occurrence, now);
              n++;
            }
            if (n > 0) await this.wake(now);
            // Push: every hub shard, whose event streams take it when their arguments fit the match.
            if (type.modes.has("push")) {
              const params = { ...JSON.parse(occurrence), cursor: type.replay ? encodeCursor(seq) : null };
              const canonicalMatch = Object.fromEntries(Object.entries(req.match).map(([k, v]) => [k, canonicalJson(v)]));
              // Chained, so streams get this type's occurrences in order, and the publisher does not wait for
              // the shards. A stream that misses one (a restart in between) resumes from its cursor.
              this.pushed = this.pushed.then(() =>
                publishToHub(this.env, { method: EVENT_NOTIFICATION, params, match: canonicalMatch }).then(
                  () => undefined,
                  (err) => writeLog("error", "event_push_failed", { event: name, message: messageOf(err) }),
                ),
              );
            }
            span?.setAttributes({ "mcp.event.name": name, "mcp.event.subscriptions": n });
            return { eventId, subscriptions: n };
          }),
        true,
      );
    }

    private async wake(at: number): Promise<void> {
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    }

    async subscribe(name: string, req: SubscribeRequest, verify: boolean): Promise<Answer<Record<string, unknown>>> {
      return answer(async () => {
        const type = await this.type(name);
        const now = Date.now();
        this.store.sweep(now);
        const existing = this.store.sub(req.id);
        if (!existing && this.store.liveCount(req.principal, now) >= limits.maxSubscriptionsPerPrincipal)
          throw eventError("ResourceExhausted", `At most ${limits.maxSubscriptionsPerPrincipal} subscriptions to ${name} per principal`, {
            limit: "subscriptions",
            max: limits.maxSubscriptionsPerPrincipal,
          });
        if (verify && !this.store.isVerified(req.principal, req.url, now)) await this.verifyCallback(req, now);
        const ttl =
          req.ttlMs === null ? limits.maxTtlMs : Math.min(Math.max(req.ttlMs ?? limits.defaultTtlMs, limits.minTtlMs), limits.maxTtlMs);
        const expiresAt = now + ttl;
        const rotated = existing && existing.secret !== req.secret;
        this.store.putSub({
          id: req.id,
          principal: req.principal,
          url: req.url,
          args: req.args,
          secret: req.secret,
          // The replaced secret still signs for a grace window, so a receiver mid-rotation verifies either.
          prev_secret: rotated ? existing.secret : (existing?.prev_secret ?? null),
          prev_until: rotated ? now + SECRET_GRACE_MS : (existing?.prev_until ?? null),
          scopes: JSON.stringify(req.scopes),
          expires_at: expiresAt,
          last_delivery_at: existing?.last_delivery_at ?? null,
          // A refresh reactivates delivery.
          last_error: existing?.last_error ?? null,
          failed_since: null,
        });
        let truncated = false;
        // A cursor is the replay point of a new (or lapsed) subscription; on a live one it changes nothing.
        if (!existing && type.replay) truncated = this.replay(req, type, now);
        const out: Record<string, unknown> = {
          id: req.id,
          refreshBefore: new Date(expiresAt).toISOString(),
          cursor: this.watermark(req.id, type),
          truncated,
        };
        if (existing)
          out.deliveryStatus = {
            active: true,
            ...(existing.last_delivery_at ? { lastDeliveryAt: new Date(existing.last_delivery_at).toISOString() } : {}),
            ...(existing.last_error ? { lastError: existing.last_error } : {}),
            ...(existing.failed_since ? { failedSince: new Date(existing.failed_since).toISOString() } : {}),
          };
        const next = this.store.nextDue();
        if (next !== undefined) await this.wake(next);
        return out;
      });
    }

    /** Queues what the log holds after the subscriber's cursor; whether some of it was no longer kept. */
    private replay(req: SubscribeRequest, type: CompiledEvent, now: number): boolean {
      const from = decodeCursor(req.cursor);
      if (from === null) return false;
      const floor = req.maxAgeMs === undefined ? 0 : now - req.maxAgeMs;
      const oldest = this.store.oldestLogged();
      let truncated = oldest === undefined ? from < this.store.head() : from < oldest - 1;
      const args = JSON.parse(req.args);
      let queued = 0;
      for (const row of this.store.logAfter(from, limits.maxPendingPerSubscription * 4)) {
        if (row.ts < floor) {
          truncated = true;
          continue;
        }
        if (!matches(args, JSON.parse(row.match))) continue;
        if (queued++ >= limits.maxPendingPerSubscription) return true;
        this.store.enqueue(req.id, row.seq, JSON.parse(row.occurrence).eventId, row.occurrence, now);
      }
      return truncated;
    }

    /** A webhook subscription's cursor: everything at or before it was acknowledged or given up. */
    private watermark(subId: string, type: CompiledEvent): string | null {
      if (!type.replay) return null;
      const pending = this.store.lowestPending(subId);
      return encodeCursor(pending === undefined ? this.store.head() : pending - 1);
    }

    /** The handshake: a signed challenge the callback must echo, before it gets any event. */
    private async verifyCallback(req: SubscribeRequest, now: number): Promise<void> {
      if (!this.store.takeVerification(new URL(req.url).host, now, limits.verificationsPerMinute))
        throw eventError("CallbackEndpointError", "Too many verification requests to this host; try again in a minute", {
          reason: "rate_limited",
          retryAfterMs: 60_000,
        });
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
      this.store.verify(req.principal, req.url, now + VERIFIED_FOR_MS);
    }

    async unsubscribe(name: string, id: string): Promise<Answer<{ found: boolean }>> {
      return answer(async () => {
        await this.type(name);
        return { found: this.store.dropSub(id) };
      });
    }

    async poll(name: string, req: PollRequest): Promise<Answer<Record<string, unknown>>> {
      return answer(async () => {
        const type = await this.type(name);
        const result = {
          events: [] as unknown[],
          cursor: null as string | null,
          truncated: false,
          hasMore: false,
          nextPollMs: NEXT_POLL_MS,
        };
        if (!type.replay) return result;
        const from = decodeCursor(req.cursor);
        const head = this.store.head();
        if (from === null) return { ...result, cursor: encodeCursor(head) };
        if (from > head) throw eventError("NotFound", "This cursor is not from this event type", { kind: "cursor" });
        const oldest = this.store.oldestLogged();
        result.truncated = oldest === undefined ? from < head : from < oldest - 1;
        const floor = req.maxAgeMs === undefined ? 0 : Date.now() - req.maxAgeMs;
        const args = JSON.parse(req.args);
        const scan = Math.max(req.maxEvents * 4, 500);
        const rows = this.store.logAfter(from, scan);
        let at = from;
        for (const row of rows) {
          if (result.events.length >= req.maxEvents) {
            result.hasMore = true;
            break;
          }
          at = row.seq;
          if (row.ts < floor) result.truncated = true;
          else if (matches(args, JSON.parse(row.match)))
            result.events.push(
              req.withCursors ? { ...JSON.parse(row.occurrence), cursor: encodeCursor(row.seq) } : JSON.parse(row.occurrence),
            );
        }
        if (rows.length === scan && !result.hasMore) result.hasMore = at < head;
        if (!result.hasMore) at = Math.max(at, head);
        return { ...result, cursor: encodeCursor(at), nextPollMs: result.hasMore ? 0 : NEXT_POLL_MS };
      });
    }

    async alarm(): Promise<void> {
      const now = Date.now();
      const type = await this.type().catch(() => undefined);
      if (!type) return;
      this.store.sweep(now);
      const due = this.store.due(now, DELIVERY_BATCH);
      // Leased while in flight: a send cut short by a restart is retried when the lease ends, and no
      // other alarm run picks the same row meanwhile.
      for (const row of due) this.store.retryAt(row.sub_id, row.event_id, row.attempts, now + DELIVERY_LEASE_MS);
      const tracer = tracerFor(readConfig(this.env));
      const checked = new Map<string, Promise<boolean>>();
      await Promise.all(
        due.map(async (row) => {
          const sub = this.store.sub(row.sub_id);
          if (!sub) return this.store.done(row.sub_id, row.event_id);
          let allowed = checked.get(sub.id);
          if (!allowed) checked.set(sub.id, (allowed = this.stillAllowed(sub, type)));
          if (!(await allowed)) return;
          await inSpan(tracer, `events/deliver ${type.def.name}`, (span) => this.deliver(sub, row, type, span));
        }),
      );
      for (const [id, allowed] of checked) if (!(await allowed)) await this.terminate(id, type);
      const next = this.store.nextDue();
      if (next !== undefined) await this.ctx.storage.setAlarm(Math.max(next, Date.now()));
    }

    /** Scopes the type needs now (a deploy may have added one) and the app's own check, for the subscription's principal. */
    private async stillAllowed(sub: SubRow, type: CompiledEvent): Promise<boolean> {
      const scopes = JSON.parse(sub.scopes) as string[];
      if (!(type.def.scopes ?? []).every((s) => scopes.includes(s))) return false;
      if (!type.def.allow) return true;
      try {
        const args = type.def.input ? v.parse(type.def.input, JSON.parse(sub.args)) : JSON.parse(sub.args);
        return (await type.def.allow({ principal: sub.principal, scopes, arguments: args, env: this.env })) === true;
      } catch (err) {
        writeLog("error", "event_allow_failed", { event: type.def.name, message: messageOf(err) });
        return false;
      }
    }

    /** Ends a subscription whose access is gone: a signed `terminated` envelope (best effort), then nothing more. */
    private async terminate(id: string, type: CompiledEvent): Promise<void> {
      const sub = this.store.sub(id);
      if (!sub) return;
      this.store.dropSub(id);
      const error = eventError("Forbidden", "Access to this event was revoked").toJSON();
      const sent = await postSigned(sub.url, JSON.stringify({ type: "terminated", error }), {
        id: controlId("terminated"),
        subscriptionId: id,
        secrets: this.secretsOf(sub),
      });
      writeLog("log", "event_subscription_terminated", { event: type.def.name, subscription: id, delivered: sent.ok });
    }

    private secretsOf(sub: SubRow): string[] {
      return sub.prev_secret && (sub.prev_until ?? 0) > Date.now() ? [sub.secret, sub.prev_secret] : [sub.secret];
    }

    private async deliver(sub: SubRow, row: DeliveryRow, type: CompiledEvent, span?: SpanLike): Promise<void> {
      const occurrence = JSON.parse(row.occurrence) as Record<string, unknown>;
      const body = JSON.stringify({ ...occurrence, cursor: this.watermark(sub.id, type) });
      const attempt = row.attempts + 1;
      const started = Date.now();
      const sent = await postSigned(sub.url, body, { id: row.event_id, subscriptionId: sub.id, secrets: this.secretsOf(sub) });
      const now = Date.now();
      let outcome: "delivered" | "retry" | "abandoned" | "refused";
      if (sent.ok) {
        this.store.done(sub.id, row.event_id);
        this.store.delivered(sub.id, now);
        outcome = "delivered";
      } else {
        this.store.failed(sub.id, sent.reason, now);
        // 410 Gone and 413 Too Large: never retried for this delivery; the subscription stays.
        if (sent.status === 410 || sent.status === 413) {
          this.store.done(sub.id, row.event_id);
          outcome = "refused";
        } else if (attempt >= limits.maxAttempts) {
          this.store.done(sub.id, row.event_id);
          outcome = "abandoned";
        } else {
          this.store.retryAt(sub.id, row.event_id, attempt, now + backoffMs(attempt));
          outcome = "retry";
        }
      }
      const status = sent.status;
      span?.setAttributes({
        "mcp.event.name": type.def.name,
        "mcp.event.subscription.id": sub.id,
        "mcp.event.attempt": attempt,
        "http.response.status_code": status,
        "mcp.event.outcome": outcome,
      });
      if (!sent.ok) span?.setStatus({ code: "error", message: sent.reason });
      // One data point per attempt, beside the requests' (docs/observability.md): the type is the app's
      // name, the outcome one of four, so no caller can add rows to the metrics' index.
      writePoint(this.env.MCP_METRICS, {
        revision: "2026-07-28",
        method: "events/deliver",
        name: type.def.name,
        outcome,
        code: sent.ok ? String(status) : sent.reason,
        durationMs: now - started,
        attempt,
        index: type.def.name,
      });
      writeLog("log", "event_delivery", {
        event: type.def.name,
        subscription: sub.id,
        eventId: row.event_id,
        attempt,
        outcome,
        status,
        reason: sent.ok ? undefined : sent.reason,
        durationMs: now - started,
      });
    }
  };
}
