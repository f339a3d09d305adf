/**
 * The type's own object (placement.ts): an emit appends one row to the log and sets the object's
 * alarm, and returns; the alarm wakes every shard that holds subscriptions, which read the log from
 * their subscriptions' places and deliver (shard.ts). Polls and event streams read the log here.
 * So the publisher's wait, and the work of one emit, do not grow with the subscriptions.
 */
import * as v from "valibot";
import type { Env } from "../env";
import { invalidParams, messageOf } from "../mcp/errors";
import { publishToHub } from "../objects/addresses";
import { EVENT_NOTIFICATION } from "../objects/contracts";
import { canonicalJson, matches } from "./canonical";
import { decodeCursor, encodeCursor } from "./cursor";
import { DELIVERY_LOG, NEXT_POLL_MS } from "./limits";
import type { EmitRequest, JoinRequest, Joined, LogPage, PollRequest } from "./contracts";
import type { LogStore } from "./log-store";
import { shardStub } from "./placement";
import type { ServedType } from "./registry";
import { MAX_DELIVERY_BYTES } from "./webhook";
import { writeLog } from "../mcp/telemetry";

/** A cursor later than anything logged: InvalidParams, as a malformed one is (it was never this server's). */
function positionOf(cursor: unknown, head: number): number | null {
  const from = decodeCursor(cursor);
  if (from !== null && from > head) throw invalidParams("Invalid cursor: it is ahead of this event type's log");
  return from;
}

export class TypeLog {
  /** The hub publishes of this instance, one after another. */
  private pushed: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly store: LogStore,
  ) {}

  async emit(type: ServedType, req: EmitRequest): Promise<{ eventId: string; shards: number }> {
    const name = type.def.name;
    const parsed = v.safeParse(type.def.payload, req.data);
    if (!parsed.success)
      throw new TypeError(
        `emit ${name}: the payload does not match the event's payload schema: ${parsed.issues.map((i) => i.message).join("; ")}`,
      );
    const now = Date.now();
    const eventId = req.eventId ?? `evt_${crypto.randomUUID()}`;
    const timestamp = req.timestamp ?? new Date(now).toISOString();
    if (Number.isNaN(Date.parse(timestamp))) throw new TypeError(`emit ${name}: timestamp must be an ISO 8601 date-time`);
    // An upstream that sends the same event twice (its own retry) reaches each subscriber once.
    if (this.store.logged(eventId)) return { eventId, shards: 0 };
    const occurrence = JSON.stringify({ eventId, name, timestamp, data: parsed.output });
    // Room for the cursor that each delivery adds.
    if (new TextEncoder().encode(occurrence).length + 64 > MAX_DELIVERY_BYTES)
      throw new RangeError(
        `emit ${name}: an occurrence must stay under ${MAX_DELIVERY_BYTES} bytes; send a summary and a tool that reads the record`,
      );
    const seq = this.store.nextSeq();
    this.store.append(seq, eventId, now, canonicalJson(req.match), occurrence, type.replay ?? DELIVERY_LOG);
    const shards = this.store.shards().length;
    // The shards are woken by this object's alarm, stored with the row: a restart after this answer
    // still wakes them. Not awaited: the output gate holds the answer until both are stored, and the
    // emit does not wait on the storage's round trip for it.
    if (shards > 0) this.wakeNow(now);
    if (type.modes.has("push")) this.push(type, seq, occurrence, req.match);
    return { eventId, shards };
  }

  /** Push: every hub shard, whose event streams take it when their arguments fit the match. */
  private push(type: ServedType, seq: number, occurrence: string, match: Record<string, unknown>): void {
    const params = { ...JSON.parse(occurrence), cursor: type.replay ? encodeCursor(seq) : null };
    const canonicalMatch = Object.fromEntries(Object.entries(match).map(([k, v]) => [k, canonicalJson(v)]));
    // Chained, so streams get this type's occurrences in order, and the publisher does not wait for
    // the shards. A stream that misses one (a restart in between) resumes from its cursor.
    this.pushed = this.pushed.then(() =>
      publishToHub(this.env, { method: EVENT_NOTIFICATION, params, match: canonicalMatch }).then(
        () => undefined,
        (err) => writeLog("error", "event_push_failed", { event: type.def.name, message: messageOf(err) }),
      ),
    );
  }

  /** When this instance last set the alarm for, until the alarm runs: an emit then needs no storage call for it. */
  private alarmAt?: number;

  /** An emit's wake: at once, the earliest any alarm can be, so it needs no look at the one set. */
  private wakeNow(at: number): void {
    if (this.alarmAt !== undefined && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  private async wakeAt(at: number): Promise<void> {
    if (this.alarmAt !== undefined && this.alarmAt <= at) return;
    const current = at <= Date.now() ? null : await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    this.alarmAt = Math.min(at, current ?? at);
  }

  /** The alarm: wakes every shard with subscriptions; one that cannot be reached is tried again in a second. */
  async wakeShards(type: ServedType): Promise<void> {
    this.alarmAt = undefined;
    const name = type.def.name;
    const results = await Promise.allSettled(this.store.shards().map((k) => shardStub(this.env, name, k).wake(name, k)));
    const failed = results.filter((r) => r.status === "rejected").length;
    if (failed > 0) {
      writeLog("error", "event_wake_failed", { event: name, shards: failed });
      await this.wakeAt(Date.now() + 1000);
    }
  }

  /** A shard's new subscription: records the shard, checks the cursor, and counts a verification to the host. */
  join(type: ServedType, k: number, req: JoinRequest): Joined {
    const now = Date.now();
    const head = this.store.head();
    const from = type.replay ? positionOf(req.cursor, head) : null;
    let start = from ?? head;
    let truncated = false;
    if (from !== null) {
      const oldest = this.store.oldest();
      const kept = oldest === undefined ? head : oldest - 1;
      if (from < kept) [start, truncated] = [kept, true];
      const floor = req.maxAgeMs === undefined ? 0 : this.store.lastBefore(now - req.maxAgeMs);
      if (floor > start) [start, truncated] = [floor, true];
      // A subscriber that far behind starts that far back, no further.
      const deepest = head - type.limits.maxPendingPerSubscription;
      if (deepest > start) [start, truncated] = [deepest, true];
    }
    const verifyAllowed = req.host === null || this.store.takeVerification(req.host, now, type.limits.verificationsPerMinute);
    if (verifyAllowed) this.store.join(k);
    return { head, start, truncated, verifyAllowed };
  }

  read(from: number, limit: number): LogPage {
    return { head: this.store.head(), rows: this.store.after(from, limit) };
  }

  poll(type: ServedType, req: PollRequest): Record<string, unknown> {
    const result = { events: [] as unknown[], cursor: null as string | null, truncated: false, hasMore: false, nextPollMs: NEXT_POLL_MS };
    if (!type.replay) return result;
    const head = this.store.head();
    const from = positionOf(req.cursor, head);
    if (from === null) return { ...result, cursor: encodeCursor(head) };
    const oldest = this.store.oldest();
    result.truncated = oldest === undefined ? from < head : from < oldest - 1;
    const floor = req.maxAgeMs === undefined ? 0 : Date.now() - req.maxAgeMs;
    const args = JSON.parse(req.args);
    const scan = Math.max(req.maxEvents * 4, 500);
    const rows = this.store.after(from, scan);
    let at = from;
    for (const row of rows) {
      if (result.events.length >= req.maxEvents) {
        result.hasMore = true;
        break;
      }
      at = row.seq;
      if (row.ts < floor) result.truncated = true;
      else if (matches(args, JSON.parse(row.match)))
        result.events.push(req.withCursors ? { ...JSON.parse(row.occurrence), cursor: encodeCursor(row.seq) } : JSON.parse(row.occurrence));
    }
    if (rows.length === scan && !result.hasMore) result.hasMore = at < head;
    if (!result.hasMore) at = Math.max(at, head);
    return { ...result, cursor: encodeCursor(at), nextPollMs: result.hasMore ? 0 : NEXT_POLL_MS };
  }
}
