/**
 * The client's side of MCP Events: the engine's McpClient lists, subscribes, polls and unsubscribes
 * on the events test app, and `receiveEvent`, as a Worker route would use it, answers the handshake,
 * takes the server's signed deliveries and refuses a forged or replayed one.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpClient, listEvents, pollEvents, receiveEvent, subscribeEvent, unsubscribeEvent, type Received } from "../../../src/engine/client";
import { eventsWorker } from "../app/events-worker";
import { call, freshSecret, until } from "../helpers/events";

const HOOK_HOST = "client-receiver.hooks.example";
const secret = freshSecret();
const received: Received[] = [];

beforeAll(() => {
  const realFetch = globalThis.fetch;
  // The receiving Worker's route: everything goes through receiveEvent, and an event is acknowledged with 204.
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).host !== HOOK_HOST) return realFetch(input, init);
    const r = await receiveEvent(request, secret);
    received.push(r);
    return r.kind === "answer" ? r.response : new Response(null, { status: 204 });
  });
});
afterAll(() => vi.restoreAllMocks());

const connect = () =>
  McpClient.connect("http://localhost/mcp", {
    protocol: "2026-07-28",
    headers: { Authorization: "Bearer olga" },
    fetch: (input, init) => eventsWorker.fetch(new Request(input, init), env as never, createExecutionContext()),
  });

describe("the client's side of events", () => {
  it("lists, subscribes (the handshake answered by receiveEvent), receives verified events, polls and unsubscribes", async () => {
    const client = await connect();
    const page = await listEvents(client);
    expect(page.events[0]!.name).toBe("test_event");
    const url = `https://${HOOK_HOST}/events`;
    const sub = await subscribeEvent(client, { name: "test_event", arguments: { topic: "client" }, url, secret });
    expect(sub.id).toMatch(/^sub_/);
    expect(received[0]!.kind).toBe("answer");
    await call("tools/call", { name: "emit_test_event", arguments: { topic: "client", text: "to the client" } }, "emitter");
    await until(() => expect(received.some((r) => r.kind === "event")).toBe(true));
    const event = received.find((r) => r.kind === "event") as Extract<Received, { kind: "event" }>;
    expect(event).toMatchObject({ subscriptionId: sub.id, event: { name: "test_event", data: { text: "to the client" } } });
    expect(event.webhookId).toBe(event.event.eventId);
    const polled = await pollEvents(client, { name: "test_event", arguments: { topic: "client" }, cursor: null });
    expect(typeof polled.cursor).toBe("string");
    await unsubscribeEvent(client, { name: "test_event", arguments: { topic: "client" }, url });
    await client.close();
  });

  it("refuses a forged signature, another secret and a stale timestamp", async () => {
    const body = JSON.stringify({ eventId: "e1", name: "test_event", timestamp: new Date().toISOString(), data: {} });
    const now = Math.floor(Date.now() / 1000);
    const headers = (ts: number, sig: string) => ({ "webhook-id": "e1", "webhook-timestamp": String(ts), "webhook-signature": sig, "X-MCP-Subscription-Id": "sub_x" });
    const sign = async (key: string, ts: number) => {
      const k = await crypto.subtle.importKey("raw", Uint8Array.from(atob(key.slice(6)), (c) => c.charCodeAt(0)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(`e1.${ts}.${body}`)));
      return `v1,${btoa(String.fromCharCode(...mac))}`;
    };
    const post = (h: Record<string, string>) => receiveEvent(new Request("https://x/", { method: "POST", headers: h, body }), secret);
    expect((await post(headers(now, await sign(secret, now)))).kind).toBe("event");
    for (const h of [headers(now, "v1,AAAA"), headers(now, await sign(freshSecret(), now)), headers(now - 600, await sign(secret, now - 600))]) {
      const r = await post(h);
      expect(r.kind).toBe("answer");
      expect((r as Extract<Received, { kind: "answer" }>).response.status).toBeGreaterThanOrEqual(400);
    }
  });
});
