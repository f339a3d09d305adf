/**
 * A shard of a type's webhook subscriptions (placement.ts): subscribe and unsubscribe for the
 * principals hashed here, and the alarm's pass that delivers. A pass reads the type's log from the
 * earliest place a due subscription is at, and sends each subscription the occurrences after its
 * place that match it, one after another (the next only once the last was acknowledged or given up),
 * several subscriptions at a time. Each outcome writes the subscription's one row, the answers of
 * one turn together (record); a subscription that an occurrence does not match writes nothing (the
 * shard's floor moves on for it, once a pass). A restart anywhere in a pass loses nothing: a
 * subscription's place moves only once its occurrence was answered, so the next pass sends what was
 * not, and never again what was, but for the answers of the turn the restart cut off before their write.
 */
import * as v from "valibot";
import { readConfig } from "../config";
import type { Env } from "../env";
import { McpError, messageOf } from "../mcp/errors";
import { inSpan, type Tracer } from "../mcp/tracing";
import { tracerFor } from "../reporting";
import { matches } from "./canonical";
import { encodeCursor } from "./cursor";
import { deliverOnce, type Outcome, reportPass, sendTerminated, verifyCallback } from "./deliver";
import { eventError } from "./errors";
import { backoffMs, DELIVERY_CONCURRENCY, LOG_PAGE, MAX_DUE_BATCH, SECRET_GRACE_MS, VERIFIED_FOR_MS } from "./limits";
import type { LogRow } from "./log-store";
import { typeStub } from "./placement";
import type { ServedType } from "./registry";
import { ShardStore, type SubRow } from "./shard-store";
import type { Answer, Joined, LogPage, SubscribeRequest } from "./contracts";
import { writeLog } from "../mcp/telemetry";

const unwrap = <T>(a: Answer<T>): T => {
  if ("error" in a) throw new McpError(a.error.code, a.error.message, a.error.data);
  return a.result;
};

/** Runs `work` over `items`, `n` at a time. */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** What one pass shares among its subscriptions' sends. */
interface PassRun {
  type: ServedType;
  floor: number;
  /** Where the log page read starts: a subscription whose place is before it is left for the next pass. */
  from: number;
  /** The last position of the log page read: every loaded subscription is dealt with up to here. */
  hi: number;
  rows: LogRow[];
  /** Deliveries left in this alarm run. */
  budget: number;
  more: boolean;
  /** The place after the pass of each loaded subscription that reads the floor (not pinned, revoked or waiting for a retry). */
  after: Map<string, number>;
  /** Pinned subscriptions that caught up, with their own cursor. */
  pinnedDone: { id: string; cursor: number }[];
  /** Parsed per occurrence, once a pass: its match, and the body every subscription is sent. */
  matchOf: Map<number, Record<string, unknown>>;
  bodyOf: Map<number, string>;
  tally: Record<Outcome, number>;
  tracer: Tracer | undefined;
  /** Row writes of answered deliveries waiting to be written together (record), in the order they were answered. */
  writes: (() => void)[];
  /** When the waiting writes are written: the pass awaits it before it reads the places for the floor. */
  written: Promise<void>;
  /** The error of a write, thrown by the pass once its sends are over (its alarm then runs again). */
  failed?: unknown;
}

/**
 * Records an answered delivery's row write (`write`) at the next turn of the event loop (a 0 ms
 * timer), with every answer that came in meanwhile: written in one turn, they are one storage
 * commit, not one each (under `wrangler dev` a commit costs the process nearly as much CPU as the
 * POST: 0.37 ms beside 0.52 ms in bench/floor-webhook). A subscription's writes keep their order. The next occurrence may be sent before
 * the last one's row is written: a restart in between sends both again, in order (docs/events.md).
 */
function record(run: PassRun, write: () => void): void {
  run.writes.push(write);
  if (run.writes.length > 1) return;
  run.written = new Promise((resolve) =>
    setTimeout(() => {
      const writes = run.writes;
      run.writes = [];
      try {
        for (const w of writes) w();
      } catch (err) {
        run.failed ??= err;
      }
      resolve();
    }, 0),
  );
}

function matchesRow(run: PassRun, args: Record<string, unknown>, row: LogRow): boolean {
  let m = run.matchOf.get(row.seq);
  if (!m) run.matchOf.set(row.seq, (m = JSON.parse(row.match) as Record<string, unknown>));
  return matches(args, m);
}

/** The occurrence with its cursor (everything before it dealt with), the same bytes for every subscription. */
function bodyOf(run: PassRun, row: LogRow): string {
  let body = run.bodyOf.get(row.seq);
  if (body === undefined) {
    const cursor = run.type.replay ? encodeCursor(row.seq - 1) : null;
    // The stored occurrence is a JSON object: the cursor is put in before its closing brace.
    run.bodyOf.set(row.seq, (body = `${row.occurrence.slice(0, -1)},"cursor":${JSON.stringify(cursor)}}`));
  }
  return body;
}

export class Shard {
  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    readonly store: ShardStore,
    private readonly name: string,
  ) {}

  private readonly typeLog = () => typeStub(this.env, this.name);

  async wake(at = Date.now()): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  async subscribe(type: ServedType, k: number, req: SubscribeRequest, verify: boolean): Promise<Record<string, unknown>> {
    const { limits } = type;
    const now = Date.now();
    this.store.sweep(now);
    const existing = this.store.sub(req.id);
    if (!existing && this.store.liveCount(req.principal, now) >= limits.maxSubscriptionsPerPrincipal)
      throw eventError("ResourceExhausted", `At most ${limits.maxSubscriptionsPerPrincipal} subscriptions to ${this.name} per principal`, {
        limit: "subscriptions",
        max: limits.maxSubscriptionsPerPrincipal,
      });
    const mustVerify = verify && !this.store.isVerified(req.principal, req.url, now);
    // The type's object checks the cursor and counts the verification: nothing is stored until all of it passed.
    const joined: Joined = unwrap(
      await this.typeLog().join(this.name, k, {
        host: mustVerify ? new URL(req.url).host : null,
        cursor: req.cursor,
        maxAgeMs: req.maxAgeMs,
      }),
    );
    if (!joined.verifyAllowed)
      throw eventError("CallbackEndpointError", "Too many verification requests to this host; try again in a minute", {
        reason: "rate_limited",
        retryAfterMs: 60_000,
      });
    if (mustVerify) {
      await verifyCallback(req);
      this.store.verify(req.principal, req.url, now + VERIFIED_FOR_MS);
    }
    const ttl =
      req.ttlMs === null ? limits.maxTtlMs : Math.min(Math.max(req.ttlMs ?? limits.defaultTtlMs, limits.minTtlMs), limits.maxTtlMs);
    const expiresAt = now + ttl;
    const rotated = existing && existing.secret !== req.secret;
    // A cursor is the replay point of a new (or lapsed) subscription; on a live one it changes nothing.
    this.store.put(
      {
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
      },
      joined.start,
    );
    // A pass picks up whatever was emitted since (or is still to replay).
    await this.wake();
    const place = existing ? ShardStore.position(existing, this.store.floor()) : joined.start;
    const out: Record<string, unknown> = {
      id: req.id,
      refreshBefore: new Date(expiresAt).toISOString(),
      cursor: type.replay ? encodeCursor(place) : null,
      truncated: existing ? false : joined.truncated,
    };
    if (existing)
      out.deliveryStatus = {
        active: true,
        ...(existing.last_delivery_at ? { lastDeliveryAt: new Date(existing.last_delivery_at).toISOString() } : {}),
        ...(existing.last_error ? { lastError: existing.last_error } : {}),
        ...(existing.failed_since ? { failedSince: new Date(existing.failed_since).toISOString() } : {}),
      };
    return out;
  }

  /**
   * The alarm: one pass over the due subscriptions (module comment), loaded a batch at a time in id
   * order, so a pass never reads the shard's caught-up subscriptions or those waiting for a retry.
   * Returns when the next pass is due: at once when more is waiting, at the earliest retry, or never
   * (undefined) when all is sent.
   */
  async pass(type: ServedType): Promise<number | undefined> {
    const now = Date.now();
    this.store.sweep(now);
    const floor = this.store.floor();
    const from = this.store.dueFrom(now, floor);
    if (from === undefined) return this.store.nextRetry(now);
    // What was stored before the pass began; a subscription put while it runs is counted as not loaded.
    const lastRowid = this.store.lastRowid();
    const page: LogPage = unwrap(await this.typeLog().read(this.name, from, LOG_PAGE));
    const hi = page.rows.length === LOG_PAGE ? page.rows.at(-1)!.seq : page.head;
    const run: PassRun = {
      type,
      floor,
      from,
      hi,
      rows: page.rows,
      budget: type.limits.deliveriesPerPass,
      more: hi < page.head,
      after: new Map(),
      pinnedDone: [],
      matchOf: new Map(),
      bodyOf: new Map(),
      tally: { delivered: 0, retry: 0, abandoned: 0, refused: 0 },
      tracer: tracerFor(readConfig(this.env)),
      writes: [],
      written: Promise.resolve(),
    };
    const limit = Math.min(type.limits.deliveriesPerPass, MAX_DUE_BATCH);
    let lastId: string | null = "";
    for (;;) {
      const batch = this.store.due(now, floor, hi, lastId!, limit);
      if (batch.length > 0) lastId = batch.at(-1)!.id;
      await pool(batch, DELIVERY_CONCURRENCY, (sub) => this.sendTo(sub, run));
      if (batch.length < limit) {
        lastId = null; // every due subscription was loaded
        break;
      }
      if (run.budget <= 0) {
        run.more = true;
        break;
      }
    }
    await run.written;
    if (run.failed !== undefined) throw run.failed;
    // The new floor: the least place of every subscription that reads it, those this pass loaded as they are now.
    let newFloor = Math.min(hi, this.store.leastUnloaded(now, floor, lastId, now, lastRowid) ?? hi);
    for (const place of run.after.values()) newFloor = Math.min(newFloor, place);
    newFloor = Math.max(floor, newFloor);
    // A pinned subscription (its own cursor) that caught up behind the new floor reads it from now on: one write, once.
    for (const s of run.pinnedDone) if (s.cursor < newFloor) this.store.moveOn(s.id, hi);
    // When every subscription's own cursor is at the new floor or past it (each had what was sent), nothing reads it.
    if (newFloor > floor && this.store.readsFloor(newFloor, now)) this.store.setFloor(newFloor);
    reportPass(this.name, run.tally);
    return run.more ? Date.now() : this.store.nextRetry(Date.now());
  }

  /** One subscription's part of a pass: the occurrences after its place that match it, one after another. */
  private async sendTo(sub: SubRow, run: PassRun): Promise<void> {
    const args = JSON.parse(sub.args) as Record<string, unknown>;
    let place = ShardStore.position(sub, run.floor);
    let [cursor, pinned] = [sub.cursor, sub.pinned];
    // Due or stored only while the page was read (a retry made due, a replay subscribed): the page
    // starts after its place, so moving it to `hi` would skip what it has not had. The next pass, at
    // once, reads from its place; until then it holds the floor where it is.
    if (place < run.from) {
      if (!pinned) run.after.set(sub.id, place);
      run.more = true;
      return;
    }
    // Only a subscription that reads the floor holds it back; a pinned one keeps its own cursor.
    const track = () => (pinned ? run.after.delete(sub.id) : run.after.set(sub.id, place));
    track();
    let attempts = sub.attempts;
    let checked = false;
    for (const row of run.rows) {
      if (row.seq <= place || !matchesRow(run, args, row)) continue;
      if (run.budget-- <= 0) return void (run.more = true);
      if (!checked && !(checked = await this.stillAllowed(sub, run.type))) {
        run.after.delete(sub.id);
        return this.revoke(sub);
      }
      const attempt = attempts + 1;
      const { outcome, reason } = await inSpan(run.tracer, `events/deliver ${this.name}`, (span) =>
        deliverOnce(this.env, this.name, sub, row, bodyOf(run, row), attempt, run.type.limits.maxAttempts, span),
      );
      run.tally[outcome]++;
      const at = Date.now();
      if (outcome === "retry") {
        // Waiting for its retry, it is pinned where it is, so the floor moves on for everyone else.
        run.after.delete(sub.id);
        const retryPlace = place;
        return record(run, () => this.store.retryAt(sub.id, retryPlace, attempt, at + backoffMs(attempt), reason!, at));
      }
      const seq = row.seq;
      record(run, () =>
        this.store.moveTo(sub.id, seq, run.floor, { delivered: outcome === "delivered" ? at : undefined, error: reason, now: at }),
      );
      [cursor, pinned, place] = [row.seq, row.seq < run.floor ? 1 : 0, row.seq];
      track();
      attempts = 0;
    }
    place = run.hi;
    track();
    if (pinned) run.pinnedDone.push({ id: sub.id, cursor });
  }

  /** Scopes the type needs now (a deploy may have added one) and the app's own check, for the subscription's principal. */
  private async stillAllowed(sub: SubRow, type: ServedType): Promise<boolean> {
    const scopes = JSON.parse(sub.scopes) as string[];
    if (!(type.def.scopes ?? []).every((s) => scopes.includes(s))) return false;
    if (!type.def.allow) return true;
    try {
      const args = type.def.input ? v.parse(type.def.input, JSON.parse(sub.args)) : JSON.parse(sub.args);
      return (await type.def.allow({ principal: sub.principal, scopes, arguments: args, env: this.env })) === true;
    } catch (err) {
      writeLog("error", "event_allow_failed", { event: this.name, message: messageOf(err) });
      return false;
    }
  }

  /** Access gone: the signed `terminated` envelope (Forbidden), and the subscription is deleted first, so nothing more is sent. */
  private async revoke(sub: SubRow): Promise<void> {
    this.store.drop(sub.id);
    await sendTerminated(this.name, sub, eventError("Forbidden", "Access to this event was revoked").toJSON(), "revoked");
  }

  /**
   * The type is no longer served (a deploy removed it): every subscription gets the signed
   * `terminated` envelope (NotFound, kind `event`) once, and is deleted before it is sent.
   */
  async typeRemoved(): Promise<void> {
    const error = eventError("NotFound", `No event type "${this.name}"`, { kind: "event" }).toJSON();
    const subs = this.store.live(Date.now());
    for (const sub of subs) this.store.drop(sub.id);
    await pool(subs, DELIVERY_CONCURRENCY, (sub) => sendTerminated(this.name, sub, error, "type_removed"));
  }
}
