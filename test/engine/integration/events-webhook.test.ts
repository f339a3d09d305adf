/**
 * MCP Events by webhook, through /mcp (test/engine/app/events-app.ts): subscribe runs the callback
 * handshake first, deliveries are signed as an off-the-shelf Standard Webhooks verifier checks them
 * (the `standardwebhooks` package, never the engine's own code), one event per request, only to
 * subscriptions whose arguments match; retries back off and stop at a 2xx, 410 and 413 are never
 * retried, a lapsed TTL ends delivery, a replaced secret dual-signs, revoked access ends the
 * subscription with a signed `terminated`, and a restart between emit and delivery loses nothing.
 */
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  call,
  freshSecret,
  receiver,
  retryNow,
  shardObject,
  sqlIn,
  stubReceivers,
  typeObject,
  typeQuiet,
  until,
  witnessed,
  type Received,
} from "../helpers/events";

beforeAll(stubReceivers);
afterAll(async () => {
  // Passes an emit woke end before the file does (the teardown would cut them off).
  await typeQuiet("test_event");
  vi.restoreAllMocks();
});

/** What a receiver library does with a request: throws unless one signature verifies with this secret. */
const verifies = (r: Received, secret: string) => new Webhook(secret).verify(r.body, r.headers);

const subscribe = (url: string, secret: string, token = "alice", params: Record<string, unknown> = {}) =>
  call(
    "events/subscribe",
    { name: "test_event", arguments: { topic: "billing" }, delivery: { mode: "webhook", url, secret }, cursor: null, ...params },
    token,
  );

const emitTest = (topic: string, text: string, count = 1) =>
  call("tools/call", { name: "emit_test_event", arguments: { topic, text, count } }, "emitter");

describe("events/subscribe (webhook)", () => {
  it("verifies the callback with a signed challenge before answering, then delivers matching events, signed", async () => {
    const hook = receiver();
    const secret = freshSecret();
    const { status, body } = await subscribe(hook.url, secret);
    expect(status).toBe(200);
    const result = body.result;
    expect(result).toMatchObject({ resultType: "complete", truncated: false });
    expect(result.id).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(Date.parse(result.refreshBefore)).toBeGreaterThan(Date.now());
    expect(typeof result.cursor).toBe("string");
    // The handshake came first, signed with the subscription's secret, and named the subscription.
    expect(hook.requests).toHaveLength(1);
    const handshake = hook.requests[0]!;
    expect(handshake.json).toMatchObject({ type: "verification" });
    expect(handshake.headers["webhook-id"]).toMatch(/^msg_verification_/);
    expect(handshake.headers["x-mcp-subscription-id"]).toBe(result.id);
    expect(() => verifies(handshake, secret)).not.toThrow();

    await emitTest("other", "not for billing");
    await emitTest("billing", "invoice paid", 2);
    await until(() => expect(hook.deliveries).toHaveLength(2));
    for (const [i, d] of hook.deliveries.entries()) {
      expect(() => verifies(d, secret)).not.toThrow();
      expect(d.headers["content-type"]).toBe("application/json");
      expect(d.headers["x-mcp-subscription-id"]).toBe(result.id);
      expect(d.headers["webhook-id"]).toBe(d.json.eventId);
      expect(d.json).toMatchObject({ name: "test_event", data: { topic: "billing", text: "invoice paid" } });
      expect(d.json.timestamp).toMatch(/Z$/);
      expect(typeof d.json.cursor).toBe("string");
      expect(new TextEncoder().encode(d.body).length).toBeLessThanOrEqual(262_144);
      expect(d.json.data.seq).toBe(i + 1);
    }
  });

  it("is refreshed under the same key: the same id, no second handshake, a new grant, and a deliveryStatus", async () => {
    const hook = receiver();
    const secret = freshSecret();
    const first = (await subscribe(hook.url, secret)).body.result;
    // Argument order does not make another subscription.
    const again = (
      await call(
        "events/subscribe",
        { name: "test_event", arguments: { topic: "billing" }, delivery: { url: hook.url, secret, mode: "webhook" }, cursor: first.cursor },
        "alice",
      )
    ).body.result;
    expect(again.id).toBe(first.id);
    expect(again.deliveryStatus).toMatchObject({ active: true });
    expect(hook.controls.filter((r) => r.json.type === "verification")).toHaveLength(1);
    // Another principal at the same URL is another subscription, verified for itself.
    const bob = (await subscribe(hook.url, secret, "bob")).body.result;
    expect(bob.id).not.toBe(first.id);
    expect(hook.controls.filter((r) => r.json.type === "verification")).toHaveLength(2);
  });

  it("refuses what it must, each a JSON-RPC error, never a 5xx", async () => {
    const hook = receiver();
    const secret = freshSecret();
    const cases: [Record<string, unknown>, string | undefined, number, Record<string, unknown>?][] = [
      [{}, undefined, -32012], // no principal: webhooks need one
      [{ name: "nope" }, "alice", -32011, { kind: "event" }],
      [{ arguments: { topic: 7 } }, "alice", -32602],
      [{ arguments: { topic: "x".repeat(5000) } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: hook.url, secret: "whsec_short" } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: hook.url, secret: "not-a-secret" } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: hook.url.replace("https:", "http:"), secret } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: "https://10.0.0.7/cb", secret } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: "https://[::1]/cb", secret } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: "https://localhost/cb", secret } }, "alice", -32602],
      [{ delivery: { mode: "webhook", url: "http://127.0.0.1:9/cb", secret } }, "alice", -32602],
      [{ delivery: { mode: "push" } }, "alice", -32014, { feature: "deliveryMode" }],
      [{ name: "scoped_event", arguments: {} }, "alice.noscope", -32012],
    ];
    for (const [override, token, code, data] of cases) {
      const params = {
        name: "test_event",
        arguments: { topic: "billing" },
        delivery: { mode: "webhook", url: hook.url, secret },
        cursor: null,
        ...override,
      };
      const { status, body } = await call("events/subscribe", params, token);
      expect(status, JSON.stringify(override)).toBe(200);
      expect(body.error?.code, JSON.stringify(override)).toBe(code);
      if (data) expect(body.error!.data).toMatchObject(data);
    }
    // None of them reached the receiver.
    expect(hook.requests).toHaveLength(0);
  });

  it("refuses every IPv6 form that can reach a non-global address, and accepts a global one", async () => {
    const refused = [
      "[::127.0.0.1]", // IPv4-compatible loopback
      "[::ffff:10.0.0.1]", // IPv4-mapped
      "[::ffff:0:10.0.0.1]", // IPv4-translated
      "[64:ff9b::10.0.0.1]", // NAT64 to a private address
      "[64:ff9b:1::1]", // local-use NAT64
      "[2002:a00:1::1]", // 6to4 of 10.0.0.1
      "[2001:0:4136:e378:8000:63bf:3fff:fdd2]", // Teredo
      "[fec0::1]", // site-local
      "[fd00::1]", // unique-local
      "[fe80::1]", // link-local
      "[ff02::1]", // multicast
      "[::]",
      "[0:0:0:0:0:0:0:1]",
      "[2001:db8::1]", // documentation
      "198.51.100.7", // documentation (IPv4)
    ];
    for (const host of refused) {
      const { body } = await subscribe(`https://${host}/cb`, freshSecret(), "vsix");
      expect(body.error?.code, host).toBe(-32602);
      expect(body.error?.message, host).toMatch(/non-global address.*npm run dev/);
    }
    // A global IPv6 address passes the check: the handshake goes there (a stub answers it).
    const global = receiver("[2606:4700::1111]");
    const accepted = await subscribe(`https://${global.host}/cb`, freshSecret(), "vsix");
    expect(accepted.body.result?.id, JSON.stringify(accepted.body)).toMatch(/^sub_/);
  });

  it("under npm run dev accepts a receiver on localhost as on 127.0.0.1, and the refusal names that exception", async () => {
    const local = receiver("localhost:8771");
    const dev = { MCP_DEV: "on" };
    const params = { name: "test_event", arguments: { topic: "billing" }, cursor: null };
    const accepted = await call(
      "events/subscribe",
      { ...params, delivery: { mode: "webhook", url: `http://${local.host}/cb`, secret: freshSecret() } },
      "devloop",
      dev,
    );
    expect(accepted.body.error, JSON.stringify(accepted.body)).toBeUndefined();
    expect(accepted.body.result?.id).toMatch(/^sub_/);
    const deployed = await subscribe(`http://${local.host}/cb`, freshSecret(), "devloop");
    expect(deployed.body.error?.message).toMatch(
      /must be https; under `npm run dev` \(MCP_DEV=on\), http or https on 127\.0\.0\.1, localhost or \[::1\] is accepted/,
    );
  });

  it("answers CallbackEndpointError when the handshake fails, and stores nothing", async () => {
    const wrong = receiver();
    wrong.handshake = "wrong";
    const a = await subscribe(wrong.url, freshSecret(), "heidi");
    expect(a.body.error).toMatchObject({ code: -32015, data: { reason: "challenge_failed" } });
    const down = receiver();
    down.handshake = 503;
    const b = await subscribe(down.url, freshSecret(), "heidi");
    expect(b.body.error).toMatchObject({ code: -32015, data: { reason: "http_5xx" } });
    // Nothing stored: the shard holds no subscription to either URL.
    expect(await sqlIn("test_event", "heidi", "SELECT id FROM sub WHERE url IN (?, ?)", wrong.url, down.url)).toEqual([]);
    // A live subscription of the same principal and topic hears the emit, and the pass that told it ends.
    const witness = receiver();
    await subscribe(witness.url, freshSecret(), "heidi");
    await emitTest("billing", "nobody hears this");
    await witnessed(witness, "test_event", "heidi");
    expect(wrong.deliveries).toHaveLength(0);
    expect(down.deliveries).toHaveLength(0);
  });

  it("accepts http://127.0.0.1 only under wrangler dev (MCP_DEV=on)", async () => {
    const local = receiver("127.0.0.1:8911");
    const url = "http://127.0.0.1:8911/cb";
    const params = {
      name: "test_event",
      arguments: { topic: "dev" },
      delivery: { mode: "webhook", url, secret: freshSecret() },
      cursor: null,
    };
    expect((await call("events/subscribe", params, "alice")).body.error!.code).toBe(-32602);
    const dev = await call("events/subscribe", params, "alice", { MCP_DEV: "on" });
    expect(dev.body.result.id).toMatch(/^sub_/);
    expect(local.requests[0]!.json.type).toBe("verification");
  });

  it("rate-limits verification requests to one host, whoever asks (the fixture allows 4 a minute)", async () => {
    const hook = receiver();
    for (const who of ["v1", "v2", "v3", "v4"]) expect((await subscribe(hook.url, freshSecret(), who)).body.result.id).toBeTruthy();
    const fifth = await subscribe(hook.url, freshSecret(), "v5");
    expect(fifth.body.error).toMatchObject({ code: -32015, data: { reason: "rate_limited" } });
    expect(hook.controls).toHaveLength(4);
  });

  it("limits the subscriptions one principal holds per type (ResourceExhausted)", async () => {
    const hook = receiver();
    const secret = freshSecret();
    for (const topic of ["a", "b", "c"])
      expect((await subscribe(hook.url, secret, "carol", { arguments: { topic } })).body.result.id).toBeTruthy();
    const over = await subscribe(hook.url, secret, "carol", { arguments: { topic: "d" } });
    expect(over.body.error).toMatchObject({ code: -32013, data: { limit: "subscriptions", max: 3 } });
    // A refresh of one it holds is no new subscription.
    expect((await subscribe(hook.url, secret, "carol", { arguments: { topic: "a" } })).body.result.id).toBeTruthy();
  });
});

describe("webhook delivery", () => {
  it("retries a receiver that answers 500, 500, 200 with fresh signatures, the same webhook-id, and stops at the 2xx", async () => {
    const hook = receiver();
    const secret = freshSecret();
    await subscribe(hook.url, secret, "dave", { arguments: { topic: "retry" } });
    hook.script = [500, 500];
    await emitTest("retry", "flaky");
    await until(() => expect(hook.deliveries).toHaveLength(1));
    await retryNow("test_event", "dave");
    await until(() => expect(hook.deliveries).toHaveLength(2));
    // Two seconds later on the clock the shard reads (it runs in this isolate), so the third attempt's
    // timestamp (whole seconds) differs from the first's: a new signature without a real-clock wait.
    const realNow = Date.now.bind(Date);
    const later = vi.spyOn(Date, "now").mockImplementation(() => realNow() + 2000);
    try {
      await retryNow("test_event", "dave");
    } finally {
      later.mockRestore();
    }
    await until(() => expect(hook.deliveries).toHaveLength(3));
    const [a, b, c] = hook.deliveries;
    expect(new Set([a, b, c].map((d) => d!.headers["webhook-id"])).size).toBe(1);
    expect(Number(c!.headers["webhook-timestamp"])).toBeGreaterThan(Number(a!.headers["webhook-timestamp"]));
    expect(c!.headers["webhook-signature"]).not.toBe(a!.headers["webhook-signature"]);
    for (const d of [a, b, c]) expect(() => verifies(d!, secret)).not.toThrow();
    // retryNow runs the shard's alarm to its end: what that pass would send has been sent.
    await retryNow("test_event", "dave");
    expect(hook.deliveries).toHaveLength(3);
    expect(await sqlIn("test_event", "dave", "SELECT id FROM sub WHERE attempts > 0")).toHaveLength(0);
    // The refresh reports the failures it had, and that it is delivering again.
    const status = (await subscribe(hook.url, secret, "dave", { arguments: { topic: "retry" } })).body.result.deliveryStatus;
    expect(status.active).toBe(true);
    expect(Date.parse(status.lastDeliveryAt)).toBeGreaterThan(0);
    expect(status.lastError).toBeUndefined();
  });

  it("reports each attempt: an MCP_METRICS data point naming the type and its outcome, a log line per failed one, and a line per pass", async () => {
    const metrics = (env as { MCP_METRICS: AnalyticsEngineDataset }).MCP_METRICS;
    const points = vi.spyOn(Object.getPrototypeOf(metrics) as AnalyticsEngineDataset, "writeDataPoint");
    const lines = vi.spyOn(console, "log");
    try {
      const hook = receiver();
      const sub = await subscribe(hook.url, freshSecret(), "fran", { arguments: { topic: "reported" } });
      hook.script = [500];
      await emitTest("reported", "counted");
      await until(() => expect(hook.deliveries).toHaveLength(1));
      await retryNow("test_event", "fran");
      await until(() => expect(hook.deliveries).toHaveLength(2));
      const eventId = hook.deliveries[0]!.json.eventId;
      const logged = (kind: string) =>
        lines.mock.calls
          .map(([l]) => (typeof l === "string" && l.startsWith(`{"mcp":"${kind}"`) ? JSON.parse(l) : undefined))
          .filter((l) => l !== undefined);
      // The failed attempt is a line of its own; the one that landed is counted in its pass's line.
      await until(() => expect(logged("event_deliveries").filter((l) => l.delivered === 1)).not.toHaveLength(0));
      expect(logged("event_delivery").filter((l) => l.eventId === eventId)).toMatchObject([
        { event: "test_event", subscription: sub.body.result.id, attempt: 1, outcome: "retry", status: 500, reason: "http_5xx" },
      ]);
      expect(logged("event_deliveries")).toEqual(
        expect.arrayContaining([
          { mcp: "event_deliveries", event: "test_event", delivered: 0, retry: 1, abandoned: 0, refused: 0 },
          { mcp: "event_deliveries", event: "test_event", delivered: 1, retry: 0, abandoned: 0, refused: 0 },
        ]),
      );
      const delivered = points.mock.calls.map(([p]) => p).filter((p) => p?.blobs?.[1] === "events/deliver" && p.blobs[2] === "test_event");
      expect(delivered.map((p) => [p!.blobs![3], p!.blobs![5], p!.doubles![1]])).toEqual(
        expect.arrayContaining([
          ["retry", "http_5xx", 1],
          ["delivered", "200", 2],
        ]),
      );
      expect(delivered.every((p) => p!.indexes![0] === "test_event")).toBe(true);
    } finally {
      points.mockRestore();
      lines.mockRestore();
    }
  });

  it("gives up after a bounded number of attempts", async () => {
    const hook = receiver();
    await subscribe(hook.url, freshSecret(), "erin", { arguments: { topic: "down" } });
    hook.script = [500, 500, 500, 500, 500, 500, 500];
    await emitTest("down", "never lands");
    await until(() => expect(hook.deliveries).toHaveLength(1));
    for (let i = 2; i <= 5; i++) {
      await retryNow("test_event", "erin");
      await until(() => expect(hook.deliveries).toHaveLength(i));
    }
    // The pass retryNow runs has ended when it returns: a sixth attempt would have been made in it.
    await retryNow("test_event", "erin");
    expect(hook.deliveries).toHaveLength(5);
    const status = (await subscribe(hook.url, freshSecret(), "erin", { arguments: { topic: "down" } })).body.result.deliveryStatus;
    expect(status).toMatchObject({ lastError: "http_5xx" });
  });

  for (const gone of [410, 413]) {
    it(`never retries a ${gone}, and keeps the subscription`, async () => {
      const hook = receiver();
      await subscribe(hook.url, freshSecret(), "frank", { arguments: { topic: `gone${gone}` } });
      hook.script = [gone];
      await emitTest(`gone${gone}`, "refused");
      await until(() => expect(hook.deliveries).toHaveLength(1));
      // The pass retryNow runs has ended when it returns: a retry would have been sent in it.
      await retryNow("test_event", "frank");
      expect(hook.deliveries).toHaveLength(1);
      await emitTest(`gone${gone}`, "next one");
      await until(() => expect(hook.deliveries).toHaveLength(2));
      expect(hook.deliveries[1]!.json.data.text).toBe("next one");
    });
  }

  it("stops delivering once the TTL granted has passed", async () => {
    const hook = receiver();
    const { body } = await subscribe(hook.url, freshSecret(), "gina", { arguments: { topic: "ttl" }, ttlMs: 1 });
    // Clamped up to the server's minimum of a minute.
    expect(Date.parse(body.result.refreshBefore) - Date.now()).toBeGreaterThan(50_000);
    // A live subscription of the same principal and topic (subscribed first: a subscribe sweeps lapsed ones itself).
    const witness = receiver();
    await subscribe(witness.url, freshSecret(), "gina", { arguments: { topic: "ttl" } });
    await sqlIn("test_event", "gina", "UPDATE sub SET expires_at = ? WHERE id = ?", Date.now() - 1, body.result.id);
    // The witness hears the emit, and the pass that told it ends: the lapsed one was in reach of that pass.
    await emitTest("ttl", "too late");
    await witnessed(witness, "test_event", "gina");
    expect(hook.deliveries).toHaveLength(0);
    expect(await sqlIn("test_event", "gina", "SELECT id FROM sub WHERE id = ?", body.result.id)).toHaveLength(0);
  });

  it("signs with the old and the new secret for a grace window after a refresh replaced it", async () => {
    const hook = receiver();
    const [oldSecret, newSecret] = [freshSecret(), freshSecret()];
    await subscribe(hook.url, oldSecret, "hana", { arguments: { topic: "rotate" } });
    await subscribe(hook.url, newSecret, "hana", { arguments: { topic: "rotate" } });
    await emitTest("rotate", "both");
    await until(() => expect(hook.deliveries).toHaveLength(1));
    const d = hook.deliveries[0]!;
    expect(d.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(() => verifies(d, newSecret)).not.toThrow();
    expect(() => verifies(d, oldSecret)).not.toThrow();
    // After the grace window, only the new one.
    await sqlIn("test_event", "hana", "UPDATE sub SET prev_until = 1 WHERE principal = 'hana'");
    await emitTest("rotate", "new only");
    await until(() => expect(hook.deliveries).toHaveLength(2));
    expect(() => verifies(hook.deliveries[1]!, newSecret)).not.toThrow();
    expect(() => verifies(hook.deliveries[1]!, oldSecret)).toThrow();
  });

  it("ends a subscription whose access was revoked: a signed terminated envelope, and no payload", async () => {
    const { env } = await import("cloudflare:test");
    const hook = receiver();
    const secret = freshSecret();
    const sub = (
      await call(
        "events/subscribe",
        { name: "scoped_event", arguments: {}, delivery: { mode: "webhook", url: hook.url, secret }, cursor: null },
        "ivan",
      )
    ).body.result;
    expect(sub.id).toBeTruthy();
    const { emit } = await import("../../../src/mcp");
    await emit(env, "scoped_event", { text: "allowed" });
    await until(() => expect(hook.deliveries).toHaveLength(1));
    await (env as unknown as { OAUTH_KV: KVNamespace }).OAUTH_KV.put("revoked:ivan", "1");
    await emit(env, "scoped_event", { text: "secret stuff" });
    await until(() => expect(hook.controls.some((r) => r.json.type === "terminated")).toBe(true));
    const terminated = hook.controls.find((r) => r.json.type === "terminated")!;
    expect(terminated.json.error).toMatchObject({ code: -32012 });
    expect(() => verifies(terminated, secret)).not.toThrow();
    expect(hook.deliveries).toHaveLength(1);
    expect(await sqlIn("scoped_event", "ivan", "SELECT id FROM sub WHERE id = ?", sub.id)).toHaveLength(0);
    // Subscribing again is refused while access stays revoked.
    const again = await call(
      "events/subscribe",
      { name: "scoped_event", arguments: {}, delivery: { mode: "webhook", url: hook.url, secret }, cursor: null },
      "ivan",
    );
    expect(again.body.error!.code).toBe(-32012);
  });

  it("loses nothing when the object restarts between the emit and the delivery", async () => {
    const hook = receiver();
    await subscribe(hook.url, freshSecret(), "jack", { arguments: { topic: "restart" } });
    hook.script = [503];
    await emitTest("restart", "survives");
    await until(() => expect(hook.deliveries).toHaveLength(1));
    await evictDurableObject(typeObject("test_event"));
    await evictDurableObject(shardObject("test_event", "jack"));
    expect(await sqlIn("test_event", "jack", "SELECT attempts FROM sub WHERE principal = 'jack'")).toEqual([{ attempts: 1 }]);
    await retryNow("test_event", "jack");
    await until(() => expect(hook.deliveries).toHaveLength(2));
    expect(hook.deliveries[1]!.json.data.text).toBe("survives");
  });

  it("stops after events/unsubscribe; unsubscribing again is still {}", async () => {
    const hook = receiver();
    const secret = freshSecret();
    await subscribe(hook.url, secret, "kim", { arguments: { topic: "bye" } });
    const params = { name: "test_event", arguments: { topic: "bye" }, delivery: { url: hook.url } };
    const first = await call("events/unsubscribe", params, "kim");
    expect(first.body.result).toMatchObject({ resultType: "complete" });
    expect(
      (await call("events/unsubscribe", { ...params, delivery: { mode: "webhook", url: hook.url } }, "kim")).body.result,
    ).toMatchObject({ resultType: "complete" });
    expect((await call("events/unsubscribe", params)).body.error!.code).toBe(-32012);
    // A subscription of the same principal and topic at another URL stays, hears the emit, and the pass that told it ends.
    const witness = receiver();
    await subscribe(witness.url, freshSecret(), "kim", { arguments: { topic: "bye" } });
    await emitTest("bye", "unheard");
    await witnessed(witness, "test_event", "kim");
    expect(hook.deliveries).toHaveLength(0);
  });
});

describe("what a subscribe stores, and what ends one", () => {
  it("stores, keys and matches the arguments as parsed: an omitted argument with a default is that default, not a wildcard", async () => {
    const hook = receiver();
    // scoped_event's topic defaults to "general", and its allow refuses "hr" to anyone outside HR.
    const scoped = (args: Record<string, unknown>) =>
      call(
        "events/subscribe",
        { name: "scoped_event", arguments: args, delivery: { mode: "webhook", url: hook.url, secret: freshSecret() }, cursor: null },
        "outsider",
      );
    expect((await scoped({ topic: "hr" })).body.error!.code).toBe(-32012);
    const sub = await scoped({});
    expect(sub.body.result.id).toMatch(/^sub_/);
    // The same subscription whether the default is sent or left out.
    const explicit = await scoped({ topic: "general" });
    expect(explicit.body.result.id).toBe(sub.body.result.id);
    const { emit } = await import("../../../src/mcp");
    await emit(env, "scoped_event", { text: "hr only" }, { match: { topic: "hr" } });
    await emit(env, "scoped_event", { text: "for everyone" }, { match: { topic: "general" } });
    await until(() => expect(hook.deliveries).toHaveLength(1));
    expect(hook.deliveries.map((d) => d.json.data.text)).toEqual(["for everyone"]);
  });

  it("creates nothing when it refuses a subscribe: an invalid cursor stores no subscription and sends no handshake", async () => {
    const hook = receiver();
    const witness = receiver();
    for (const cursor of ["forged", 42, btoa("ev1:999999999")]) {
      const { body } = await call(
        "events/subscribe",
        {
          name: "test_event",
          arguments: { topic: "refused" },
          delivery: { mode: "webhook", url: hook.url, secret: freshSecret() },
          cursor,
        },
        "lena",
      );
      expect(body.error!.code, String(cursor)).toBe(-32602);
    }
    await subscribe(witness.url, freshSecret(), "lena", { arguments: { topic: "refused" } });
    await emitTest("refused", "only the witness hears this");
    await until(() => expect(witness.deliveries).toHaveLength(1));
    expect(hook.requests).toHaveLength(0);
    expect(await sqlIn("test_event", "lena", "SELECT url FROM sub WHERE principal = 'lena'")).toEqual([{ url: witness.url }]);
  });

  it("ends a removed type's webhook subscriptions with one signed terminated (NotFound, kind event), then drops them", async () => {
    const hook = receiver();
    const secret = freshSecret();
    // A shard of a type this deploy no longer serves, holding a subscription the earlier deploy stored.
    const ns = (env as unknown as { MCP_EVENTS: DurableObjectNamespace }).MCP_EVENTS;
    const gone = ns.get(ns.idFromName("retired_event#0"));
    await runInDurableObject(gone, async (_o, state) => {
      await state.storage.put("identity", { name: "retired_event", shard: 0 });
      state.storage.sql.exec(`CREATE TABLE sub (id TEXT PRIMARY KEY, principal TEXT NOT NULL, url TEXT NOT NULL, args TEXT NOT NULL,
        secret TEXT NOT NULL, prev_secret TEXT, prev_until INTEGER, scopes TEXT NOT NULL, expires_at INTEGER NOT NULL, cursor INTEGER NOT NULL,
        pinned INTEGER NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, last_delivery_at INTEGER, last_error TEXT, failed_since INTEGER)`);
      state.storage.sql.exec(
        "INSERT INTO sub VALUES ('sub_retired', 'mona', ?, '{}', ?, NULL, NULL, '[]', ?, 0, 0, 0, 0, NULL, NULL, NULL)",
        hook.url,
        secret,
        Date.now() + 3_600_000,
      );
      await state.storage.setAlarm(Date.now());
    });
    await runDurableObjectAlarm(gone);
    await until(() => expect(hook.controls).toHaveLength(1));
    const terminated = hook.controls[0]!;
    expect(terminated.json).toMatchObject({ type: "terminated", error: { code: -32011, data: { kind: "event" } } });
    expect(terminated.headers["x-mcp-subscription-id"]).toBe("sub_retired");
    expect(() => verifies(terminated, secret)).not.toThrow();
    // Dropped: the next look sends nothing more.
    await runInDurableObject(gone, (_o, state) => state.storage.setAlarm(Date.now()));
    await runDurableObjectAlarm(gone);
    expect(await runInDurableObject(gone, (_o, state) => state.storage.sql.exec("SELECT id FROM sub").toArray())).toHaveLength(0);
    expect(hook.controls).toHaveLength(1);
  });
});
