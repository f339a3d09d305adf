/**
 * The 2025 session's one alarm rule (src/engine/objects/session-alarm.ts), run in Node over the real store:
 * the alarm is always at the earliest of idle expiry, a pending request's deadline and a finished
 * stream's replay end, it follows every write of one of those times without the writer asking, and it
 * is set once per turn however many times change.
 */
import { describe, expect, it } from "vitest";
import { SessionAlarm } from "../../../src/engine/objects/session-alarm";
import { SessionStore, type SessionRow } from "../../../src/engine/objects/session-store";
import { nodeStorage } from "./node-storage";

const IDLE = 3_600_000;
const REPLAY = 300_000;
const T0 = 1_000_000;
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function fresh() {
  const storage = nodeStorage();
  let writes = 0;
  const counted = { setAlarm: (at: number) => (writes++, storage.kv.setAlarm(at)) } as Pick<DurableObjectStorage, "setAlarm">;
  const store: SessionStore = new SessionStore(storage.sql, storage.kv, () => alarms.follow());
  const alarms = new SessionAlarm(store, counted, () => ({ idleMs: IDLE, replayMs: REPLAY }));
  const row: SessionRow = {
    id: "s",
    protocolVersion: "2025-11-25",
    clientCapabilities: {},
    principal: "",
    subscriptions: [],
    createdAt: T0,
    lastSeenAt: T0,
    counter: 1,
  };
  return { store, alarms, row, alarm: storage.alarm, writes: () => writes };
}

const pending = (rpcId: string, stream: string, deadline: number) => ({
  rpcId,
  stream,
  key: rpcId,
  method: "elicitation/create",
  deadline,
});

describe("the session's alarm", () => {
  it("is not set while the session holds no state", async () => {
    const { alarms, alarm } = fresh();
    alarms.follow();
    await turn();
    expect(alarms.due()).toBe(Infinity);
    expect(alarm()).toBeNull();
  });

  it("is set for idle expiry when the session first stores its row", async () => {
    const { store, row, alarm } = fresh();
    store.createSchema();
    await store.putSession(row);
    await turn();
    expect(alarm()).toBe(T0 + IDLE);
  });

  it("moves to a pending request's deadline when one is stored, and the idle clock moving on does not pass it", async () => {
    const { store, row, alarm } = fresh();
    store.createSchema();
    await store.putSession(row);
    const stream = store.openStream("post", 1, 1);
    store.addPending(pending("s1", stream, T0 + 60_000));
    await turn();
    expect(alarm()).toBe(T0 + 60_000);
    await store.putSession({ ...row, lastSeenAt: T0 + 120_000 });
    await turn();
    expect(alarm()).toBe(T0 + 60_000);
  });

  it("covers a finished stream's replay window when that ends first", async () => {
    const { store, row, alarm } = fresh();
    store.createSchema();
    await store.putSession(row);
    const stream = store.openStream("post", 1, 1);
    store.closeStream(stream, T0 + 10);
    await turn();
    expect(alarm()).toBe(T0 + 10 + REPLAY);
  });

  it("is set once for all the times one turn writes", async () => {
    const { store, row, alarm, writes } = fresh();
    store.createSchema();
    await store.putSession(row);
    await turn();
    const before = writes();
    const stream = store.openStream("post", 1, 1);
    for (let i = 0; i < 5; i++) store.addPending(pending(`s${i}`, stream, T0 + 50_000 - i));
    await turn();
    expect(writes() - before).toBe(1);
    expect(alarm()).toBe(T0 + 50_000 - 4);
  });

  it("is set again after it fired, from what the handler left", async () => {
    const { store, row, alarms, alarm } = fresh();
    store.createSchema();
    await store.putSession(row);
    const stream = store.openStream("post", 1, 1);
    store.addPending(pending("s1", stream, T0 + 60_000));
    await turn();
    // The alarm fires at the deadline: the handler ends that call, and the alarm falls back to idle expiry.
    store.deleteCall(stream);
    alarms.fired();
    await turn();
    expect(alarm()).toBe(T0 + IDLE);
  });
});
