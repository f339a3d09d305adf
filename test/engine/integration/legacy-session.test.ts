/**
 * 2025-11-25 sessions over Streamable HTTP (the 2025 lifecycle and Streamable HTTP transport): the
 * initialize handshake and version negotiation, the Mcp-Session-Id, the
 * status codes of session traffic, DELETE, and the 2025 wire shapes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { expectRpcError, type RpcMessage } from "../helpers/mcp";
import { MAX_SEALED_ID_LENGTH } from "../../../src/engine/http/session-id";
import {
  LEGACY_VERSION,
  call,
  cancelAllReaders,
  deleteSession,
  getStream,
  notify,
  openSession,
  postInitialize,
  postMessage,
  request,
  respond,
  result,
  sse,
} from "../helpers/legacy";

const InvalidRequest = -32600;
const InvalidParams = -32602;
const ResourceNotFound = -32002;

/** A well-formed session id (43 base64url chars) that no initialize ever produced. */
const NEVER_ISSUED = "A".repeat(43);

afterEach(cancelAllReaders);

describe("initialize", () => {
  it("2025-11-25: initialize with 2025-11-25 answers 2025-11-25 with capabilities, serverInfo and instructions", async () => {
    const res = await postInitialize({ protocolVersion: "2025-11-25" }, { id: "init-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
    const body = (await res.json()) as RpcMessage;
    expect(body.id).toBe("init-1");
    expect(body.result.protocolVersion).toBe("2025-11-25");
    expect(body.result.serverInfo).toMatchObject({ name: "engine-test-app", version: "0.1.0" });
    expect(body.result.capabilities).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {}, logging: {} });
    expect(typeof body.result.instructions).toBe("string");
  });

  it.each(["2025-06-18", "2025-03-26"])("2025-11-25: initialize with the older revision %s is echoed back", async (version) => {
    const s = await openSession({ protocolVersion: version });
    expect(s.protocolVersion).toBe(version);
  });

  it.each(["2024-01-01", "2099-12-31", "2026-07-28"])(
    "2025-11-25: initialize with %s (unknown, or the handshake-less 2026-07-28) is offered 2025-11-25",
    async (version) => {
      const res = await postInitialize({ protocolVersion: version });
      expect(res.status).toBe(200);
      const body = (await res.json()) as RpcMessage;
      expect(body.result.protocolVersion).toBe(LEGACY_VERSION);
    },
  );

  it("2025-11-25: the initialize answer carries an Mcp-Session-Id of visible ASCII characters, new for every session", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await postInitialize();
      const id = res.headers.get("Mcp-Session-Id");
      await res.body?.cancel();
      expect(id!.length).toBeLessThanOrEqual(MAX_SEALED_ID_LENGTH);
      expect(id).toMatch(/^[\x21-\x7E]+$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(3);
  });

  it("2025-11-25: a sealed id reveals nothing the client sent (clientInfo, capabilities) nor its address, in any part", async () => {
    const marker = "zq-distinctive-marker";
    const res = await postInitialize(
      { capabilities: { experimental: { [marker]: {} } }, clientInfo: { name: `${marker}-client`, version: "9.8.7" } },
      { headers: { "CF-Connecting-IP": "203.0.113.231" } },
    );
    const id = res.headers.get("Mcp-Session-Id")!;
    await res.body?.cancel();
    const parts = id.split(".");
    expect(parts.length).toBeGreaterThan(1);
    const readable = parts
      .map((part) =>
        new TextDecoder().decode(
          Uint8Array.from(
            atob(
              part
                .replace(/-/g, "+")
                .replace(/_/g, "/")
                .padEnd(Math.ceil(part.length / 4) * 4, "="),
            ),
            (c) => c.charCodeAt(0),
          ),
        ),
      )
      .join("\n");
    for (const secret of [marker, "9.8.7", "203.0.113.231", "experimental"]) expect(readable).not.toContain(secret);
    // The session still knows what it negotiated.
    expect(await result(id, "ping")).toEqual({});
  });

  it("2025-11-25: only the initialize answer carries Mcp-Session-Id, not later answers in the session", async () => {
    const s = await openSession();
    const res = await request(s.id, "ping");
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    await res.body?.cancel();
  });

  it("2025-11-25: initialize without clientInfo is rejected with -32602 and no session", async () => {
    const res = await postInitialize({ clientInfo: undefined });
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    await expectRpcError(res, 400, InvalidParams);
  });

  it("2025-11-25: notifications/initialized is accepted with 202 and an empty body", async () => {
    const s = await openSession({ initialized: false });
    const res = await notify(s.id, "notifications/initialized");
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("2025-11-25: a second initialize on an existing session is 400 with -32600", async () => {
    const s = await openSession();
    const res = await postMessage(s.id, {
      jsonrpc: "2.0",
      id: 99,
      method: "initialize",
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    await expectRpcError(res, 400, InvalidRequest, 99);
  });
});

describe("session header and status codes", () => {
  it("2025-11-25: ping in a session answers {}", async () => {
    const s = await openSession();
    const body = await call(s.id, "ping", {}, { id: "p-1" });
    expect(body).toEqual({ jsonrpc: "2.0", id: "p-1", result: {} });
  });

  it("2025-11-25: a request without Mcp-Session-Id is 400", async () => {
    const res = await request(undefined, "ping", {}, { id: 5 });
    await expectRpcError(res, 400, InvalidRequest);
  });

  it("2025-11-25: a GET without Mcp-Session-Id is 400", async () => {
    const res = await getStream(undefined);
    await expectRpcError(res, 400, InvalidRequest);
  });

  it("2025-11-25: a well-formed but never issued session id is 404, answering the request's id", async () => {
    const res = await request(NEVER_ISSUED, "ping", {}, { id: 404 });
    await expectRpcError(res, 404, InvalidRequest, 404);
  });

  it("2025-11-25: the name part of a sealed id opens nothing, even once the session holds state: only the whole sealed id does", async () => {
    const s = await openSession();
    expect(await result(s.id, "logging/setLevel", { level: "info" })).toEqual({});
    const name = s.id.split(".", 1)[0]!;
    expect(name).toHaveLength(43);
    await expectRpcError(await request(name, "ping", {}, { id: "by-name" }), 404, InvalidRequest, "by-name");
    const get = await getStream(name);
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const del = await deleteSession(name);
    expect(del.status).toBe(404);
    await del.body?.cancel();
    // The session itself goes on.
    expect(await result(s.id, "ping")).toEqual({});
  });

  it("2025-11-25: a malformed session id is 404", async () => {
    const res = await request("not-a-session", "ping");
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  it("2025-11-25: MCP-Protocol-Version 2026-07-28 (a newer revision, as hosted clients send) is served at the negotiated one", async () => {
    // STRICT_HEADERS=on refuses it: test/engine/integration/hosted-quirks.test.ts.
    const s = await openSession();
    expect(await result(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": "2026-07-28" } })).toEqual({});
    const get = await getStream(s.id, undefined, { "MCP-Protocol-Version": "2026-07-28" });
    expect(get.status).toBe(200);
    await get.body?.cancel();
  });

  it.each(["2024-01-01", "garbage", "2025-06-18"])(
    "2025-11-25: MCP-Protocol-Version %s on session traffic is 400, answering the request's id",
    async (version) => {
      const s = await openSession();
      const res = await request(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": version }, id: "v-1" });
      await expectRpcError(res, 400, InvalidRequest, "v-1");
      const get = await getStream(s.id, undefined, { "MCP-Protocol-Version": version });
      expect(get.status).toBe(400);
      await get.body?.cancel();
    },
  );

  it("2025-11-25: DELETE with an unsupported MCP-Protocol-Version is 400 and leaves the session alive", async () => {
    const s = await openSession();
    const res = await deleteSession(s.id, { "MCP-Protocol-Version": "1999-01-01" });
    await expectRpcError(res, 400, InvalidRequest);
    expect(await result(s.id, "ping")).toEqual({});
  });

  it("2025-11-25: a GET whose Accept lacks text/event-stream is 406", async () => {
    const s = await openSession();
    const res = await getStream(s.id, undefined, { Accept: "application/json" });
    expect(res.status).toBe(406);
    await res.body?.cancel();
  });

  it("2025-11-25: session traffic without MCP-Protocol-Version uses the negotiated revision", async () => {
    const s = await openSession({ protocolVersion: "2025-06-18" });
    const body = await call(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": null } });
    expect(body.result).toEqual({});
  });

  it("2025-11-25: a session of another protocol revision accepts its own version header", async () => {
    const s = await openSession({ protocolVersion: "2025-03-26" });
    const body = await call(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": "2025-03-26" } });
    expect(body.result).toEqual({});
  });
});

describe("DELETE", () => {
  it("2025-11-25: DELETE ends the session with 200; afterwards POST, GET and DELETE with its id are 404", async () => {
    const s = await openSession();
    expect((await result(s.id, "ping")) ?? null).toEqual({});
    const del = await deleteSession(s.id);
    expect(del.status).toBe(200);
    await del.body?.cancel();

    const post = await request(s.id, "ping", {}, { id: "after-delete" });
    await expectRpcError(post, 404, InvalidRequest, "after-delete");
    const get = await getStream(s.id);
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const again = await deleteSession(s.id);
    expect(again.status).toBe(404);
    await again.body?.cancel();
  });

  it("2025-11-25: DELETE ends the session's open GET stream", async () => {
    const s = await openSession();
    const reader = sse(await getStream(s.id));
    expect((await reader.next())?.data).toBe("");
    const del = await deleteSession(s.id);
    expect(del.status).toBe(200);
    await reader.rest(3000);
    expect(reader.ended).toBe(true);
  });

  it("2025-11-25: DELETE of a never issued session is 404", async () => {
    const res = await deleteSession(NEVER_ISSUED);
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

describe("session-level methods", () => {
  it("2025-11-25: logging/setLevel with a valid level answers {}", async () => {
    const s = await openSession();
    for (const level of ["debug", "warning", "emergency"]) {
      expect(await result(s.id, "logging/setLevel", { level })).toEqual({});
    }
  });

  it("2025-11-25: logging/setLevel with an unknown level is -32602", async () => {
    const s = await openSession();
    const body = await call(s.id, "logging/setLevel", { level: "loud" }, { id: 31 });
    expect(body.id).toBe(31);
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2025-11-25: resources/subscribe and resources/unsubscribe answer {}", async () => {
    const s = await openSession();
    expect(await result(s.id, "resources/subscribe", { uri: "info://about" })).toEqual({});
    expect(await result(s.id, "resources/subscribe", { uri: "units://kelvin" })).toEqual({});
    expect(await result(s.id, "resources/unsubscribe", { uri: "info://about" })).toEqual({});
  });

  it("2025-11-25: resources/subscribe to an unknown uri is -32002", async () => {
    const s = await openSession();
    const body = await call(s.id, "resources/subscribe", { uri: "nope://nothing" });
    expect(body.error?.code).toBe(ResourceNotFound);
    expect(body.error?.data?.uri).toBe("nope://nothing");
  });

  it("2025-11-25: resources/read of an unknown resource is -32002 with data.uri", async () => {
    const s = await openSession();
    const body = await call(s.id, "resources/read", { uri: "nope://missing" }, { id: "r-1" });
    expect(body.id).toBe("r-1");
    expect(body.error?.code).toBe(ResourceNotFound);
    expect(body.error?.data).toEqual({ uri: "nope://missing" });
  });

  it("2025-11-25: results carry no resultType, ttlMs, cacheScope or _meta serverInfo", async () => {
    const s = await openSession();
    const results = [
      s.init,
      await result(s.id, "tools/list"),
      await result(s.id, "resources/list"),
      await result(s.id, "resources/templates/list"),
      await result(s.id, "resources/read", { uri: "info://about" }),
      await result(s.id, "prompts/list"),
      await result(s.id, "prompts/get", { name: "explain_unit", arguments: { unit: "kelvin" } }),
      await result(s.id, "tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } }),
      await result(s.id, "ping"),
    ];
    for (const r of results) {
      expect(r).not.toHaveProperty("resultType");
      expect(r).not.toHaveProperty("ttlMs");
      expect(r).not.toHaveProperty("cacheScope");
      expect(r._meta?.["io.modelcontextprotocol/serverInfo"]).toBeUndefined();
    }
    expect(results[1].tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(["convert_temperature", "roll_dice", "greet", "countdown"]),
    );
    expect(results[7].structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
  });
});

describe("request ids", () => {
  it("2025-11-25: the same JSON-RPC id in two sessions gets each session's own result", async () => {
    const [a, b] = await Promise.all([openSession(), openSession()]);
    const [ra, rb] = await Promise.all([
      call(a.id, "tools/call", { name: "convert_temperature", arguments: { value: 0, from: "celsius" } }, { id: 7 }),
      call(b.id, "tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } }, { id: 7 }),
    ]);
    expect(ra.id).toBe(7);
    expect(rb.id).toBe(7);
    expect(ra.result.structuredContent.fahrenheit).toBe(32);
    expect(rb.result.structuredContent.fahrenheit).toBe(212);
  });

  it("2025-11-25: two concurrent streamed requests with the same id in one session each get their own progress and result", async () => {
    const s = await openSession();
    const [r2, r4] = await Promise.all([
      request(s.id, "tools/call", { name: "countdown", arguments: { from: 2 }, _meta: { progressToken: "two" } }, { id: "same" }),
      request(s.id, "tools/call", { name: "countdown", arguments: { from: 4 }, _meta: { progressToken: "four" } }, { id: "same" }),
    ]);
    const [e2, e4] = await Promise.all([sse(r2).rest(5000), sse(r4).rest(5000)]);
    for (const [events, token, total] of [
      [e2, "two", 2],
      [e4, "four", 4],
    ] as const) {
      const messages = events.filter((e) => e.message).map((e) => e.message!);
      const progress = messages.filter((m) => m.method === "notifications/progress");
      expect(progress.length).toBe(total + 1);
      for (const p of progress) expect(p.params).toMatchObject({ progressToken: token, total });
      const last = messages.at(-1)!;
      expect(last.id).toBe("same");
      expect(last.result.content[0].text).toBe("Liftoff!");
      expect(messages.filter((m) => m.result !== undefined)).toHaveLength(1);
    }
  });

  it("2025-11-25: a response POST whose id matches no pending server request is 400", async () => {
    const s = await openSession();
    const res = await respond(s.id, "s-unknown", { result: { action: "accept", content: {} } });
    await expectRpcError(res, 400, InvalidRequest);
    const numeric = await respond(s.id, 12345, { result: {} });
    expect(numeric.status).toBe(400);
    await numeric.body?.cancel();
  });
});
