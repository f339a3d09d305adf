/**
 * The events tests' tools: JSON-RPC over /mcp to the events test app (with a bearer token, or
 * anonymously), a webhook receiver played by a stubbed outbound fetch (it answers the verification
 * handshake and a script of statuses, and keeps every request's exact bytes), and the event types'
 * objects (the type's log, and the shard of a principal's subscriptions), to run their alarms and move their clocks.
 */
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { expect, vi } from "vitest";
import { until } from "./until";
import { shardOf } from "../../../src/engine/events/placement";
import { anonymousEventsWorker, eventsWorker } from "../app/events-worker";
import { buildModernRequest, type RpcMessage } from "../wire";

export async function call(
  method: string,
  params: Record<string, unknown>,
  token?: string,
  extraEnv: Record<string, unknown> = {},
): Promise<{ status: number; body: RpcMessage }> {
  const { message, headers } = buildModernRequest(method, params);
  const ctx = createExecutionContext();
  const worker = token ? eventsWorker : anonymousEventsWorker;
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const res = await worker.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers: { ...headers, ...auth }, body: JSON.stringify(message) }),
    { ...env, ...extraEnv } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as RpcMessage };
}

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

/** A webhook endpoint at https://<random>.hooks.example/cb. */
export class Receiver {
  readonly host = `${crypto.randomUUID().slice(0, 8)}.hooks.example`;
  readonly url = `https://${this.host}/cb`;
  /** Every request, verification included, in arrival order. */
  readonly requests: Received[] = [];
  /** Statuses for the next deliveries (then 200). */
  script: number[] = [];
  /** How the handshake is answered: echo the challenge, send a wrong one, or a status. */
  handshake: "echo" | "wrong" | number = "echo";

  get deliveries() {
    return this.requests.filter((r) => r.json?.type === undefined);
  }
  get controls() {
    return this.requests.filter((r) => r.json?.type !== undefined);
  }

  async answer(request: Request): Promise<Response> {
    const body = await request.text();
    const json = JSON.parse(body);
    this.requests.push({ url: request.url, headers: Object.fromEntries(request.headers), body, json });
    if (json.type === "verification") {
      if (typeof this.handshake === "number") return new Response("no", { status: this.handshake });
      return Response.json({ challenge: this.handshake === "echo" ? json.challenge : "nope" });
    }
    return new Response(null, { status: this.script.shift() ?? 200 });
  }
}

const receivers = new Map<string, Receiver>();

/** Routes outbound fetches to the receivers by host; anything else goes out as usual. */
export function stubReceivers(): void {
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const receiver = receivers.get(new URL(request.url).host);
    return receiver ? receiver.answer(request) : realFetch(input, init);
  });
}

export function receiver(host?: string): Receiver {
  const r = new Receiver();
  if (host) Object.defineProperty(r, "host", { value: host });
  receivers.set(host ?? r.host, r);
  return r;
}

export const SECRET = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
export const freshSecret = () => `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;

const namespace = () => (env as unknown as { MCP_EVENTS: DurableObjectNamespace }).MCP_EVENTS;
/** A type's own object: its log. */
export const typeObject = (name: string) => namespace().get(namespace().idFromName(name));
/** The test app's shards per type (the default). */
export const SHARDS = 8;
/** The shard that holds a principal's webhook subscriptions to a type. */
export const shardObject = (name: string, principal: string) => shardNumber(name, shardOf(principal, SHARDS));
/** A type's shard `k` (0 to SHARDS - 1). */
const shardNumber = (name: string, k: number) => namespace().get(namespace().idFromName(`${name}#${k}`));

/** The pass an events object is running, if any (a shard's; the type's own object has none). */
const passOf = (instance: unknown) => (instance as { passing?: Promise<void> }).passing;

/**
 * Makes a principal's waiting retries of a type due now and runs its shard's alarm (as its backoff
 * would, later). The pass that made the attempt is let end first: a receiver can hold its answer
 * while that pass still waits to record it (and the backoff), which would undo the retry made due.
 */
export async function retryNow(name: string, principal: string): Promise<void> {
  const stub = shardObject(name, principal);
  await passEnded(name, principal);
  await runInDurableObject(stub, async (_o, state) => {
    state.storage.sql.exec("UPDATE sub SET next_at = 0");
    await state.storage.setAlarm(Date.now() + 60_000);
  });
  await runDurableObjectAlarm(stub);
}

/** Runs SQL in the shard of a principal's subscriptions to a type (to move a subscription's expiry into the past, say). */
export const sqlIn = (name: string, principal: string, query: string, ...bindings: unknown[]) =>
  runInDurableObject(shardObject(name, principal), (_o, state) => state.storage.sql.exec(query, ...bindings).toArray());

/** Deliveries are sent by the object's alarm, after the emit returned: the events tests wait for them with this. */
export { until };

/**
 * Waits for the delivery pass a principal's shard is running to end: whatever that pass was to send
 * has then been sent, so a receiver that has nothing at this point got nothing from it.
 */
export const passEnded = (name: string, principal: string) =>
  runInDurableObject(shardObject(name, principal), async (instance) => {
    await passOf(instance);
  });

/**
 * Waits until nothing of a type is running or due within a few seconds: its own object's alarm (the
 * emit's wake of the shards) has run, and each shard's pass has ended with no next pass due soon. A
 * test file whose last emit still has passes in flight when it ends would have them cut off by the
 * test environment's teardown (an unhandled rejection that fails the run).
 */
export async function typeQuiet(name: string): Promise<void> {
  const settled = async (stub: DurableObjectStub) =>
    until(async () => {
      const alarm = await runInDurableObject(stub, async (instance, state) => {
        await passOf(instance);
        return state.storage.getAlarm();
      });
      expect(alarm === null || alarm > Date.now() + 5_000).toBe(true);
    });
  await settled(typeObject(name));
  for (let k = 0; k < SHARDS; k++) await settled(shardNumber(name, k));
}

/**
 * The barrier before a "nothing was delivered" assertion: `witness` (a live subscription of the same
 * principal to the same type, so on the same shard, matching the same occurrence) has had its delivery,
 * and the pass that sent it has ended. Any other subscription that pass could have reached was reached.
 */
export async function witnessed(witness: Receiver, name: string, principal: string, deliveries = 1): Promise<void> {
  await until(() => expect(witness.deliveries).toHaveLength(deliveries));
  await passEnded(name, principal);
}
