/**
 * MCP Events past one object, through /mcp (test/engine/app/events-app.ts): one type's webhook
 * subscriptions live on several shards and none on the type's own object, one emit reaches each of
 * them once, each subscription gets its occurrences in order (the next only after the last was
 * acknowledged), a restart of every object between the emit and the last delivery loses none and
 * repeats none that were acknowledged, and a delivery writes about one SQLite row.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { shardOf } from "../../../src/engine/events/placement";
import {
  call,
  freshSecret,
  passEnded,
  receiver,
  retryNow,
  SHARDS,
  shardObject,
  sqlIn,
  stubReceivers,
  typeObject,
  typeQuiet,
  until,
  type Receiver,
} from "../helpers/events";

beforeAll(stubReceivers);
afterAll(async () => {
  // The last test's emit wakes every shard: their passes end before the file does.
  await typeQuiet("test_event");
  vi.restoreAllMocks();
});

const subscribe = (hook: Receiver, principal: string, topic: string) =>
  call(
    "events/subscribe",
    { name: "test_event", arguments: { topic }, delivery: { mode: "webhook", url: hook.url, secret: freshSecret() }, cursor: null },
    principal,
  );

const emitTest = (topic: string, text: string, count = 1) =>
  call("tools/call", { name: "emit_test_event", arguments: { topic, text, count } }, "emitter");

/** The seq of each delivery a receiver got, in arrival order. */
const seqs = (hook: Receiver) => hook.deliveries.map((d) => d.json.data.seq as number);

/**
 * A receiver subscribed as `principal` on `topic` that acknowledges the first occurrence and fails
 * the second, after an emit of `count` occurrences and the end of the pass that sent those two. An
 * answer's row is written at the next turn of the shard's event loop, before the pass ends, so a
 * restart after this comes after both writes (one before a write sends that delivery again,
 * docs/events.md).
 */
async function ackedThenFailed(principal: string, topic: string, count: number) {
  const hook = receiver();
  await subscribe(hook, principal, topic);
  hook.script = [200, 503];
  await emitTest(topic, "acknowledged then failed", count);
  await until(() => expect(seqs(hook)).toEqual([1, 2]));
  await passEnded("test_event", principal);
  return hook;
}

describe("a type's subscriptions over shards", () => {
  it("spreads one type's subscriptions over several shards, none on the type's object, and one emit reaches each once", async () => {
    const principals = Array.from({ length: 12 }, (_, i) => `spread-${i}`);
    const shards = new Set(principals.map((p) => shardOf(p, SHARDS)));
    expect(shards.size).toBeGreaterThan(3);
    const hooks = principals.map(() => receiver());
    for (const [i, p] of principals.entries()) expect((await subscribe(hooks[i]!, p, "spread")).body.result.id).toMatch(/^sub_/);
    await emitTest("spread", "to all");
    await until(() => expect(hooks.every((h) => h.deliveries.length === 1)).toBe(true));
    // Each shard holds only its own principals' subscriptions.
    for (const p of principals) {
      const held = (await sqlIn("test_event", p, "SELECT principal FROM sub WHERE principal LIKE 'spread-%'")) as { principal: string }[];
      expect(held.every((r) => shardOf(r.principal, SHARDS) === shardOf(p, SHARDS))).toBe(true);
    }
    // The type's object keeps the log and which shards to wake: no subscription table at all.
    const tables = await runInDurableObject(typeObject("test_event"), (_o, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((r) => r.name),
    );
    expect(tables).toContain("log");
    expect(tables).not.toContain("sub");
    expect(tables).not.toContain("delivery");
    const joined = await runInDurableObject(typeObject("test_event"), (_o, state) =>
      state.storage.sql
        .exec<{ k: number }>("SELECT k FROM shard")
        .toArray()
        .map((r) => r.k),
    );
    for (const k of shards) expect(joined).toContain(k);
    await until(() => expect(hooks.flatMap((h) => h.deliveries)).toHaveLength(principals.length));
  });

  it("delivers each subscription's occurrences in order: the next only once the last was acknowledged", async () => {
    const hook = receiver();
    await subscribe(hook, "orderly", "order");
    // The second occurrence fails once; the third and later wait for its retry.
    hook.script = [200, 503];
    await emitTest("order", "in order", 5);
    await until(() => expect(seqs(hook)).toEqual([1, 2]));
    expect(await sqlIn("test_event", "orderly", "SELECT attempts FROM sub WHERE principal = 'orderly'")).toEqual([{ attempts: 1 }]);
    await retryNow("test_event", "orderly");
    await until(() => expect(seqs(hook)).toEqual([1, 2, 2, 3, 4, 5]));
    // One webhook-id per occurrence, the retry's the same as its first attempt's.
    const ids = hook.deliveries.map((d) => d.headers["webhook-id"]);
    expect(ids[1]).toBe(ids[2]);
    expect(new Set(ids).size).toBe(5);
    // Each body's cursor says everything before this occurrence was dealt with: a client resuming from it gets this one again, no earlier.
    const resumed = await call(
      "events/poll",
      { name: "test_event", arguments: { topic: "order" }, cursor: hook.deliveries[3]!.json.cursor },
      "orderly",
    );
    expect(resumed.body.result.events.map((e: { data: { seq: number } }) => e.data.seq)).toEqual([3, 4, 5]);
  });

  it("loses none and repeats none acknowledged when every object restarts between the emit and the last delivery", async () => {
    // The first occurrence is acknowledged, the second fails: the restart comes between them.
    const hook = await ackedThenFailed("restarts", "restart-all", 3);
    await evictDurableObject(typeObject("test_event"));
    await evictDurableObject(shardObject("test_event", "restarts"));
    await retryNow("test_event", "restarts");
    await until(() => expect(seqs(hook)).toEqual([1, 2, 2, 3]));
    // Another pass sends nothing more: what was acknowledged stays acknowledged.
    await retryNow("test_event", "restarts");
    await emitTest("restart-all", "barrier");
    await until(() => expect(hook.deliveries.at(-1)!.json.data.text).toBe("barrier"));
    expect(seqs(hook)).toEqual([1, 2, 2, 3, 1]);
  });

  it("writes a pass's answers in the order they came: one acknowledged, then the next failed, waits for the retry of the second", async () => {
    const hook = await ackedThenFailed("answers-in-order", "ack-then-fail", 2);
    // The failure's write came after the acknowledgement's: the row waits for the retry, pinned at the first.
    const [row] = (await sqlIn(
      "test_event",
      "answers-in-order",
      "SELECT pinned, attempts, next_at FROM sub WHERE principal = ?",
      "answers-in-order",
    )) as {
      pinned: number;
      attempts: number;
      next_at: number;
    }[];
    expect(row).toMatchObject({ pinned: 1, attempts: 1 });
    expect(row!.next_at).toBeGreaterThan(Date.now());
    await retryNow("test_event", "answers-in-order");
    await emitTest("ack-then-fail", "barrier");
    await until(() => expect(hook.deliveries.at(-1)!.json.data.text).toBe("barrier"));
    expect(seqs(hook)).toEqual([1, 2, 2, 1]);
  });

  it("resumes a shard whose alarm is pending after a restart: the emit's wake is stored with the emit", async () => {
    const hook = receiver();
    await subscribe(hook, "sleeper", "wake");
    const shard = shardObject("test_event", "sleeper");
    // The emit returns before any shard has run; the shard is evicted before its pass.
    await emitTest("wake", "after eviction");
    await evictDurableObject(shard);
    await runDurableObjectAlarm(typeObject("test_event"));
    await runDurableObjectAlarm(shard);
    await until(() => expect(seqs(hook)).toEqual([1]));
  });

  it("writes one SQLite row per delivery, and none for a subscription an occurrence does not match", async () => {
    const hook = receiver();
    const other = receiver();
    // One principal's subscriptions (the fixture's bound is three): one shard.
    for (const hookOf of [hook, other]) await subscribe(hookOf, "rower", hookOf === hook ? "rows" : "rows-elsewhere");
    await subscribe(receiver(), "rower", "rows-quiet");
    const shard = shardObject("test_event", "rower");
    await runDurableObjectAlarm(shard);
    const written: { query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];
    await runInDurableObject(shard, (_o, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        written.push({ query, cursor });
        return cursor;
      }) as typeof sql.exec;
    });
    const rowsWritten = (table: string) => written.filter((w) => w.query.includes(table)).reduce((n, w) => n + w.cursor.rowsWritten, 0);
    await emitTest("rows", "counted", 5);
    await until(() => expect(hook.deliveries).toHaveLength(5));
    await emitTest("rows-elsewhere", "counted", 5);
    await until(() => expect(other.deliveries).toHaveLength(5));
    await runDurableObjectAlarm(shard);
    // Ten deliveries, one row of the subscription each; the one that matched nothing wrote none.
    expect(rowsWritten("sub")).toBe(10);
    // The shard's floor, at most once a pass, so that the unmatched subscription needs no write.
    expect(rowsWritten("state")).toBeLessThanOrEqual(10 * 0.5);
  });

  it("loads only the subscriptions with something to send: none caught up, none waiting for a retry", async () => {
    // Principals whose subscriptions share one shard: 12 on a quiet topic, one on a busy one.
    const shard = shardOf("loads-0", SHARDS);
    const principals = Array.from({ length: 200 }, (_, i) => `loads-${i}`)
      .filter((p) => shardOf(p, SHARDS) === shard)
      .slice(0, 5);
    expect(principals).toHaveLength(5);
    const quiet = Array.from({ length: 12 }, () => receiver());
    for (const [i, hook] of quiet.entries()) await subscribe(hook, principals[i % 4]!, "loads-quiet");
    const busy = receiver();
    await subscribe(busy, principals[4]!, "loads-busy");
    const stub = shardObject("test_event", principals[0]!);
    // The busy one's delivery fails: it waits for its retry, and the quiet ones have nothing for them.
    busy.script = [503];
    await emitTest("loads-busy", "fails once");
    await until(() => expect(busy.deliveries).toHaveLength(1));
    await until(async () =>
      expect(await sqlIn("test_event", principals[4]!, "SELECT attempts FROM sub WHERE principal = ?", principals[4]!)).toEqual([
        { attempts: 1 },
      ]),
    );
    // Every batch of subscriptions a pass loads, by its size.
    const loaded: number[] = [];
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        if (!query.startsWith("SELECT * FROM sub")) return cursor;
        const toArray = cursor.toArray.bind(cursor);
        cursor.toArray = () => {
          const rows = toArray();
          loaded.push(rows.length);
          return rows;
        };
        return cursor;
      }) as typeof sql.exec;
    });
    // A pass with nothing due loads none of the 13.
    await runInDurableObject(stub, (_o, state) => state.storage.setAlarm(Date.now() + 60_000));
    await runDurableObjectAlarm(stub);
    expect(loaded.reduce((a, b) => a + b, 0)).toBe(0);
    // An occurrence for the quiet topic loads each subscription of the shard once (the 12, and what
    // earlier tests left here, to learn it does not match), never the one waiting for its retry.
    const notWaiting = (
      (await sqlIn("test_event", principals[0]!, "SELECT COUNT(*) AS n FROM sub WHERE next_at = 0")) as { n: number }[]
    )[0]!.n;
    expect(notWaiting).toBeGreaterThanOrEqual(12);
    await emitTest("loads-quiet", "to the quiet ones");
    await until(() => expect(quiet.every((h) => h.deliveries.length === 1)).toBe(true));
    await runDurableObjectAlarm(stub);
    expect(loaded.reduce((a, b) => a + b, 0)).toBe(notWaiting);
    expect(busy.deliveries).toHaveLength(1);
    // Its retry, when due, still sends the occurrence it failed, and nothing it was not subscribed to.
    await retryNow("test_event", principals[4]!);
    await until(() => expect(busy.deliveries).toHaveLength(2));
    expect(busy.deliveries.map((d) => d.json.data.text)).toEqual(["fails once", "fails once"]);
  });

  it("still sends a retry that fell due while a pass read the log, though the floor had moved past it", async () => {
    // Two principals whose subscriptions share one shard: one whose delivery waits for its retry, one
    // whose occurrences move the shard's floor on past it.
    const shard = shardOf("late-0", SHARDS);
    const [waiting, moving] = Array.from({ length: 200 }, (_, i) => `late-${i}`).filter((p) => shardOf(p, SHARDS) === shard);
    const late = receiver();
    const other = receiver();
    await subscribe(late, waiting!, "late-retry");
    await subscribe(other, moving!, "late-other");
    late.script = [503];
    await emitTest("late-retry", "sent again");
    await until(() => expect(late.deliveries).toHaveLength(1));
    await emitTest("late-other", "moves the floor");
    await until(() => expect(other.deliveries).toHaveLength(1));
    await passEnded("test_event", waiting!);
    // The next pass reads the log from the floor, past the waiting one's place; the retry falls due
    // while that read is on its way (as the platform can run anything between the two).
    const stub = shardObject("test_event", waiting!);
    await runInDurableObject(stub, (instance, state) => {
      const shardRole = (instance as unknown as { shardRole: { typeLog: () => { read: (...a: unknown[]) => Promise<unknown> } } })
        .shardRole;
      const typeLog = shardRole.typeLog;
      shardRole.typeLog = () => ({
        read: async (...a: unknown[]) => {
          const page = await typeLog().read(...a);
          state.storage.sql.exec("UPDATE sub SET next_at = 0 WHERE principal = ?", waiting!);
          shardRole.typeLog = typeLog;
          return page;
        },
      });
    });
    await emitTest("late-other", "a pass");
    await until(() => expect(other.deliveries).toHaveLength(2));
    // That pass leaves it where it was, and the next one sends it the occurrence it failed.
    await until(() => expect(late.deliveries).toHaveLength(2));
    expect(late.deliveries.map((d) => d.json.data.text)).toEqual(["sent again", "sent again"]);
  });
});
