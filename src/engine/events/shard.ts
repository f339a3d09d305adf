/**
 * A shard of a type's webhook subscriptions (placement.ts): subscribe and unsubscribe for the
 * principals hashed here, and the alarm's pass that delivers. A pass reads the type's log from the
 * earliest place a due subscription is at, and sends each subscription the occurrences after its
 * place that match it, one after another (the next only once the last was acknowledged or given up),
 * several subscriptions at a time. Each outcome writes the subscription's one row; a subscription
 * that an occurrence does not match writes nothing (the shard's floor moves on for it, once a pass).
 * A restart anywhere in a pass loses nothing: a subscription's place moves only once its occurrence
 * was answered, so the next pass sends what was not, and never again what was.
 */
import * as v from "valibot";
import { readConfig } from "../config";
import type { Env } from "../env";
import { McpError, messageOf } from "../mcp/errors";
import { inSpan } from "../mcp/tracing";
import { tracerFor } from "../reporting";
import { matches } from "./canonical";
import { encodeCursor } from "./cursor";
import { deliverOnce, sendTerminated, verifyCallback } from "./deliver";
import { eventError } from "./errors";
import { backoffMs, DELIVERY_CONCURRENCY, LOG_PAGE, SECRET_GRACE_MS, VERIFIED_FOR_MS } from "./limits";
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
   * The alarm: one pass over the due subscriptions (module comment). Returns when the next pass is
   * due: at once when more is waiting, at the earliest retry, or never (undefined) when all is sent.
   */
  async pass(type: ServedType): Promise<number | undefined> {
    const now = Date.now();
    this.store.sweep(now);
    const floor = this.store.floor();
    const subs = this.store.live(now);
    const due = subs.filter((s) => s.next_at <= now);
    if (due.length === 0) return this.store.nextRetry(now);
    let from = Number.POSITIVE_INFINITY;
    for (const s of due) from = Math.min(from, ShardStore.position(s, floor));
    const page: LogPage = unwrap(await this.typeLog().read(this.name, from, LOG_PAGE));
    const hi = page.rows.length === LOG_PAGE ? page.rows.at(-1)!.seq : page.head;
    const matchOf = new Map<number, Record<string, unknown>>();
    const matchesRow = (args: Record<string, unknown>, row: LogRow) => {
      let m = matchOf.get(row.seq);
      if (!m) matchOf.set(row.seq, (m = JSON.parse(row.match) as Record<string, unknown>));
      return matches(args, m);
    };
    // Each subscription's place after this pass; the new floor is the least of them.
    const after = new Map(subs.map((s) => [s.id, ShardStore.position(s, floor)]));
    // What each subscription has stored after the pass: the floor is written only when one reads it.
    const stored = new Map(subs.map((s) => [s.id, { id: s.id, cursor: s.cursor, pinned: s.pinned, caughtUp: false }]));
    let budget = type.limits.deliveriesPerPass;
    let more = hi < page.head;
    const tracer = tracerFor(readConfig(this.env));
    const work = due.filter((s) => after.get(s.id)! < hi);
    await pool(work, DELIVERY_CONCURRENCY, async (sub) => {
      const args = JSON.parse(sub.args) as Record<string, unknown>;
      let place = after.get(sub.id)!;
      let attempts = sub.attempts;
      let checked = false;
      const mine = stored.get(sub.id)!;
      for (const row of page.rows) {
        if (row.seq <= place || !matchesRow(args, row)) continue;
        if (budget-- <= 0) return void (more = true);
        if (!checked && !(checked = await this.stillAllowed(sub, type))) {
          after.delete(sub.id);
          return this.revoke(sub);
        }
        const attempt = attempts + 1;
        const cursor = type.replay ? encodeCursor(row.seq - 1) : null;
        const { outcome, reason } = await inSpan(tracer, `events/deliver ${this.name}`, (span) =>
          deliverOnce(this.env, this.name, sub, row, cursor, attempt, type.limits.maxAttempts, span),
        );
        const at = Date.now();
        if (outcome === "retry") return this.store.retryAt(sub.id, attempt, at + backoffMs(attempt), reason!, at);
        this.store.moveTo(sub.id, row.seq, floor, { delivered: outcome === "delivered" ? at : undefined, error: reason, now: at });
        [mine.cursor, mine.pinned] = [row.seq, row.seq < floor ? 1 : 0];
        after.set(sub.id, (place = row.seq));
        attempts = 0;
      }
      after.set(sub.id, hi);
      mine.caughtUp = true;
    });
    let newFloor = hi;
    for (const place of after.values()) newFloor = Math.min(newFloor, place);
    newFloor = Math.max(floor, newFloor);
    let readsFloor = false;
    for (const s of stored.values()) {
      if (!after.has(s.id)) continue;
      // A pinned subscription (its own cursor) that caught up behind the new floor reads it from now on: one write, once.
      if (s.pinned && s.caughtUp && s.cursor < newFloor) this.store.moveOn(s.id, hi);
      else if (!s.pinned && s.cursor < newFloor) readsFloor = true;
    }
    // When every subscription's own cursor is at the new floor or past it (each had what was sent), nothing reads it.
    if (newFloor > floor && readsFloor) this.store.setFloor(newFloor);
    return more ? Date.now() : this.store.nextRetry(Date.now());
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
