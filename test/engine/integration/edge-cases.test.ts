/**
 * Behaviour at the protocol's edges, each test named by what it pins: the logging capability, URL elicitation on 2025-11-25, cancellation of a JSON-answered
 * call, server-to-client ping, prototype names from the client, caps on subscriptions, token-mode
 * metadata, non-finite structured output, and rate limits with the platform's binding.
 *
 * Edge cases that need a misbehaving app use the fixture app test/engine/app/edge-app.ts, served by
 * its own `createMcpWorker` with its session class bound in place of MCP_SESSION.
 */
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import edgeApp from "../app/edge-app";
import engineWorker from "../app/index";
import { createMcpWorker } from "../../../src/mcp";
import {
  cancelAllReaders,
  call,
  getStream,
  notify,
  openSession,
  request,
  respond,
  sessionStub,
  untilRunning,
  sse,
  type EventReader,
} from "../helpers/legacy";
import { MCP_URL, META, buildModernRequest, modernCall, modernResult, type RpcMessage } from "../helpers/mcp";
import { inOneLimiterWindow } from "../helpers/limiter-window";
import { initializeHeaders, initializeMessage, legacyHeaders, openLegacySession, requestMessage, type Send } from "../wire/index.ts";

afterEach(cancelAllReaders);

type AnyEnv = Record<string, unknown>;
const testEnv = env as unknown as AnyEnv;

// ── the edge-case fixture app, served by its own Worker ────────────────────
const edgeWorker = createMcpWorker(edgeApp);
const edgeEnv = { ...testEnv, MCP_SESSION: testEnv.MCP_SESSION_EDGE };

function edgeFetch(init: RequestInit): Promise<Response> {
  return edgeWorker.fetch(new Request(MCP_URL, init), edgeEnv as never, createExecutionContext());
}

const edgeSend: Send = async ({ method, headers, body }) => {
  const res = await edgeFetch({ method, headers, body });
  return { status: res.status, header: (name) => res.headers.get(name), text: await res.text() };
};

const URL_ELICITATION = { elicitation: { url: {} } };
const openEdgeSession = (capabilities: Record<string, unknown> = {}) => openLegacySession(edgeSend, { capabilities });

/** POSTs a request in a fixture-app session. */
const edgeRequest = (sessionId: string, method: string, params: Record<string, unknown> = {}, id?: number | string) =>
  edgeFetch({ method: "POST", headers: legacyHeaders(sessionId), body: JSON.stringify(requestMessage(method, params, id)) });

/** POSTs a request in a fixture-app session that must be answered with JSON; returns the JSON-RPC message. */
async function edgeCall(sessionId: string, method: string, params: Record<string, unknown> = {}): Promise<RpcMessage> {
  const res = await edgeRequest(sessionId, method, params);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
  return JSON.parse(text) as RpcMessage;
}

/** A 2026 request to the fixture app. */
function edgeModern(
  method: string,
  params: Record<string, unknown>,
  opts: Parameters<typeof buildModernRequest>[2] = {},
): Promise<Response> {
  const { message, headers } = buildModernRequest(method, params, opts);
  return edgeFetch({ method: "POST", headers, body: JSON.stringify(message) });
}

/** Reads events until one carries a JSON-RPC message (the priming event has none). */
async function nextMessage(reader: EventReader): Promise<RpcMessage | undefined> {
  for (;;) {
    const event = await reader.next(3000);
    if (!event) return undefined;
    if (event.message) return event.message;
  }
}

const fresh = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;

describe("logging capability", () => {
  it("with logging off, a 2026 request with logLevel debug gets no notifications/message", async () => {
    const res = await edgeModern("tools/call", { name: "chatty", arguments: {} }, { meta: { [META.logLevel]: "debug" } });
    // Nothing was emitted, so the answer is plain JSON, not a stream of log messages.
    expect(res.headers.get("Content-Type") ?? "").toMatch(/^application\/json/);
    const body = (await res.json()) as RpcMessage;
    expect(body.result.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("with logging off, 2025 logging/setLevel is -32601 and no log message reaches the session", async () => {
    const s = await openEdgeSession();
    expect(s.init.capabilities.logging).toBeUndefined();
    const set = await edgeCall(s.id, "logging/setLevel", { level: "debug" });
    expect(set.error?.code).toBe(-32601);
    // The handler logs at debug and emergency; with nothing sent the call stays a JSON answer.
    const res = await edgeCall(s.id, "tools/call", { name: "chatty", arguments: {} });
    expect(res.result.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("with logging on, 2025 logging/setLevel still answers {}", async () => {
    const s = await openSession();
    expect((await call(s.id, "logging/setLevel", { level: "info" })).result).toEqual({});
  });
});

describe("URL elicitation on 2025-11-25", () => {
  it("2025 URL elicitation always carries an elicitationId", async () => {
    const s = await openEdgeSession(URL_ELICITATION);
    for (const [name, args] of [
      ["sign_in_raw", {}],
      ["sign_in", {}],
    ] as const) {
      const reader = sse(await edgeRequest(s.id, "tools/call", { name, arguments: args }));
      const ask = await nextMessage(reader);
      expect(ask?.method, name).toBe("elicitation/create");
      expect(ask?.params.mode).toBe("url");
      expect(typeof ask?.params.elicitationId, name).toBe("string");
      expect(ask?.params.elicitationId.length).toBeGreaterThan(0);
      await reader.cancel();
    }
  });

  it("ctx.completeElicitation sends notifications/elicitation/complete to the session", async () => {
    const s = await openEdgeSession(URL_ELICITATION);
    const reader = sse(await edgeRequest(s.id, "tools/call", { name: "sign_in", arguments: { id: "login-7" } }));
    const ask = await nextMessage(reader);
    expect(ask?.params.elicitationId).toBe("login-7");
    const answer = await edgeFetch({
      method: "POST",
      headers: legacyHeaders(s.id),
      body: JSON.stringify({ jsonrpc: "2.0", id: ask!.id, result: { action: "accept" } }),
    });
    expect(answer.status).toBe(202);
    const done = await nextMessage(reader);
    expect(done).toMatchObject({ method: "notifications/elicitation/complete", params: { elicitationId: "login-7" } });
    const result = await nextMessage(reader);
    expect(result?.result.content).toEqual([{ type: "text", text: "signed in" }]);
  });

  it("-32042 on 2025 carries data.elicitations with their ids; 2026 asks for the URL as input instead", async () => {
    const s = await openEdgeSession(URL_ELICITATION);
    const legacy = await edgeCall(s.id, "tools/call", { name: "needs_login", arguments: {} });
    expect(legacy.error?.code).toBe(-32042);
    expect(legacy.error?.data).toEqual({
      elicitations: [{ mode: "url", message: "Sign in first", url: "https://login.example.test/start", elicitationId: "login-42" }],
    });

    // 2026-07-28 has no -32042 and no elicitationId: an input_required round with the URL elicitation.
    const res = await edgeModern("tools/call", { name: "needs_login", arguments: {} }, { capabilities: URL_ELICITATION });
    expect(res.status).toBe(200);
    const body = (await res.json()) as RpcMessage;
    expect(body.error).toBeUndefined();
    expect(body.result.resultType).toBe("input_required");
    const requests = Object.values(body.result.inputRequests) as { method: string; params: Record<string, unknown> }[];
    expect(requests).toEqual([
      { method: "elicitation/create", params: { mode: "url", message: "Sign in first", url: "https://login.example.test/start" } },
    ]);
  });
});

describe("cancellation", () => {
  it("a cancelled 2025 call answered as JSON sends no result (202, empty body)", async () => {
    const s = await openSession();
    // Nothing is logged at emergency, so countdown emits nothing and would answer as plain JSON.
    await call(s.id, "logging/setLevel", { level: "emergency" });
    const pending = request(s.id, "tools/call", { name: "countdown", arguments: { from: 10 } }, { id: "to-cancel" });
    await untilRunning(s.id, "to-cancel");
    expect((await notify(s.id, "notifications/cancelled", { requestId: "to-cancel", reason: "user gave up" })).status).toBe(202);
    const res = await pending;
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });
});

describe("server-to-client ping", () => {
  it("the server pings the client on its GET stream and takes the answer like a pending request", async () => {
    const s = await openSession();
    const stub = sessionStub(s.id);
    // No GET stream: nowhere to ping.
    expect(await stub.pingClient()).toBe(false);

    const reader = sse(await getStream(s.id));
    await reader.next(); // priming
    expect(await stub.pingClient()).toBe(true);
    const ping = await nextMessage(reader);
    expect(ping).toMatchObject({ jsonrpc: "2.0", method: "ping" });
    expect(typeof ping?.id).toBe("string");
    expect((await respond(s.id, ping!.id!, { result: {} })).status).toBe(202);
    // Taken: a second answer to the same id is no longer pending.
    expect((await respond(s.id, ping!.id!, { result: {} })).status).toBe(400);

    // A ping nobody answers by its deadline: the client is gone, and its GET connection is ended.
    expect(await stub.pingClient()).toBe(true);
    await nextMessage(reader);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE pending SET deadline = 0 WHERE method = 'ping'");
    });
    await runDurableObjectAlarm(stub);
    expect(await reader.next(3000)).toBeUndefined();
    expect(reader.ended).toBe(true);
  });
});

describe("prototype names and handler results", () => {
  it("resources/read units://__proto__ is not found, never a 500", async () => {
    const s = await openSession();
    for (const uri of ["units://__proto__", "units://constructor", "units://hasOwnProperty"]) {
      const res = await request(s.id, "resources/read", { uri });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(JSON.parse(text).error?.code, text).toBe(-32002);
    }
    const modern = await modernCall("resources/read", { uri: "units://__proto__" });
    expect(modern.error?.code).toBe(-32602);
    expect(modern.error?.data).toEqual({ uri: "units://__proto__" });
  });

  it("completion/complete with prototype argument names gives no values, never -32603 or a string", async () => {
    const s = await openSession();
    for (const name of ["__proto__", "valueOf", "hasOwnProperty", "constructor", "toString"]) {
      for (const ref of [
        { type: "ref/prompt", name: "explain_unit" },
        { type: "ref/resource", uri: "units://{unit}" },
      ]) {
        const params = { ref, argument: { name, value: "abc" } };
        const modern = await modernResult("completion/complete", params);
        expect(modern.completion, name).toEqual({ values: [], total: 0, hasMore: false });
        const legacy = await call(s.id, "completion/complete", params);
        expect(legacy.result?.completion, name).toEqual({ values: [], total: 0, hasMore: false });
      }
    }
  });

  it("handler results are checked: bad contents, messages or completion values are -32603 naming the server's handler, never a 500", async () => {
    const s = await openEdgeSession();
    const cases: [string, Record<string, unknown>][] = [
      ["resources/read", { uri: "bad://proto" }],
      ["resources/read", { uri: "bad://junk" }],
      ["prompts/get", { name: "bad_prompt" }],
      ["completion/complete", { ref: { type: "ref/resource", uri: "bad://{kind}" }, argument: { name: "kind", value: "" } }],
    ];
    for (const [method, params] of cases) {
      const legacy = await edgeCall(s.id, method, params);
      expect(legacy.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32603);
      expect(legacy.error?.message).toMatch(/^The server's .* handler returned /);
      const res = await edgeModern(method, params);
      expect(res.status).toBe(200);
      expect(((await res.json()) as RpcMessage).error?.code).toBe(-32603);
    }
    // A result that JSON cannot carry across to the Worker is -32603 too, not a 500.
    const fn = await edgeRequest(s.id, "tools/call", { name: "returns_function", arguments: {} });
    expect(fn.status).toBe(200);
  });
});

describe("caps", () => {
  it("subscription URIs are capped in length and subscriptions in number per session", async () => {
    const s = await openSession();
    const long = await call(s.id, "resources/subscribe", { uri: `units://${"x".repeat(5000)}` });
    expect(long.error?.code).toBe(-32602);
    expect(long.error?.message).toMatch(/longer than 4096/);

    const MAX = 256;
    for (let i = 0; i < MAX; i += 32) {
      const batch = Array.from({ length: 32 }, (_, j) => call(s.id, "resources/subscribe", { uri: `units://u${i + j}` }));
      for (const r of await Promise.all(batch)) expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    }
    const over = await call(s.id, "resources/subscribe", { uri: "units://one-too-many" });
    expect(over.error?.code).toBe(-32602);
    expect(over.error?.message).toMatch(/MAX_SUBSCRIPTIONS_PER_SESSION/);
    // Subscribing again to a URI it has costs nothing, and unsubscribing makes room.
    expect((await call(s.id, "resources/subscribe", { uri: "units://u0" })).error).toBeUndefined();
    expect((await call(s.id, "resources/unsubscribe", { uri: "units://u0" })).error).toBeUndefined();
    expect((await call(s.id, "resources/subscribe", { uri: "units://one-too-many" })).error).toBeUndefined();
  });
});

describe("token mode and structured output", () => {
  const tokenEnv = { ...testEnv, AUTH_MODE: "token", MCP_AUTH_TOKEN: "s3cret-token", AUTH_SCOPES: "mcp" };
  const engineFetch = (init: RequestInit & { url?: string }, extra: AnyEnv = tokenEnv) =>
    engineWorker.fetch(new Request(init.url ?? MCP_URL, init), extra as never, createExecutionContext());

  it("token mode serves no protected-resource metadata, and its 401 names none", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await engineFetch({ url: `http://localhost${path}` });
      expect(res.status).toBe(404);
    }
    const { message, headers } = buildModernRequest("server/discover", {});
    const res = await engineFetch({ method: "POST", headers, body: JSON.stringify(message) });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer scope="mcp"');
  });

  it("a non-finite number in structured output is a tool error, never null", async () => {
    const res = await edgeModern("tools/call", { name: "overflow", arguments: { value: 1e308 } });
    const body = (await res.json()) as RpcMessage;
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent).toBeUndefined();
    expect(body.result.content[0].text).toMatch(/not finite at result/);
    // A finite one still goes through.
    const ok = (await (await edgeModern("tools/call", { name: "overflow", arguments: { value: 2 } })).json()) as RpcMessage;
    expect(ok.result.structuredContent).toEqual({ result: 20 });
  });
});

describe("rate limits", () => {
  const tight = testEnv.TEST_TIGHT_RATE_LIMIT;
  const discover = (ip: string, limits: AnyEnv) => {
    const { message, headers } = buildModernRequest("server/discover", {});
    return engineWorker.fetch(
      new Request(MCP_URL, { method: "POST", headers: { ...headers, "CF-Connecting-IP": ip }, body: JSON.stringify(message) }),
      { ...testEnv, ...limits } as never,
      createExecutionContext(),
    );
  };
  const initialize = (ip: string, limits: AnyEnv) =>
    engineWorker.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: { ...initializeHeaders(), "CF-Connecting-IP": ip },
        body: JSON.stringify(initializeMessage()),
      }),
      { ...testEnv, ...limits } as never,
      createExecutionContext(),
    );

  it("requests over MCP_RATE_LIMIT get 429 with Retry-After, per client address", async () => {
    await inOneLimiterWindow();
    const ip = fresh();
    for (let i = 0; i < 3; i++) expect((await discover(ip, { MCP_RATE_LIMIT: tight })).status).toBe(200);
    const res = await discover(ip, { MCP_RATE_LIMIT: tight });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    const body = (await res.json()) as RpcMessage;
    expect(body.error?.message).toMatch(/MCP_RATE_LIMIT/);
    // Another address has its own budget; without the binding there is no limit.
    expect((await discover(fresh(), { MCP_RATE_LIMIT: tight })).status).toBe(200);
    expect((await discover(ip, { MCP_RATE_LIMIT: undefined })).status).toBe(200);
  });

  it("session creation over MCP_SESSION_RATE_LIMIT gets 429, and other requests go on", async () => {
    await inOneLimiterWindow();
    const ip = fresh();
    const limits = { MCP_SESSION_RATE_LIMIT: tight };
    for (let i = 0; i < 3; i++) expect((await initialize(ip, limits)).status).toBe(200);
    const res = await initialize(ip, limits);
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    expect((await discover(ip, limits)).status).toBe(200);
  });

  it("the shipped configurations bind both limiters", async () => {
    expect(testEnv.MCP_RATE_LIMIT).toBeDefined();
    expect(testEnv.MCP_SESSION_RATE_LIMIT).toBeDefined();
  });
});
