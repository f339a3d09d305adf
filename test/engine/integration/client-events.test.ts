/**
 * The client's MCP Events module (src/engine/client/events.ts) against the engine's events fixture
 * (test/engine/app/events-app.ts) through /mcp: list, subscribe, refresh, unsubscribe and poll; and
 * its webhook receiver as a Worker route would run it, answering the server's real handshake and
 * taking the server's real deliveries, refusing a tampered body, a stale timestamp and a wrong
 * secret, and agreeing with the `standardwebhooks` package in both directions.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpClient, type Fetch } from "../../../src/engine/client";
import {
  WebhookVerificationError,
  eventErrorName,
  followEvents,
  listAllEvents,
  listEvents,
  pollEvents,
  refreshEvents,
  streamEvents,
  subscribeEvents,
  unsubscribeEvents,
  verifyWebhook,
  webhookHandler,
  webhookSecret,
  type EventOccurrence,
} from "../../../src/engine/client/events";
import { createMcpWorker, defineApp, defineTool } from "../../../src/mcp";
import { eventsWorker } from "../app/events-worker";
import { scripted } from "../helpers/client";
import { receiver, stubReceivers, typeQuiet, until, witnessed, type Received } from "../helpers/events";

beforeAll(stubReceivers);
afterAll(async () => {
  // Passes an emit woke end before the file does (the teardown would cut them off).
  await typeQuiet("test_event");
  vi.restoreAllMocks();
});

const eventsFetch: Fetch = async (input, init) => {
  const ctx = createExecutionContext();
  const res = await eventsWorker.fetch(new Request(input instanceof Request ? input : String(input), init), env as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
};

const connect = (token: string) =>
  McpClient.connect("http://localhost/mcp", { protocol: "2026-07-28", fetch: eventsFetch, headers: { Authorization: `Bearer ${token}` } });

/**
 * A callback URL whose requests the server sends to `handle` (the client's receiver, as a Worker
 * route would run it); every request's exact bytes and headers are kept, to replay them altered.
 */
function callback(handle: (request: Request) => Promise<Response>) {
  const hook = receiver();
  const seen: Received[] = [];
  hook.answer = async (request: Request) => {
    const body = await request.clone().text();
    seen.push({ url: request.url, headers: Object.fromEntries(request.headers), body, json: JSON.parse(body) });
    return handle(request);
  };
  return { url: hook.url, seen };
}

const replay = (r: Received, changes: { body?: string; headers?: Record<string, string> } = {}) =>
  new Request(r.url, { method: "POST", headers: { ...r.headers, ...changes.headers }, body: changes.body ?? r.body });

describe("client: events/list, subscribe, refresh, unsubscribe", () => {
  it("lists the event types a page at a time, or all of them", async () => {
    const client = await connect("alice");
    expect(client.capabilities.extensions?.["io.modelcontextprotocol/events"]).toEqual({});
    const first = await listEvents(client);
    expect(first.events.map((e) => e.name)).toEqual(["test_event", "scoped_event"]);
    expect(first.events[0]).toMatchObject({ delivery: expect.arrayContaining(["poll", "webhook"]), inputSchema: { required: ["topic"] } });
    expect((await listEvents(client, first.nextCursor)).events.map((e) => e.name)).toEqual(["plain_event"]);
    expect((await listAllEvents(client)).map((e) => e.name)).toEqual(["test_event", "scoped_event", "plain_event"]);
  });

  it("subscribes a webhook whose handler answers the handshake, takes each event once, refreshes and unsubscribes", async () => {
    const client = await connect("olga");
    const secret = webhookSecret();
    const taken: EventOccurrence[] = [];
    const { url, seen } = callback(webhookHandler({ secret, onEvent: (event) => void taken.push(event) }));
    const sub = { name: "test_event", arguments: { topic: "client" }, url, secret };

    const result = await subscribeEvents(client, sub);
    expect(result).toMatchObject({ truncated: false });
    expect(result.id).toMatch(/^sub_/);
    expect(seen[0]!.json.type).toBe("verification");

    await client.callTool("emit_test_event", { topic: "client", text: "hello", count: 2 });
    await until(() => expect(taken.map((e) => e.data.seq)).toEqual([1, 2]));
    expect(taken[0]).toMatchObject({ name: "test_event", data: { topic: "client", text: "hello" } });

    // A retry of a delivery already taken is acknowledged, and not handed over again.
    const handle = webhookHandler({ secret, onEvent: (event) => void taken.push(event) });
    const delivery = seen.find((r) => r.json.eventId)!;
    expect((await handle(replay(delivery))).status).toBe(204);
    expect((await handle(replay(delivery))).status).toBe(204);
    expect(taken).toHaveLength(3);
    // X-MCP-Subscription-Id is not signed: the same delivery under other values of it is still taken once.
    for (const other of ["sub_forged", "sub_other", ""])
      expect((await handle(replay(delivery, { headers: { "x-mcp-subscription-id": other } }))).status).toBe(204);
    expect(taken).toHaveLength(3);

    const refreshed = await refreshEvents(client, sub, taken[1]!.cursor ?? null);
    expect(refreshed.id).toBe(result.id);
    expect(refreshed.deliveryStatus).toMatchObject({ active: true });

    await unsubscribeEvents(client, sub);
    // A subscription of the same principal and topic at another URL hears the emit, and the pass that told it ends.
    const witness = receiver();
    await subscribeEvents(client, { ...sub, url: witness.url, secret: webhookSecret() });
    await client.callTool("emit_test_event", { topic: "client", text: "unheard" });
    await witnessed(witness, "test_event", "olga");
    expect(seen.filter((r) => r.json.data?.text === "unheard")).toHaveLength(0);
  });

  it("throws the server's refusals with codes eventErrorName reads in either numbering", async () => {
    const client = await connect("alice");
    const refused = await subscribeEvents(client, { name: "nope", url: "https://x.hooks.example/cb", secret: webhookSecret() }).catch(
      (e: unknown) => e,
    );
    expect(eventErrorName(refused)).toBe("NotFound");
    const wrongEcho = callback(async () => Response.json({ challenge: "not it" }));
    const failed = await subscribeEvents(client, {
      name: "test_event",
      arguments: { topic: "x" },
      url: wrongEcho.url,
      secret: webhookSecret(),
    }).catch((e: unknown) => e);
    expect(eventErrorName(failed)).toBe("CallbackEndpointError");
    const { McpClientError } = await import("../../../src/engine/client");
    expect(eventErrorName(new McpClientError("spec numbering", -32024))).toBe("Forbidden");
    expect(eventErrorName(new McpClientError("not an events error", -32602))).toBeUndefined();
  });
});

describe("client: events/poll", () => {
  it("starts from now, then returns the events since its cursor, and follows hasMore without waiting", async () => {
    const client = await connect("paula");
    const start = await pollEvents(client, { name: "test_event", arguments: { topic: "cpoll" } });
    expect(start.events).toEqual([]);
    await client.callTool("emit_test_event", { topic: "cpoll", text: "p", count: 3 });
    const controller = new AbortController();
    const batches: number[][] = [];
    for await (const result of followEvents(
      client,
      { name: "test_event", arguments: { topic: "cpoll" }, cursor: start.cursor, maxEvents: 2 },
      { signal: controller.signal },
    )) {
      batches.push(result.events.map((e) => e.data.seq as number));
      if (!result.hasMore) controller.abort();
    }
    expect(batches).toEqual([[1, 2], [3]]);
  });
});

describe("client: events/stream", () => {
  const SUB = "io.modelcontextprotocol/subscriptionId";
  /** A server played by the test: events/stream answers SSE frames the test pushes, or a refusal. */
  function streamingServer() {
    const sent: Record<string, unknown>[] = [];
    let push: (message: object) => void = () => {};
    let end: () => void = () => {};
    let signal: AbortSignal | undefined;
    const answer = scripted((m, request) => {
      if (m.method === "server/discover")
        return {
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { extensions: { "io.modelcontextprotocol/events": {} } },
        };
      sent.push(m.params!);
      if (m.params!.name === "nope")
        return Response.json({ jsonrpc: "2.0", id: m.id, error: { code: -32011, message: "No event type", data: { kind: "event" } } });
      signal = request.signal;
      const id = m.id;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          push = (message) => c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify({ jsonrpc: "2.0", ...message })}\n\n`));
          end = () => c.close();
        },
      });
      queueMicrotask(() =>
        push({ method: "notifications/events/active", params: { cursor: "c0", truncated: true, _meta: { [SUB]: id } } }),
      );
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
    const fetch: Fetch = (input, init) => answer(input, init);
    return { fetch, sent, push: (m: object) => push(m), end: () => end(), aborted: () => signal?.aborted };
  }

  it("resolves once active, then yields events, heartbeats and errors, keeping the cursor, until terminated", async () => {
    const server = streamingServer();
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: "2026-07-28", fetch: server.fetch });
    const stream = await streamEvents(client, { name: "test_event", arguments: { topic: "s" }, cursor: "c-before" });
    expect(server.sent[0]).toMatchObject({ name: "test_event", arguments: { topic: "s" }, cursor: "c-before" });
    expect(stream).toMatchObject({ cursor: "c0", truncated: true });
    const meta = { _meta: { [SUB]: 1 } };
    server.push({
      method: "notifications/events/event",
      params: { eventId: "e1", name: "test_event", timestamp: "2026-12-05T00:00:00Z", data: { seq: 1 }, cursor: "c1", ...meta },
    });
    server.push({ method: "notifications/events/heartbeat", params: { cursor: "c1", ...meta } });
    server.push({ method: "notifications/events/error", params: { error: { code: -32603, message: "blip" }, ...meta } });
    server.push({ method: "notifications/events/terminated", params: { error: { code: -32012, message: "revoked" }, ...meta } });
    const seen: string[] = [];
    for await (const notice of stream) {
      seen.push(notice.type);
      if (notice.type === "event") {
        expect(notice.event).toEqual({
          eventId: "e1",
          name: "test_event",
          timestamp: "2026-12-05T00:00:00Z",
          data: { seq: 1 },
          cursor: "c1",
        });
        expect(stream.cursor).toBe("c1");
      }
    }
    expect(seen).toEqual(["event", "heartbeat", "error", "terminated"]);
    // Ending is ending the request.
    expect(server.aborted()).toBe(true);
  });

  it("is cancelled by close(), and a refusal throws before any stream", async () => {
    const server = streamingServer();
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: "2026-07-28", fetch: server.fetch });
    const stream = await streamEvents(client, { name: "test_event", arguments: { topic: "s" } });
    expect(server.sent[0]!.cursor).toBeNull();
    stream.close();
    expect(server.aborted()).toBe(true);
    const refused = await streamEvents(client, { name: "nope" }).catch((e: unknown) => e);
    expect(eventErrorName(refused)).toBe("NotFound");
  });
});

describe("client: the webhook receiver", () => {
  /** A real delivery from the server, and its secret. */
  async function serverDelivery(topic: string): Promise<{ delivery: Received; secret: string }> {
    const client = await connect("rita");
    const secret = webhookSecret();
    const { url, seen } = callback(webhookHandler({ secret, onEvent: () => {} }));
    await subscribeEvents(client, { name: "test_event", arguments: { topic }, url, secret });
    await client.callTool("emit_test_event", { topic, text: "signed by the server" });
    await until(() => expect(seen.some((r) => r.json.eventId)).toBe(true));
    return { delivery: seen.find((r) => r.json.eventId)!, secret };
  }

  it("accepts the server's delivery and refuses it tampered, under another secret, or stale", async () => {
    const { delivery, secret } = await serverDelivery("recv");
    const ok = await verifyWebhook(replay(delivery), { secret });
    expect(ok).toMatchObject({ type: "event", event: { data: { text: "signed by the server" } }, webhookId: delivery.json.eventId });
    expect(ok.subscriptionId).toMatch(/^sub_/);

    const refusals: [Request, string, string][] = [
      [replay(delivery, { body: delivery.body.replace("signed by the server", "signed by someone else") }), secret, "bad_signature"],
      [replay(delivery), webhookSecret(), "bad_signature"],
      [replay(delivery, { headers: { "webhook-timestamp": String(Math.floor(Date.now() / 1000) - 600) } }), secret, "stale"],
      [replay(delivery, { headers: { "webhook-signature": "" } }), secret, "missing_headers"],
    ];
    for (const [request, key, reason] of refusals) {
      const err = await verifyWebhook(request, { secret: key }).catch((e: unknown) => e);
      expect(err, reason).toBeInstanceOf(WebhookVerificationError);
      expect((err as WebhookVerificationError).reason).toBe(reason);
    }
    // As a route: a refusal is a 4xx, and nothing is handed over.
    const onEvent = vi.fn();
    const res = await webhookHandler({ secret: webhookSecret(), onEvent })(replay(delivery));
    expect(res.status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it("answers the verification handshake with its challenge, and only when it is signed", async () => {
    const secret = webhookSecret();
    const body = JSON.stringify({ type: "verification", challenge: "nonce-123" });
    const id = "msg_verification_abc";
    // One instant for the signature and the header: read twice, the clock could cross a second between.
    const at = new Date();
    const signature = new Webhook(secret).sign(id, at, body);
    const headers = {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    };
    const handle = webhookHandler({ secret, onEvent: () => {} });
    const res = await handle(new Request("https://me.example/cb", { method: "POST", headers, body }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "nonce-123" });
    const unsigned = await webhookHandler({ secret: webhookSecret(), onEvent: () => {} })(
      new Request("https://me.example/cb", { method: "POST", headers, body }),
    );
    expect(unsigned.status).toBe(401);
    // The handshake comes before the subscription's id is known: the secret is found by the URL.
    const secrets: Record<string, string> = { "/hooks/a": webhookSecret(), "/hooks/b": secret };
    const byPath = webhookHandler({ secret: (request) => secrets[new URL(request.url).pathname], onEvent: () => {} });
    expect((await byPath(new Request("https://me.example/hooks/b", { method: "POST", headers, body }))).status).toBe(200);
    expect((await byPath(new Request("https://me.example/hooks/a", { method: "POST", headers, body }))).status).toBe(401);
    expect((await byPath(new Request("https://me.example/hooks/c", { method: "POST", headers, body }))).status).toBe(401);
  });

  it("remembers a bounded number of deliveries by default", async () => {
    const { MemoryDeliveryLog } = await import("../../../src/engine/client/events");
    const log = new MemoryDeliveryLog(3);
    for (const key of ["a", "b", "c", "d"]) log.add(key);
    expect(["a", "b", "c", "d"].map((k) => log.has(k))).toEqual([false, true, true, true]);
  });

  it("agrees with the standardwebhooks package both ways", async () => {
    const { delivery, secret } = await serverDelivery("cross");
    // What the package signs, this verifies; what this accepts from the server, the package accepts.
    const body = JSON.stringify({
      eventId: "evt_1",
      name: "test_event",
      timestamp: new Date().toISOString(),
      data: { topic: "cross", text: "theirs", seq: 1 },
    });
    const now = new Date();
    const theirs = {
      "webhook-id": "evt_1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("evt_1", now, body),
    };
    const request = (headers: Record<string, string>, text: string) =>
      new Request("https://me.example/cb", { method: "POST", headers, body: text });
    expect(await verifyWebhook(request(theirs, body), { secret })).toMatchObject({ type: "event", event: { data: { text: "theirs" } } });
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
    await expect(verifyWebhook(replay(delivery), { secret })).resolves.toMatchObject({ type: "event" });

    // And they refuse the same things: a stale signature of theirs, a tampered body, another secret.
    const old = new Date(Date.now() - 10 * 60_000);
    const stale = {
      ...theirs,
      "webhook-timestamp": String(Math.floor(old.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("evt_1", old, body),
    };
    const other = webhookSecret();
    const cases: [Record<string, string>, string, string][] = [
      [stale, body, secret],
      [theirs, body.replace("theirs", "forged"), secret],
      [theirs, body, other],
      [delivery.headers, delivery.body, other],
    ];
    for (const [headers, text, key] of cases) {
      expect(() => new Webhook(key).verify(text, headers)).toThrow();
      await expect(verifyWebhook(request(headers, text), { secret: key })).rejects.toBeInstanceOf(WebhookVerificationError);
    }
    // Several signatures (a rotation): one that matches is enough, for both.
    const both = { ...theirs, "webhook-signature": `${new Webhook(other).sign("evt_1", now, body)} ${theirs["webhook-signature"]}` };
    expect(() => new Webhook(secret).verify(body, both)).not.toThrow();
    await expect(verifyWebhook(request(both, body), { secret })).resolves.toMatchObject({ type: "event" });
  });

  it("refuses a body larger than the bound before reading it all", async () => {
    const secret = webhookSecret();
    const body = JSON.stringify({ eventId: "e", name: "n", timestamp: "", data: { pad: "x".repeat(300_000) } });
    const now = new Date();
    const headers = {
      "webhook-id": "e",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("e", now, body),
    };
    const res = await webhookHandler({ secret, onEvent: () => {} })(
      new Request("https://me.example/cb", { method: "POST", headers, body }),
    );
    expect(res.status).toBe(413);
  });
});

describe("client: a server without the Events extension", () => {
  it("is sent no events/* request: each helper refuses locally, naming the server and the extension", async () => {
    const plain = createMcpWorker(
      defineApp({ info: { name: "no-events", version: "1.0.0" }, tools: [defineTool({ name: "noop", handler: () => "ok" })] }),
    );
    const sent: string[] = [];
    const fetch: Fetch = async (input, init) => {
      const request = new Request(input instanceof Request ? input : String(input), init);
      if (request.method === "POST") sent.push(((await request.clone().json()) as { method: string }).method);
      const ctx = createExecutionContext();
      const res = await plain.fetch(request, env as never, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const client = await McpClient.connect("http://localhost/mcp", { protocol: "2026-07-28", fetch });
    const refusal =
      /events\/\w+ was not sent: the server at http:\/\/localhost\/mcp does not advertise the Events extension \(io\.modelcontextprotocol\/events\)/;
    await expect(listEvents(client)).rejects.toThrow(refusal);
    await expect(pollEvents(client, { name: "anything" })).rejects.toThrow(refusal);
    await expect(subscribeEvents(client, { name: "anything", url: "https://me.example/cb", secret: webhookSecret() })).rejects.toThrow(
      refusal,
    );
    await expect(unsubscribeEvents(client, { name: "anything", url: "https://me.example/cb" })).rejects.toThrow(refusal);
    await expect(streamEvents(client, { name: "anything" })).rejects.toThrow(refusal);
    expect(sent.filter((m) => m.startsWith("events/"))).toEqual([]);
  });
});
