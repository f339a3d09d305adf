/**
 * subscriptions/listen (the 2026-07-28 subscriptions pattern): a long-lived SSE stream fed by the
 * notification hub. Acknowledgement first, every notification tagged with the
 * subscription id, only requested types, and survival across hub hibernation.
 */
import { afterEach, describe, expect, it } from "vitest";
import { evictHub, publish } from "../helpers/hub";
import { META, SseReader, type RequestId, type RpcMessage, expectRpcError, modernPost } from "../helpers/mcp";

const InvalidParams = -32602;

const open: SseReader[] = [];
afterEach(async () => {
  // Cancelling the body is how a client ends a listen; never leave one open.
  await Promise.all(open.splice(0).map((r) => r.cancel()));
});

/** Opens a listen stream and returns its reader with the acknowledgement already read. */
async function listen(id: RequestId, notifications: Record<string, unknown>) {
  const res = await modernPost("subscriptions/listen", { notifications }, { id });
  expect(res.status).toBe(200);
  expect(res.headers.get("X-Accel-Buffering")).toBe("no");
  const reader = new SseReader(res);
  open.push(reader);
  const ack = await reader.next(3000);
  return { reader, ack: ack! };
}

/** The next message on the stream that is not a (concurrent test's) foreign notification type. */
async function nextOf(reader: SseReader, method: string, timeoutMs = 3000): Promise<RpcMessage | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await reader.next(Math.max(1, deadline - Date.now()));
    if (!m || m.method === method) return m;
  }
}

describe("acknowledgement", () => {
  it("2026-07-28: the first event on a listen stream is notifications/subscriptions/acknowledged tagged with the request id", async () => {
    const { ack } = await listen("listen-ack", { toolsListChanged: true });
    expect(ack).toMatchObject({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged" });
    expect(ack.id).toBeUndefined();
    expect(ack.params._meta[META.subscriptionId]).toBe("listen-ack");
    expect(ack.params.notifications).toEqual({ toolsListChanged: true });
  });

  it("2026-07-28: an integer listen id is echoed as an integer subscriptionId", async () => {
    const { ack } = await listen(4242, { toolsListChanged: true });
    expect(ack.params._meta[META.subscriptionId]).toBe(4242);
  });

  it("2026-07-28: the acknowledgement echoes every honoured filter entry and drops the ones set to false", async () => {
    const { ack } = await listen("listen-filter", {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ["info://about"],
    });
    expect(ack.params.notifications).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["info://about"],
    });
  });

  it("2026-07-28: the listen answer is an SSE stream that stays open", async () => {
    const { reader } = await listen("listen-open", { toolsListChanged: true });
    expect(await reader.next(300)).toBeUndefined();
    expect(reader.ended).toBe(false);
  });
});

describe("delivery", () => {
  it("2026-07-28: a list change published after the ack arrives tagged with the subscriptionId", async () => {
    const { reader } = await listen("listen-tools", { toolsListChanged: true });
    expect(await publish({ method: "notifications/tools/list_changed" })).toBeGreaterThanOrEqual(1);
    const n = await nextOf(reader, "notifications/tools/list_changed");
    expect(n).toBeDefined();
    expect(n!.id).toBeUndefined();
    expect(n!.params._meta[META.subscriptionId]).toBe("listen-tools");
  });

  it("2026-07-28: a notification type that was not requested does not arrive", async () => {
    const { reader } = await listen("listen-only-tools", { toolsListChanged: true });
    await publish({ method: "notifications/prompts/list_changed" });
    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    await publish({ method: "notifications/tools/list_changed" });
    // The hub delivers in order on one socket: whatever precedes the tools change would have been the others.
    const first = await reader.next(3000);
    expect(first?.method).toBe("notifications/tools/list_changed");
  });

  it("2026-07-28: resources/updated arrives for a subscribed URI with its uri and subscriptionId", async () => {
    const { reader } = await listen("listen-res", { resourceSubscriptions: ["info://about"] });
    await publish({ method: "notifications/resources/updated", params: { uri: "info://other" } });
    await publish({ method: "notifications/resources/updated", params: { uri: "info://about" } });
    const n = await reader.next(3000);
    expect(n?.method).toBe("notifications/resources/updated");
    expect(n!.params.uri).toBe("info://about");
    expect(n!.params._meta[META.subscriptionId]).toBe("listen-res");
  });

  it("2026-07-28: two concurrent listen streams each get the notification tagged with their own id", async () => {
    const a = await listen("listen-a", { promptsListChanged: true });
    const b = await listen("listen-b", { promptsListChanged: true });
    await publish({ method: "notifications/prompts/list_changed" });
    const [na, nb] = await Promise.all([
      nextOf(a.reader, "notifications/prompts/list_changed"),
      nextOf(b.reader, "notifications/prompts/list_changed"),
    ]);
    expect(na!.params._meta[META.subscriptionId]).toBe("listen-a");
    expect(nb!.params._meta[META.subscriptionId]).toBe("listen-b");
  });

  it("2026-07-28: the publisher's params and _meta arrive beside the stream's own subscriptionId, which a publisher cannot set", async () => {
    const id = 'listen-"meta"-$&-\u2028';
    const { reader } = await listen(id, { resourceSubscriptions: ["info://about"] });
    await publish({
      method: "notifications/resources/updated",
      params: { uri: "info://about", extra: { nested: [1, {}] }, _meta: { "example.com/trace": "t-1", [META.subscriptionId]: "forged" } },
    });
    const n = await reader.next(3000);
    expect(n?.params).toEqual({
      uri: "info://about",
      extra: { nested: [1, {}] },
      _meta: { "example.com/trace": "t-1", [META.subscriptionId]: id },
    });
  });

  it("2026-07-28: a resources list change published to the hub arrives on a stream that asked for it", async () => {
    const { reader } = await listen("listen-notify", { resourcesListChanged: true });
    await publish({ method: "notifications/resources/list_changed" });
    const n = await nextOf(reader, "notifications/resources/list_changed");
    expect(n!.params._meta[META.subscriptionId]).toBe("listen-notify");
  });

  it("2026-07-28: request-scoped notifications (progress, log messages) never appear on a listen stream", async () => {
    const { reader } = await listen("listen-scoped", { toolsListChanged: true });
    const res = await modernPost(
      "tools/call",
      { name: "countdown", arguments: { from: 1 } },
      { meta: { progressToken: "x", [META.logLevel]: "debug" } },
    );
    await res.text();
    await publish({ method: "notifications/tools/list_changed" });
    const n = await reader.next(3000);
    expect(n?.method).toBe("notifications/tools/list_changed");
  });
});

describe("invalid filters", () => {
  it("2026-07-28: subscriptions/listen without params.notifications is rejected with 400 -32602", async () => {
    const res = await modernPost("subscriptions/listen", {}, { id: "bad-1" });
    await expectRpcError(res, 400, InvalidParams, "bad-1");
  });

  it("2026-07-28: a non-boolean filter flag is rejected with 400 -32602", async () => {
    const res = await modernPost("subscriptions/listen", { notifications: { toolsListChanged: "yes" } }, { id: "bad-2" });
    await expectRpcError(res, 400, InvalidParams, "bad-2");
  });

  it("2026-07-28: resourceSubscriptions that is not a string array is rejected with 400 -32602", async () => {
    const res = await modernPost("subscriptions/listen", { notifications: { resourceSubscriptions: "info://about" } }, { id: "bad-3" });
    await expectRpcError(res, 400, InvalidParams, "bad-3");
  });

  it("2026-07-28: subscriptions/listen goes through the same ladder (missing Mcp-Method → 400 -32020)", async () => {
    const res = await modernPost(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { id: "bad-4", headers: { "Mcp-Method": null } },
    );
    await expectRpcError(res, 400, -32020, "bad-4");
  });
});

describe("hub lifecycle", () => {
  it("2026-07-28: a notification still arrives after the hub is evicted with its WebSockets hibernated", async () => {
    const { reader } = await listen("listen-hibernate", { toolsListChanged: true });
    await evictHub("hibernate");
    expect(await publish({ method: "notifications/tools/list_changed" })).toBeGreaterThanOrEqual(1);
    const n = await nextOf(reader, "notifications/tools/list_changed");
    expect(n).toBeDefined();
    expect(n!.params._meta[META.subscriptionId]).toBe("listen-hibernate");
  });

  it("2026-07-28: when the hub closes the subscription the stream ends with the listen result carrying subscriptionId", async () => {
    const { reader } = await listen("listen-close", { toolsListChanged: true });
    await evictHub("close");
    const messages = await reader.all(3000);
    const last = messages.at(-1);
    expect(last?.id).toBe("listen-close");
    expect(last?.result).toEqual({
      resultType: "complete",
      _meta: expect.objectContaining({ [META.subscriptionId]: "listen-close" }),
    });
    expect(reader.ended).toBe(true);
  });
});
