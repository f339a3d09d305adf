/**
 * events/stream (push) through /mcp (test/engine/app/events-app.ts): the SSE stream opens with
 * `notifications/events/active`, replays from the client's cursor, then carries the occurrences whose
 * match fits its arguments, live, from the hub shard beside the listen streams; each notification
 * names the stream's request id; a bad request is a JSON-RPC error and no stream.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eventsWorker } from "../app/events-worker";
import { call } from "../helpers/events";
import { buildModernRequest } from "../wire";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** Opens events/stream and reads its SSE messages as they come. */
async function openStream(params: Record<string, unknown>, token = "alice", id = `stream-${crypto.randomUUID()}`) {
  const { message, headers } = buildModernRequest("events/stream", params, { id });
  const res = await eventsWorker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(message),
    }),
    env as never,
    createExecutionContext(),
  );
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const messages: any[] = [];
  /** The next message; heartbeats (every 300 ms in the test app) are skipped unless asked for. */
  const next = async (heartbeats = false): Promise<any> => {
    while (true) {
      const at = buffer.indexOf("\n\n");
      if (at >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (data) {
          const m = JSON.parse(data.slice(6));
          messages.push(m);
          if (!heartbeats && m.method === "notifications/events/heartbeat") continue;
          return m;
        }
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffer += value;
    }
  };
  return { res, id, next, close: () => reader.cancel() };
}

const emitTest = (topic: string, text: string, count = 1) =>
  call("tools/call", { name: "emit_test_event", arguments: { topic, text, count } }, "emitter");

describe("events/stream", () => {
  it("opens with active, then carries the matching occurrences live, each naming the stream", async () => {
    const stream = await openStream({ name: "test_event", arguments: { topic: "live" }, cursor: null });
    expect(stream.res.headers.get("Content-Type")).toContain("text/event-stream");
    const active = await stream.next();
    expect(active).toMatchObject({ method: "notifications/events/active", params: { truncated: false } });
    expect(typeof active.params.cursor).toBe("string");
    expect(active.params._meta[SUBSCRIPTION_ID]).toBe(stream.id);
    await emitTest("elsewhere", "not mine");
    await emitTest("live", "hello", 2);
    const first = await stream.next();
    const second = await stream.next();
    expect([first, second].map((m) => [m.method, m.params.data.topic, m.params.data.seq])).toEqual([
      ["notifications/events/event", "live", 1],
      ["notifications/events/event", "live", 2],
    ]);
    expect(first.params).toMatchObject({ name: "test_event", data: { text: "hello" } });
    expect(first.params.eventId).toBeTruthy();
    expect(typeof first.params.cursor).toBe("string");
    expect(first.params._meta[SUBSCRIPTION_ID]).toBe(stream.id);
    await stream.close();
  });

  it("replays from the client's cursor before going live", async () => {
    const start = (await call("events/poll", { name: "test_event", arguments: { topic: "again" }, cursor: null }, "alice")).body.result
      .cursor;
    await emitTest("again", "missed", 2);
    const stream = await openStream({ name: "test_event", arguments: { topic: "again" }, cursor: start });
    const active = await stream.next();
    expect(active.params).toMatchObject({ cursor: start, truncated: false });
    const replayed = [await stream.next(), await stream.next()];
    expect(replayed.map((m) => m.params.data.seq)).toEqual([1, 2]);
    await emitTest("again", "live");
    const live = await stream.next();
    expect(live.params.data.text).toBe("live");
    await stream.close();
  });

  it("sends heartbeats as data frames with the cursor, and ends with terminated once access is revoked", async () => {
    const stream = await openStream({ name: "scoped_event", arguments: {}, cursor: null }, "pia");
    expect((await stream.next()).method).toBe("notifications/events/active");
    const beat = await stream.next(true);
    expect(beat).toMatchObject({ method: "notifications/events/heartbeat", params: { cursor: null } });
    expect(beat.params._meta[SUBSCRIPTION_ID]).toBe(stream.id);
    const { emit } = await import("../../../src/mcp");
    await emit(env, "scoped_event", { text: "for pia" });
    expect((await stream.next()).params.data.text).toBe("for pia");
    await (env as unknown as { OAUTH_KV: KVNamespace }).OAUTH_KV.put("revoked:pia", "1");
    const end = await stream.next();
    expect(end).toMatchObject({ method: "notifications/events/terminated", params: { error: { code: -32012 } } });
    // Then the request's result, as every end of the stream sends it.
    expect(await stream.next()).toMatchObject({ id: stream.id, result: { resultType: "complete" } });
    expect(await stream.next()).toBeUndefined();
  });

  it("has its own bound (MAX_EVENT_STREAMS): a client's listen streams do not use it up, nor its event streams the listen streams'", async () => {
    const token = `bounds-${crypto.randomUUID()}`;
    const settings = { ...env, MAX_LISTEN_STREAMS: "2", MAX_EVENT_STREAMS: "2" } as never;
    const post = (method: string, params: Record<string, unknown>, id: string) => {
      const { message, headers } = buildModernRequest(method, params, { id });
      return eventsWorker.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...headers, Authorization: `Bearer ${token}` },
          body: JSON.stringify(message),
        }),
        settings,
        createExecutionContext(),
      );
    };
    const held: Response[] = [];
    const status = async (res: Response) => {
      if (res.status === 200) held.push(res);
      else await res.body?.cancel();
      return res.status;
    };
    const listen = (id: string) => post("subscriptions/listen", { notifications: { toolsListChanged: true } }, id).then(status);
    const stream = (id: string) => post("events/stream", { name: "test_event", arguments: { topic: id }, cursor: null }, id).then(status);
    expect([await listen("l-1"), await listen("l-2"), await listen("l-3")]).toEqual([200, 200, 429]);
    expect([await stream("e-1"), await stream("e-2")]).toEqual([200, 200]);
    const over = await post("events/stream", { name: "test_event", arguments: { topic: "e-3" }, cursor: null }, "e-3");
    // The extension's own error, in-band like all of them: ResourceExhausted, naming the bound.
    expect(over.status).toBe(200);
    const refused = (await over.json()) as any;
    expect(refused.error).toMatchObject({ code: -32013, data: { limit: "streams", max: 2, specCode: -32025 } });
    expect(refused.error.message).toMatch(/MAX_EVENT_STREAMS/);
    for (const res of held) await res.body?.cancel();
  });

  it("answers a hub it cannot reach with an in-band error to retry, never a 5xx", async () => {
    const down = {
      ...env,
      MCP_HUB: {
        idFromName: () => {
          throw new Error("hub down");
        },
      },
    } as never;
    const { message, headers } = buildModernRequest("events/stream", { name: "test_event", arguments: { topic: "down" }, cursor: null });
    const res = await eventsWorker.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...headers, Authorization: "Bearer alice" },
        body: JSON.stringify(message),
      }),
      down,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).error).toMatchObject({ code: -32603, data: { retryAfterMs: 1000 } });
  });

  it("streams what the arguments as parsed match: a default filled in is the filter, so an omitted argument is no wildcard", async () => {
    // scoped_event's topic defaults to "general"; its allow refuses "hr" to anyone outside HR.
    const stream = await openStream({ name: "scoped_event", arguments: {}, cursor: null }, "quinn");
    expect((await stream.next()).method).toBe("notifications/events/active");
    const { emit } = await import("../../../src/mcp");
    await emit(env, "scoped_event", { text: "hr only" }, { match: { topic: "hr" } });
    await emit(env, "scoped_event", { text: "for everyone" }, { match: { topic: "general" } });
    expect((await stream.next()).params.data.text).toBe("for everyone");
    await stream.close();
  });

  it("refuses a bad request with a JSON-RPC error and no stream", async () => {
    for (const params of [
      [{ name: "nope", arguments: {}, cursor: null }, -32011],
      [{ name: "plain_event", arguments: {}, cursor: null }, -32014],
      [{ name: "scoped_event", arguments: {}, cursor: null }, -32012, "alice.noscope"],
      [{ name: "test_event", arguments: {}, cursor: null }, -32602],
      [{ name: "test_event", arguments: { topic: "x" }, cursor: "forged" }, -32602],
      // Well-formed, but from the future: never this log's, so InvalidParams like a forged one.
      [{ name: "test_event", arguments: { topic: "x" }, cursor: btoa("ev1:999999999") }, -32602],
    ] as [Record<string, unknown>, number, string?][]) {
      const { message, headers } = buildModernRequest("events/stream", params[0]);
      const res = await eventsWorker.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...headers, Authorization: `Bearer ${params[2] ?? "alice"}` },
          body: JSON.stringify(message),
        }),
        env as never,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).error.code).toBe(params[1]);
    }
  });
});
