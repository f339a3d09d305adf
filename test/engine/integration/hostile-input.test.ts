/**
 * Hostile input on both lanes (README "Security" and "Limits"; the transports
 * of both revisions and their status codes): every case asserts the documented status and
 * JSON-RPC error (never a 5xx), and afterwards that a normal request still
 * succeeds — on the session lane also that the session still works and that
 * what it had stored survived: a greet call waiting on the user when the
 * hostile message arrived still completes when the user answers.
 */
import { SELF, createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../app/index";
import { readConfig } from "../../../src/engine/config";
import {
  MCP_URL,
  SseReader,
  VERSION,
  base64Header,
  buildModernRequest,
  expectRpcError,
  modernPost,
  modernResult,
  sleep,
  type RpcMessage,
} from "../helpers/mcp";
import { hubShards } from "../helpers/hub";
import { until } from "../helpers/until";
import { listenerPlace } from "../../../src/engine/objects/addresses";
import {
  type EventReader,
  LEGACY_VERSION,
  call,
  cancelAllReaders,
  deleteSession,
  getStream,
  openSession,
  postMessage,
  publish,
  request,
  respond,
  result,
  sse,
} from "../helpers/legacy";
import { initializeHeaders, initializeMessage } from "../wire/index.ts";
import { inOneLimiterWindow } from "../helpers/limiter-window";

afterEach(cancelAllReaders);

// Every line the engine logs during the whole battery: none may carry a secret or an argument value.
const logged: string[] = [];
const RECORD_KEYS = new Set([
  "mcp",
  "revision",
  "lane",
  "method",
  "name",
  "outcome",
  "errorCode",
  "durationMs",
  "principal",
  "session",
  "traceId",
]);
beforeAll(() => {
  for (const level of ["log", "warn", "error", "info", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  }
});
afterAll(() => {
  vi.restoreAllMocks();
  const text = logged.join("\n");
  expect(logged.length).toBeGreaterThan(0);
  expect(text).not.toContain(String(env.MCP_STATE_SECRET));
  expect(text).not.toMatch(/Bearer\s+\S/);
  for (const line of logged) {
    const record = /^\{"mcp":"request"/.test(line) ? (JSON.parse(line) as Record<string, unknown>) : undefined;
    if (record)
      expect(
        Object.keys(record).filter((k) => !RECORD_KEYS.has(k)),
        line,
      ).toEqual([]);
  }
});

const ParseError = -32700;
const InvalidRequest = -32600;
const MethodNotFound = -32601;
const InvalidParams = -32602;
const InternalError = -32603;
const HeaderMismatch = -32020;

const limits = readConfig(env as never);
const ELICIT = { elicitation: {} };
const CONVERT = { name: "convert_temperature", arguments: { value: 100, from: "celsius" } };

// ── what "still works" means on each lane ──────────────────────────────────

/** A normal 2026-07-28 tools/call succeeds. */
async function expectModernHealthy(): Promise<void> {
  const r = await modernResult("tools/call", CONVERT);
  expect(r.structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
}

/** A session with a greet call waiting on the user (its elicitation request read off the stream). */
interface Pending {
  id: string;
  reader: EventReader;
  ask: RpcMessage;
  callId: string;
}

let pendingSeq = 0;
async function sessionWithPendingGreet(): Promise<Pending> {
  const s = await openSession({ capabilities: ELICIT });
  const callId = `greet-${++pendingSeq}`;
  const reader = sse(await request(s.id, "tools/call", { name: "greet", arguments: {} }, { id: callId }));
  const ask = await reader.nextMessage();
  expect(ask?.message?.method).toBe("elicitation/create");
  return { id: s.id, reader, ask: ask!.message!, callId };
}

/** The session answers ping and tools/call, and the greet waiting on the user completes with the answer. */
async function expectSessionHealthy(p: Pending, name = "Ada"): Promise<void> {
  expect(await result(p.id, "ping")).toEqual({});
  expect((await result(p.id, "tools/call", CONVERT)).structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
  const ack = await respond(p.id, p.ask.id!, { result: { action: "accept", content: { name } } });
  expect(ack.status).toBe(202);
  const final = await p.reader.until((m) => m.id === p.callId, 3000);
  expect(final?.message).toMatchObject({ id: p.callId, result: { content: [{ type: "text", text: `Hello, ${name}!` }] } });
  await expectModernHealthy();
}

// ── raw requests ───────────────────────────────────────────────────────────

type Headers = Record<string, string | null>;

function modernHeaders(overrides: Headers = {}): Record<string, string> {
  return buildModernRequest("tools/list", {}, { headers: overrides }).headers;
}

function sessionHeaders(sessionId: string, overrides: Headers = {}): Record<string, string> {
  const h: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": LEGACY_VERSION,
    "Mcp-Session-Id": sessionId,
  };
  for (const [k, v] of Object.entries(overrides)) {
    for (const existing of Object.keys(h)) if (existing.toLowerCase() === k.toLowerCase()) delete h[existing];
    if (v !== null) h[k] = v;
  }
  return h;
}

const send = (headers: Record<string, string>, body: BodyInit | null, method = "POST") => SELF.fetch(MCP_URL, { method, headers, body });

/** A modern tools/list body (with its _meta envelope) under a given id. */
const modernBody = (extra: Record<string, unknown> = {}) => ({ ...buildModernRequest("tools/list", {}, { id: 7 }).message, ...extra });
const legacyBody = (extra: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {}, ...extra });

const utf8 = (s: string) => new TextEncoder().encode(s);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

// ── body-level cases: identical rules on both lanes ─────────────────────────

interface BodyCase {
  name: string;
  body: (base: (extra?: Record<string, unknown>) => object) => BodyInit;
  status: number;
  code: number;
  /** The id the error must echo (null: the id could not be read). */
  id: string | number | null;
  headers?: Headers;
}

const BODY_CASES: BodyCase[] = [
  { name: "malformed JSON", body: () => '{"jsonrpc":"2.0","id":7,"method":}', status: 400, code: ParseError, id: null },
  { name: "truncated JSON", body: (b) => JSON.stringify(b()).slice(0, 30), status: 400, code: ParseError, id: null },
  { name: "an empty body", body: () => "", status: 400, code: ParseError, id: null },
  { name: "a batch (array of one valid request)", body: (b) => JSON.stringify([b()]), status: 400, code: InvalidRequest, id: null },
  { name: "an empty batch", body: () => "[]", status: 400, code: InvalidRequest, id: null },
  { name: "a JSON scalar", body: () => "42", status: 400, code: InvalidRequest, id: null },
  { name: 'jsonrpc "1.0"', body: (b) => JSON.stringify(b({ jsonrpc: "1.0" })), status: 400, code: InvalidRequest, id: 7 },
  { name: "no jsonrpc member", body: (b) => JSON.stringify({ ...b(), jsonrpc: undefined }), status: 400, code: InvalidRequest, id: 7 },
  { name: "a non-string method", body: (b) => JSON.stringify(b({ method: 42 })), status: 400, code: InvalidRequest, id: 7 },
  { name: "an object id", body: (b) => JSON.stringify(b({ id: { x: 1 } })), status: 400, code: InvalidRequest, id: null },
  { name: "an array id", body: (b) => JSON.stringify(b({ id: [1] })), status: 400, code: InvalidRequest, id: null },
  { name: "a null request id", body: (b) => JSON.stringify(b({ id: null })), status: 400, code: InvalidRequest, id: null },
  { name: "a float id", body: (b) => JSON.stringify(b({ id: 1.5 })), status: 400, code: InvalidRequest, id: null },
  {
    name: "an id beyond the safe integers",
    body: (b) => JSON.stringify(b()).replace('"id":7', '"id":123456789012345678901234567890'),
    status: 400,
    code: InvalidRequest,
    id: null,
  },
  {
    name: "a string id over 256 characters",
    body: (b) => JSON.stringify(b({ id: "i".repeat(257) })),
    status: 400,
    code: InvalidRequest,
    id: null,
  },
  { name: "params as an array", body: (b) => JSON.stringify(b({ params: [1, 2] })), status: 400, code: InvalidRequest, id: 7 },
  { name: "params as a string", body: (b) => JSON.stringify(b({ params: "x" })), status: 400, code: InvalidRequest, id: 7 },
  { name: "neither method, result nor error", body: () => '{"jsonrpc":"2.0","id":7}', status: 400, code: InvalidRequest, id: 7 },
  {
    name: "invalid UTF-8 bytes",
    body: (b) => new Uint8Array([...utf8(JSON.stringify(b()).slice(0, -1)), 0xc3, 0x28, 0x7d]),
    status: 400,
    code: ParseError,
    id: null,
  },
  {
    name: "a lone surrogate half in UTF-8 (CESU)",
    body: () => new Uint8Array([...utf8('{"jsonrpc":"2.0","id":7,"method":"'), 0xed, 0xa0, 0x80, ...utf8('"}')]),
    status: 400,
    code: ParseError,
    id: null,
  },
  {
    name: `nesting deeper than MAX_JSON_DEPTH (${limits.maxJsonDepth})`,
    body: (b) => JSON.stringify(b()).replace(/}$/, `,"deep":${nested(limits.maxJsonDepth + 1)}}`),
    status: 400,
    code: InvalidRequest,
    id: 7,
  },
  {
    name: `a body over MAX_BODY_BYTES (${limits.maxBodyBytes}) with Content-Length`,
    body: (b) => JSON.stringify(b({ pad: "x".repeat(limits.maxBodyBytes) })),
    status: 413,
    code: InvalidRequest,
    id: null,
  },
  {
    name: "a body over MAX_BODY_BYTES streamed without Content-Length",
    body: (b) => {
      const chunk = utf8(JSON.stringify(b({ pad: "x".repeat(64 * 1024) })));
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > limits.maxBodyBytes) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
    },
    status: 413,
    code: InvalidRequest,
    id: null,
  },
  {
    name: "Content-Type text/plain",
    body: (b) => JSON.stringify(b()),
    headers: { "Content-Type": "text/plain" },
    status: 415,
    code: InvalidRequest,
    id: null,
  },
  {
    name: "no Content-Type",
    body: (b) => JSON.stringify(b()),
    headers: { "Content-Type": null },
    status: 415,
    code: InvalidRequest,
    id: null,
  },
  // An Accept with one of the two types, or none, is served (hosted clients send them: hosted-quirks.test.ts); neither is refused.
  {
    name: "Accept with neither JSON nor SSE",
    body: (b) => JSON.stringify(b()),
    headers: { Accept: "text/html" },
    status: 406,
    code: InvalidRequest,
    id: null,
  },
];

describe("2026-07-28 lane: body and media-type rejections", () => {
  it.each(BODY_CASES.map((c) => [c.name, c] as const))("2026-07-28: %s", async (_name, c) => {
    const res = await send(modernHeaders(c.headers), c.body(modernBody));
    await expectRpcError(res, c.status, c.code, c.id);
    await expectModernHealthy();
  });

  it("2026-07-28: a UTF-8 BOM before the JSON is ignored (RFC 8259 §8.1) and the request is served", async () => {
    const res = await send(modernHeaders(), new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(JSON.stringify(modernBody()))]));
    expect(res.status).toBe(200);
    expect(((await res.json()) as RpcMessage).result.tools.length).toBeGreaterThan(0);
  });

  it("2026-07-28: brackets inside strings do not count towards MAX_JSON_DEPTH", async () => {
    const body = JSON.stringify(modernBody()).replace(/}$/, `,"text":"${nested(limits.maxJsonDepth * 2)}"}`);
    const res = await send(modernHeaders(), body);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe("2025-11-25 lane: body and media-type rejections in a session with a call waiting on the user", () => {
  it.each(BODY_CASES.map((c) => [c.name, c] as const))("2025-11-25: %s", async (_name, c) => {
    const p = await sessionWithPendingGreet();
    const res = await send(sessionHeaders(p.id, c.headers), c.body(legacyBody));
    await expectRpcError(res, c.status, c.code, c.id);
    await expectSessionHealthy(p);
  });

  it("2025-11-25: a UTF-8 BOM before the JSON is ignored and the request is served", async () => {
    const p = await sessionWithPendingGreet();
    const res = await send(
      sessionHeaders(p.id),
      new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(JSON.stringify({ jsonrpc: "2.0", id: "bom", method: "ping" }))]),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: "bom", result: {} });
    await expectSessionHealthy(p);
  });
});

// ── HTTP methods ───────────────────────────────────────────────────────────

describe("HTTP methods", () => {
  it.each(["PUT", "PATCH"])("both lanes: %s is 405 with an Allow header, and nothing in the session is touched", async (method) => {
    const p = await sessionWithPendingGreet();
    for (const headers of [modernHeaders(), sessionHeaders(p.id)]) {
      const res = await send(headers, JSON.stringify(legacyBody()), method);
      expect(res.headers.get("Allow")).toBe("GET, POST, DELETE");
      await expectRpcError(res, 405, InvalidRequest, null);
    }
    await expectSessionHealthy(p);
  });
});

// ── the 2026-07-28 header ladder ───────────────────────────────────────────

describe("2026-07-28 lane: hostile headers", () => {
  const convert = (headers: Headers) => modernPost("tools/call", CONVERT, { headers, id: "hdr" });

  it(`2026-07-28: an Mcp-Name over MAX_HEADER_BYTES (${limits.maxHeaderBytes}) is 431`, async () => {
    await expectRpcError(await convert({ "Mcp-Name": "n".repeat(limits.maxHeaderBytes + 1) }), 431, InvalidRequest, null);
    await expectModernHealthy();
  });

  it("2026-07-28: an Mcp-Param-* header over MAX_HEADER_BYTES is 431", async () => {
    await expectRpcError(await convert({ "Mcp-Param-Anything": "p".repeat(limits.maxHeaderBytes + 1) }), 431, InvalidRequest, null);
    await expectModernHealthy();
  });

  it("2026-07-28: an Mcp-Session-Id or Last-Event-ID over MAX_HEADER_BYTES is 431 too", async () => {
    await expectRpcError(await convert({ "Mcp-Session-Id": "s".repeat(limits.maxHeaderBytes + 1) }), 431, InvalidRequest, null);
    await expectRpcError(await convert({ "Last-Event-ID": "e".repeat(limits.maxHeaderBytes + 1) }), 431, InvalidRequest, null);
    await expectModernHealthy();
  });

  it.each([
    ["not base64 at all", "=?base64?!!!?="],
    ["missing padding", "=?base64?Y29udmVydF90ZW1wZXJhdHVyZQ?="],
    ["base64 of invalid UTF-8", `=?base64?${btoa("\xff\xfe")}?=`],
  ])("2026-07-28: an Mcp-Name with an invalid base64 value (%s) is 400 -32020", async (_what, value) => {
    await expectRpcError(await convert({ "Mcp-Name": value }), 400, HeaderMismatch, "hdr");
    await expectModernHealthy();
  });

  it("2026-07-28: a correctly base64-encoded Mcp-Name is accepted", async () => {
    const res = await convert({ "Mcp-Name": base64Header("convert_temperature") });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RpcMessage).result.structuredContent.kelvin).toBe(373.15);
  });

  it("2026-07-28: a raw non-ASCII Mcp-Name is 400 -32020", async () => {
    await expectRpcError(await convert({ "Mcp-Name": "convert_temp\u00e9rature" }), 400, HeaderMismatch, "hdr");
  });

  it("2026-07-28: Mcp-Method differing only in case is 400 -32020", async () => {
    await expectRpcError(
      await modernPost("tools/list", {}, { headers: { "Mcp-Method": "TOOLS/LIST" }, id: "case" }),
      400,
      HeaderMismatch,
      "case",
    );
    await expectModernHealthy();
  });

  it("2026-07-28: garbage Mcp-Session-Id and Last-Event-ID on a modern request are ignored", async () => {
    const res = await convert({ "Mcp-Session-Id": "../../../etc/passwd", "Last-Event-ID": "p1-0" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    expect(((await res.json()) as RpcMessage).result.structuredContent.celsius).toBe(100);
  });

  it.each(["no/such/method", "__proto__", "constructor", "ping", "initialize"])(
    "2026-07-28: the unknown (or 2025-only) method %s is 404 -32601",
    async (method) => {
      await expectRpcError(await modernPost(method, {}, { id: "unk" }), 404, MethodNotFound, "unk");
      await expectModernHealthy();
    },
  );

  it.each(["__proto__", "constructor", "toString"])(
    "2026-07-28: tools/call of a prototype name (%s) is an unknown tool (-32602), not a crash",
    async (name) => {
      const res = await modernPost("tools/call", { name, arguments: {} }, { id: "proto" });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as RpcMessage;
      expect(body.error?.code).toBe(InvalidParams);
      await expectModernHealthy();
    },
  );

  it("2026-07-28: a request without an id is a notification: 202, empty body, nothing runs", async () => {
    const res = await modernPost("tools/call", { name: "greet", arguments: {} }, { id: null, capabilities: ELICIT });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("2026-07-28: a notification method sent with an id is a request for an unknown method: 404 -32601", async () => {
    await expectRpcError(await modernPost("notifications/cancelled", { requestId: 1 }, { id: "nid" }), 404, MethodNotFound, "nid");
  });

  it("2026-07-28: a JSON-RPC response POSTed without a session is 400 (responses only exist in 2025 sessions)", async () => {
    await expectRpcError(
      await send(modernHeaders(), JSON.stringify({ jsonrpc: "2.0", id: "s1", result: { action: "accept" } })),
      400,
      InvalidRequest,
      null,
    );
    await expectModernHealthy();
  });
});

// ── forged requestState and malformed inputResponses ───────────────────────

describe("2026-07-28 lane: forged requestState and malformed inputResponses", () => {
  const greet = { name: "greet", arguments: {} };
  const answer = { who: { action: "accept", content: { name: "Ada" } } };

  /** Round 1 of greet, through the Worker's fetch with an env override (e.g. another key or a short TTL). */
  async function round1With(overrides: Record<string, string> = {}): Promise<string> {
    const { message, headers } = buildModernRequest("tools/call", greet, { capabilities: ELICIT });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }),
      { ...env, ...overrides } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const body = (await res.json()) as RpcMessage;
    expect(body.result.resultType).toBe("input_required");
    return body.result.requestState;
  }

  /** A retry with this state is rejected in-band (HTTP 200, as handler errors are) with -32602, echoing the id. */
  async function expectRejected(
    params: Record<string, unknown>,
    method = "tools/call",
    why = /requestState|inputResponses/,
  ): Promise<void> {
    const res = await modernPost(method, params, { capabilities: ELICIT, id: "forged" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as RpcMessage;
    expect(body.id).toBe("forged");
    expect(body.result).toBeUndefined();
    expect(body.error?.code, JSON.stringify(body)).toBe(InvalidParams);
    expect(body.error?.message).toMatch(why);
  }

  /** The honest retry still completes: nothing about the forgery stuck. */
  async function expectHonestRetryWorks(): Promise<void> {
    const requestState = await round1With();
    const r = await modernResult("tools/call", { ...greet, requestState, inputResponses: answer }, { capabilities: ELICIT });
    expect(r).toMatchObject({ resultType: "complete", content: [{ text: "Hello, Ada!" }] });
  }

  it("2026-07-28: a random requestState is rejected with -32602", async () => {
    const random = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(48)))).replace(/=+$/, "");
    await expectRejected({ ...greet, requestState: `${random.slice(0, 40)}.${random.slice(40)}`, inputResponses: answer });
    await expectHonestRetryWorks();
  });

  it("2026-07-28: a truncated requestState is rejected with -32602", async () => {
    const state = await round1With();
    await expectRejected({ ...greet, requestState: state.slice(0, -5), inputResponses: answer });
    await expectRejected({ ...greet, requestState: state.split(".")[0], inputResponses: answer });
    await expectHonestRetryWorks();
  });

  it("2026-07-28: a requestState signed with another key is rejected with -32602", async () => {
    const foreign = await round1With({ MCP_STATE_SECRET: "another-deployment-key" });
    await expectRejected({ ...greet, requestState: foreign, inputResponses: answer });
    await expectHonestRetryWorks();
  });

  it("2026-07-28: a requestState issued for another tool (or another method) is rejected with -32602", async () => {
    const state = await round1With();
    await expectRejected({ ...CONVERT, requestState: state });
    await expectRejected({ name: "explain_unit", arguments: { unit: "kelvin" }, requestState: state }, "prompts/get");
    await expectHonestRetryWorks();
  });

  it("2026-07-28: an expired requestState is rejected with -32602", async () => {
    // Issued ten seconds ago by the clock the Worker reads (it runs in this isolate), with a one-second TTL.
    const realNow = Date.now.bind(Date);
    const earlier = vi.spyOn(Date, "now").mockImplementation(() => realNow() - 10_000);
    let state: string;
    try {
      state = await round1With({ INPUT_STATE_TTL_SECONDS: "1" });
    } finally {
      earlier.mockRestore();
    }
    await expectRejected({ ...greet, requestState: state, inputResponses: answer }, "tools/call", /expired/);
    await expectHonestRetryWorks();
  });

  it.each([
    ["an array", ["Ada"]],
    ["a string", "Ada"],
    ["an answer that is not an object", { who: "Ada" }],
    ["an invalid action", { who: { action: "maybe" } }],
    ["content that is not an object", { who: { action: "accept", content: ["Ada"] } }],
  ])(
    "2026-07-28: inputResponses as %s is rejected with -32602, and the same requestState still completes with a good answer",
    async (_what, inputResponses) => {
      const requestState = await round1With();
      await expectRejected({ ...greet, requestState, inputResponses });
      const r = await modernResult("tools/call", { ...greet, requestState, inputResponses: answer }, { capabilities: ELICIT });
      expect(r).toMatchObject({ resultType: "complete", content: [{ text: "Hello, Ada!" }] });
    },
  );
});

// ── sessions ───────────────────────────────────────────────────────────────

describe("2025-11-25 lane: session ids", () => {
  const FOREIGN = "A".repeat(43); // well-formed, never issued

  it("2025-11-25: a request without Mcp-Session-Id is 400", async () => {
    const p = await sessionWithPendingGreet();
    // The body was read: the refusal answers its id (7).
    await expectRpcError(
      await send(sessionHeaders(p.id, { "Mcp-Session-Id": null }), JSON.stringify(legacyBody())),
      400,
      InvalidRequest,
      7,
    );
    await expectSessionHealthy(p);
  });

  it.each([
    ["well-formed but never issued", FOREIGN],
    ["too short", "abc"],
    ["path-like", "../../session/../x"],
    ["with non-id characters", `${"A".repeat(42)}=`],
  ])("2025-11-25: a session id that is %s is 404 on POST, GET and DELETE", async (_what, sid) => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(await send(sessionHeaders(sid), JSON.stringify(legacyBody())), 404, InvalidRequest, 7);
    await expectRpcError(await getStream(sid), 404, InvalidRequest, null);
    await expectRpcError(await deleteSession(sid), 404, InvalidRequest, null);
    await expectSessionHealthy(p);
  });

  it("2025-11-25: a terminated session's id is 404, and terminating it did not touch another session", async () => {
    const [p, gone] = await Promise.all([sessionWithPendingGreet(), openSession()]);
    expect((await deleteSession(gone.id)).status).toBe(200);
    await expectRpcError(await request(gone.id, "ping", {}, { id: "gone" }), 404, InvalidRequest, "gone");
    await expectRpcError(await deleteSession(gone.id), 404, InvalidRequest, null);
    await expectSessionHealthy(p);
  });

  it("2025-11-25: an Mcp-Session-Id over MAX_HEADER_BYTES is 431", async () => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(
      await send(sessionHeaders("A".repeat(limits.maxHeaderBytes + 1)), JSON.stringify(legacyBody())),
      431,
      InvalidRequest,
      null,
    );
    await expectSessionHealthy(p);
  });

  it("2025-11-25: an unsupported MCP-Protocol-Version on session traffic is 400", async () => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(
      await send(sessionHeaders(p.id, { "MCP-Protocol-Version": "1999-01-01" }), JSON.stringify(legacyBody())),
      400,
      InvalidRequest,
      7,
    );
    await expectSessionHealthy(p);
  });

  it("2025-11-25: initialize again inside a session is 400 -32600, and the session is unchanged", async () => {
    const p = await sessionWithPendingGreet();
    const res = await request(
      p.id,
      "initialize",
      { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "x", version: "1" } },
      { id: "again" },
    );
    await expectRpcError(res, 400, InvalidRequest, "again");
    await expectSessionHealthy(p);
  });
});

describe("2025-11-25 lane: answers to server requests", () => {
  it.each([
    ["an unknown string id", { jsonrpc: "2.0", id: "s-nope", result: { action: "accept", content: { name: "Eve" } } }],
    ["an integer id", { jsonrpc: "2.0", id: 99999, result: { action: "accept", content: { name: "Eve" } } }],
    ["an error response with a null id", { jsonrpc: "2.0", id: null, error: { code: -1, message: "no" } }],
  ])("2025-11-25: a JSON-RPC response with %s is 400 -32600", async (_what, message) => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(await postMessage(p.id, message), 400, InvalidRequest, null);
    await expectSessionHealthy(p);
  });

  it.each([
    ["an invalid action", { action: "maybe" }, InvalidParams],
    ["no action", { content: { name: "Eve" } }, InvalidParams],
    ["content that is not an object", { action: "accept", content: "Eve" }, InvalidParams],
  ])(
    "2025-11-25: an answer to the pending elicitation with %s is 400, and the right answer afterwards still completes the call",
    async (_what, answer, code) => {
      const p = await sessionWithPendingGreet();
      await expectRpcError(await respond(p.id, p.ask.id!, { result: answer }), 400, code, null);
      expect(await p.reader.nextMessage(200)).toBeUndefined();
      await expectSessionHealthy(p, "Grace");
    },
  );

  it("2025-11-25: an answer whose result is not an object (an array) is 400 -32600, and the right answer afterwards still completes the call", async () => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(await postMessage(p.id, { jsonrpc: "2.0", id: p.ask.id, result: ["accept"] }), 400, InvalidRequest, p.ask.id);
    await expectSessionHealthy(p, "Grace");
  });
});

describe("2025-11-25 lane: methods and notifications", () => {
  it.each(["no/such/method", "__proto__", "constructor", "subscriptions/listen", "server/discover"])(
    "2025-11-25: the unknown (or 2026-only) method %s is answered in-band with -32601",
    async (method) => {
      const p = await sessionWithPendingGreet();
      const body = await call(p.id, method, {}, { id: "unk" });
      expect(body).toMatchObject({ jsonrpc: "2.0", id: "unk", error: { code: MethodNotFound } });
      await expectSessionHealthy(p);
    },
  );

  it("2025-11-25: a request without an id is a notification: 202, empty body, nothing runs", async () => {
    const p = await sessionWithPendingGreet();
    const res = await postMessage(p.id, { jsonrpc: "2.0", method: "tools/call", params: { name: "greet", arguments: {} } });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    await expectSessionHealthy(p);
  });

  it("2025-11-25: notifications/initialized sent with an id is a request for an unknown method (-32601)", async () => {
    const p = await sessionWithPendingGreet();
    const body = await call(p.id, "notifications/initialized", {}, { id: "nid" });
    expect(body).toMatchObject({ id: "nid", error: { code: MethodNotFound } });
    await expectSessionHealthy(p);
  });

  it("2025-11-25: notifications/cancelled with a garbage requestId is accepted and cancels nothing", async () => {
    const p = await sessionWithPendingGreet();
    for (const requestId of [{ x: 1 }, "no-such-call", 123456, null]) {
      const res = await postMessage(p.id, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
      expect(res.status).toBe(202);
    }
    await expectSessionHealthy(p);
  });
});

describe("2025-11-25 lane: GET streams", () => {
  it.each([
    ["application/json", "application/json"],
    ["text/html", "text/html"],
  ])("2025-11-25: GET with Accept: %s is 406", async (_what, accept) => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(await getStream(p.id, undefined, { Accept: accept }), 406, InvalidRequest, null);
    await expectSessionHealthy(p);
  });

  it("2025-11-25: GET without a session id is 400; with the 2026 version header and no session it is 405", async () => {
    await expectRpcError(await getStream(undefined), 400, InvalidRequest, null);
    const res = await getStream(undefined, undefined, { "MCP-Protocol-Version": VERSION });
    expect(res.headers.get("Allow")).toBe("POST");
    await expectRpcError(res, 405, InvalidRequest, null);
  });

  it.each(["garbage", "p1-", "-1", "p1-99999999999999", "P1-1", "g1-1; DROP TABLE events", "\u00ff"])(
    "2025-11-25: Last-Event-ID %j is 400",
    async (lastEventId) => {
      const p = await sessionWithPendingGreet();
      await expectRpcError(await getStream(p.id, lastEventId), 400, InvalidRequest, null);
      await expectSessionHealthy(p);
    },
  );

  it("2025-11-25: a Last-Event-ID from another session is 400 and replays nothing of it", async () => {
    const other = await openSession();
    // Advance the other session's counter past anything the target session has.
    for (let i = 0; i < 4; i++) await (await getStream(other.id)).body?.cancel();
    const theirs = sse(await getStream(other.id));
    const priming = await theirs.next();
    expect(priming?.id).toMatch(/^g/);
    const p = await sessionWithPendingGreet();
    await expectRpcError(await getStream(p.id, priming!.id), 400, InvalidRequest, null);
    await expectSessionHealthy(p);
  });

  it("2025-11-25: a Last-Event-ID over MAX_HEADER_BYTES is 431", async () => {
    const p = await sessionWithPendingGreet();
    await expectRpcError(await getStream(p.id, `p1-${"1".repeat(limits.maxHeaderBytes)}`), 431, InvalidRequest, null);
    await expectSessionHealthy(p);
  });
});

// ── per-session limits (their defaults; Durable Objects read their own bindings) ──

describe("2025-11-25 lane: per-session limits", () => {
  /** Starts greet in a session and reads its elicitation; undefined when the session refused it. */
  async function startGreet(sessionId: string, callId: string) {
    const res = await request(sessionId, "tools/call", { name: "greet", arguments: {} }, { id: callId });
    if (res.status !== 200 || !(res.headers.get("Content-Type") ?? "").startsWith("text/event-stream")) return res;
    const reader = sse(res);
    const ask = await reader.nextMessage();
    expect(ask?.message?.method).toBe("elicitation/create");
    return { reader, ask: ask!.message!, askEventId: ask!.id!, callId };
  }
  type Started = Exclude<Awaited<ReturnType<typeof startGreet>>, Response>;
  const started = (x: Awaited<ReturnType<typeof startGreet>>): Started => {
    expect(x).not.toBeInstanceOf(Response);
    return x as Started;
  };

  it(`2025-11-25: over MAX_STREAMS_PER_SESSION (${limits.maxStreamsPerSession}) open streams a new stream is 429, and the streams already open keep working`, async () => {
    const s = await openSession({ capabilities: ELICIT });
    const get = sse(await getStream(s.id));
    expect((await get.next())?.data).toBe("");
    const calls: Started[] = [];
    for (let i = 0; i < limits.maxStreamsPerSession - 1; i++) calls.push(started(await startGreet(s.id, `fill-${i}`)));

    // One more GET is refused, and the GET stream already open is still the one notifications go to.
    await expectRpcError(await getStream(s.id), 429, InvalidRequest, null);
    await publish({ method: "notifications/tools/list_changed" });
    expect((await get.until((m) => m.method === "notifications/tools/list_changed", 3000))?.message).toBeDefined();

    // One more call is refused before it runs, naming the request.
    await expectRpcError((await startGreet(s.id, "refused")) as Response, 429, InvalidRequest, "refused");

    // Requests that never open a stream still work, and every waiting call still completes.
    expect(await result(s.id, "ping")).toEqual({});
    for (const c of calls) {
      expect((await respond(s.id, c.ask.id!, { result: { action: "accept", content: { name: c.callId } } })).status).toBe(202);
      expect((await c.reader.until((m) => m.id === c.callId))?.message?.result.content[0].text).toBe(`Hello, ${c.callId}!`);
    }
    // With streams free again, a new call is served.
    const again = started(await startGreet(s.id, "after"));
    expect((await respond(s.id, again.ask.id!, { result: { action: "decline" } })).status).toBe(202);
    expect((await again.reader.until((m) => m.id === "after"))?.message?.result).toBeDefined();
  });

  it("2025-11-25: a call refused for the stream limit leaves nothing behind (no server request waiting on the user)", async () => {
    const s = await openSession({ capabilities: ELICIT });
    const calls: Started[] = [];
    for (let i = 0; i < limits.maxStreamsPerSession; i++) calls.push(started(await startGreet(s.id, `full-${i}`)));
    // As many refused calls as the whole pending budget: if any of them had run, the budget would be gone.
    for (let i = 0; i < limits.maxPendingPerSession; i++) {
      await expectRpcError((await startGreet(s.id, `refused-${i}`)) as Response, 429, InvalidRequest, `refused-${i}`);
    }
    for (const c of calls.slice(0, 2)) {
      expect((await respond(s.id, c.ask.id!, { result: { action: "decline" } })).status).toBe(202);
      await c.reader.until((m) => m.id === c.callId);
      await c.reader.rest();
    }
    // Two new calls can wait on the user again.
    for (const id of ["new-1", "new-2"]) {
      const got = await until(async () => {
        const attempt = await startGreet(s.id, id);
        if (attempt instanceof Response && attempt.status === 429) {
          await attempt.body?.cancel();
          throw new Error("a just-closed pipe socket is still going");
        }
        return attempt;
      });
      started(got);
    }
  });

  it(`2025-11-25: over MAX_PENDING_PER_SESSION (${limits.maxPendingPerSession}) waiting server requests a new call fails with -32603, and every waiting call still completes`, async () => {
    const s = await openSession({ capabilities: ELICIT });
    const calls: Started[] = [];
    while (calls.length < limits.maxPendingPerSession) {
      const got = await until(async () => {
        const attempt = await startGreet(s.id, `pend-${calls.length}`);
        // The stream limit: the pipes of dropped streams are still closing.
        if (attempt instanceof Response) expect.fail(`${attempt.status} ${await attempt.text()}`);
        return attempt;
      });
      await got.reader.cancel(); // drop the stream; the call keeps waiting (2025: disconnect is not cancel)
      calls.push(got);
    }
    // The dropped streams' pipes close a moment later: until then the call may meet the stream limit (429) first.
    const over = await until(async () => {
      const res = await request(s.id, "tools/call", { name: "greet", arguments: {} }, { id: "over" });
      expect(res.status, "a dropped stream's pipe is still closing").not.toBe(429);
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      return (await res.json()) as RpcMessage;
    });
    expect(over).toMatchObject({ id: "over", error: { code: InternalError } });
    expect(over.error!.message).toMatch(/MAX_PENDING_PER_SESSION/);

    // The first and the last waiting calls complete (results fetched by Last-Event-ID, their streams were dropped).
    for (const c of [calls[0]!, calls.at(-1)!]) {
      expect((await respond(s.id, c.ask.id!, { result: { action: "accept", content: { name: c.callId } } })).status).toBe(202);
      const replay = sse(await getStream(s.id, c.askEventId));
      expect((await replay.until((m) => m.id === c.callId))?.message?.result.content[0].text).toBe(`Hello, ${c.callId}!`);
    }
    // With room in the budget again, a new call can wait on the user.
    started(await startGreet(s.id, "room-again"));
  });
});

// ── rate limits: one budget per client, and a 429 that answers the request ─

describe("rate limits", () => {
  const tight = (env as unknown as Record<string, unknown>).TEST_TIGHT_RATE_LIMIT;
  /** A /64 of its own for each test run (the limiter's counters outlive a test). */
  const freshPrefix = () => `2001:db8:${Array.from(crypto.getRandomValues(new Uint16Array(2)), (n) => n.toString(16)).join(":")}`;

  async function post(
    message: object,
    headers: Record<string, string>,
    address: string,
    limits: Record<string, unknown>,
  ): Promise<Response> {
    const ctx = createExecutionContext();
    const init = { method: "POST", headers: { ...headers, "CF-Connecting-IP": address }, body: JSON.stringify(message) };
    const res = await worker.fetch(new Request(MCP_URL, init), { ...env, ...limits } as never, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }
  const discover = (address: string, id: string | number = "d") => {
    const { message, headers } = buildModernRequest("server/discover", {}, { id });
    return post(message, headers, address, { MCP_RATE_LIMIT: tight });
  };

  it("every address of one IPv6 /64 spends the same request budget; another /64 has its own", async () => {
    await inOneLimiterWindow();
    const prefix = freshPrefix();
    // The tight limiter allows 3 a minute: three addresses of the /64 use it up, written every way IPv6 allows.
    for (const address of [`${prefix}::1`, `${prefix}:0:0:0:2`, `${prefix.toUpperCase()}::abcd:3`])
      expect((await discover(address)).status).toBe(200);
    const res = await discover(`${prefix}:ffff:ffff:ffff:ffff`, "over");
    await expectRpcError(res, 429, InvalidRequest, "over");
    expect((await discover(`${freshPrefix()}::1`)).status).toBe(200);
  });

  it(`2026-07-28: the addresses of one IPv6 /64 share one anonymous budget of MAX_TASKS_IN_FLIGHT (${limits.maxTasksInFlight}) tasks`, async () => {
    const tasks = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };
    const from = (address: string) => ({ capabilities: tasks, headers: { "CF-Connecting-IP": address } });
    const report = (address: string) =>
      modernPost("tools/call", { name: "prepare_report", arguments: { topic: "tides", pauseMs: 30_000 } }, from(address));
    const prefix = freshPrefix();
    const ids: string[] = [];
    for (let i = 1; i <= limits.maxTasksInFlight; i++)
      ids.push(((await (await report(`${prefix}::${i.toString(16)}`)).json()) as RpcMessage).result.taskId);
    expect(ids.every(Boolean)).toBe(true);
    expect((await expectRpcError(await report(`${prefix}:1:2:3:4`), 200, InternalError)).message).toMatch(/MAX_TASKS_IN_FLIGHT/);
    for (const taskId of ids) await modernResult("tasks/cancel", { taskId }, from(`${prefix}::1`));
  });

  it("an IPv4-mapped IPv6 address is its own client, not one /64 for every IPv4 client", async () => {
    await inOneLimiterWindow();
    for (let i = 0; i < 3; i++) expect((await discover(`::ffff:192.0.2.${i + 1}`)).status).toBe(200);
  });

  it("a 429 from MCP_RATE_LIMIT answers the request's id with Retry-After, and so does a malformed request over the limit", async () => {
    await inOneLimiterWindow();
    const address = `${freshPrefix()}::7`;
    for (let i = 0; i < 3; i++) expect((await discover(address)).status).toBe(200);
    const res = await discover(address, 42);
    expect(res.headers.get("Retry-After")).toBe("60");
    await expectRpcError(res, 429, InvalidRequest, 42);
    // A body the server cannot run still spends the budget, and its 429 carries the id it could read.
    const { headers } = buildModernRequest("server/discover", {});
    const bad = await post({ jsonrpc: "2.0", id: "bad", method: 7 }, headers, address, { MCP_RATE_LIMIT: tight });
    expect(bad.headers.get("Retry-After")).toBe("60");
    await expectRpcError(bad, 429, InvalidRequest, "bad");
  });

  it("a 429 from MCP_SESSION_RATE_LIMIT answers the initialize request's id, with Retry-After", async () => {
    await inOneLimiterWindow();
    const address = `${freshPrefix()}::8`;
    const init = (id: string) => post(initializeMessage({}, { id }), initializeHeaders(), address, { MCP_SESSION_RATE_LIMIT: tight });
    for (let i = 0; i < 3; i++) expect((await init(`init-${i}`)).status).toBe(200);
    const res = await init("init-over");
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    await expectRpcError(res, 429, InvalidRequest, "init-over");
  });
});

// ── names the client makes up, in the logs and the metrics ─────────────────

describe("client-chosen names in the logs", () => {
  const requestLines = () => logged.filter((l) => l.startsWith('{"mcp":"request"'));

  const forged = `forged\u2028{"mcp":"request","outcome":"result"}\u2029`;
  /** The request lines logged while `send` runs: exactly one, and what it says. */
  async function loggedFor(send: () => Promise<void>): Promise<{ line: string; name: string }> {
    const before = requestLines().length;
    await send();
    const lines = requestLines().slice(before);
    expect(lines).toHaveLength(1);
    return { line: lines[0]!, name: (JSON.parse(lines[0]!) as { name: string }).name };
  }
  const expectTamed = ({ line, name }: { line: string; name: string }) => {
    expect(line).not.toMatch(/[\u2028\u2029]/);
    expect(line).not.toContain("s3cr3t");
    expect(name.length).toBeLessThanOrEqual(129);
  };

  it.each([
    ["tools/call", { name: `${forged}${"n".repeat(4000)}`, arguments: {} }, "name"],
    ["resources/read", { uri: `info://about?token=s3cr3t-query-token#frag\u2028${"u".repeat(4000)}` }, "uri"],
    ["prompts/get", { name: `${forged}${"p".repeat(4000)}` }, "name"],
  ] as const)(
    "2026-07-28: an unknown name in %s is logged cut short and escaped, on one line, without its query",
    async (method, params, key) => {
      const entry = await loggedFor(async () => {
        const res = await modernPost(method, params, {
          id: "made-up",
          headers: { "Mcp-Name": base64Header(params[key as keyof typeof params] as string) },
        });
        expect(res.status).toBeLessThan(500);
        await res.body?.cancel();
      });
      expectTamed(entry);
    },
  );

  it.each([
    ["version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ["an all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"],
  ])("both lanes: a traceparent with %s is served and its trace id is not logged", async (_what, traceparent) => {
    const modern = await loggedFor(
      async () => void (await modernResult("tools/list", {}, { meta: { traceparent }, headers: { traceparent } })),
    );
    expect(JSON.parse(modern.line).traceId).toBeUndefined();
    const s = await openSession();
    const legacy = await loggedFor(
      async () => void expect((await call(s.id, "tools/list", { _meta: { traceparent } })).result).toBeDefined(),
    );
    expect(JSON.parse(legacy.line).traceId).toBeUndefined();
  });

  it("2025-11-25: a made-up tool name of 100,000 characters is logged cut short and escaped", async () => {
    const s = await openSession();
    const entry = await loggedFor(async () => {
      const answer = await call(s.id, "tools/call", { name: `${forged}${"x".repeat(100_000)}`, arguments: {} }, { id: "long" });
      expect(answer.error?.code).toBe(InvalidParams);
    });
    expectTamed(entry);
  });
});

// ── listen streams: a bound per client on their number and their filters ──

describe("2026-07-28 lane: listen streams per client", () => {
  const open: SseReader[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.cancel()));
    // Until the hub has seen the closes, so that no test (nor the teardown) meets a stream still going away.
    await until(async () => {
      const held = await Promise.all(hubShards().map((shard) => runInDurableObject(shard, (_i, state) => state.getWebSockets().length)));
      expect(held.every((n) => n === 0)).toBe(true);
    }).catch(() => {});
  });

  /** A listen request from `address`; its stream is kept open (and closed after the test) when it is served. */
  async function listenFrom(
    address: string,
    id: string,
    notifications: Record<string, unknown> = { toolsListChanged: true },
  ): Promise<Response | SseReader> {
    const res = await modernPost("subscriptions/listen", { notifications }, { id, headers: { "CF-Connecting-IP": address } });
    if (res.status !== 200) return res;
    const reader = new SseReader(res);
    open.push(reader);
    expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
    return reader;
  }
  /** Retries while a just-closed stream's socket is still going away (its slot frees when the hub sees the close). */
  async function listenSoon(address: string, id: string, notifications?: Record<string, unknown>): Promise<Response | SseReader> {
    for (let attempt = 0; ; attempt++) {
      const got = await listenFrom(address, id, notifications);
      if (got instanceof SseReader || attempt === 40) return got;
      await got.body?.cancel();
      await sleep(25);
    }
  }
  /** The largest filter one listen request may carry: 256 resource URIs of 2,048 bytes. */
  const largest = (tag: string) => ({
    resourceSubscriptions: Array.from({ length: 256 }, (_, i) => `units://${tag}-${i}/`.padEnd(2048, "u")),
  });

  it(`over MAX_LISTEN_STREAMS (${limits.maxListenStreams}) open streams a client's next listen is 429 with its id; other clients go on, and a closed stream frees its slot`, async () => {
    const address = "203.0.113.61";
    for (let i = 0; i < limits.maxListenStreams; i++) expect(await listenFrom(address, `cap-${i}`)).toBeInstanceOf(SseReader);
    const over = await listenFrom(address, "cap-over");
    expect(over).toBeInstanceOf(Response);
    const error = await expectRpcError(over as Response, 429, InvalidRequest, "cap-over");
    expect(error.message).toMatch(/MAX_LISTEN_STREAMS/);
    // Every address of an IPv6 /64 is the same client; another client has its own streams.
    expect(await listenFrom("203.0.113.62", "other")).toBeInstanceOf(SseReader);
    await open.shift()!.cancel();
    expect(await listenSoon(address, "cap-again")).toBeInstanceOf(SseReader);
  });

  /** A listen through the Worker with settings of its own; answers the HTTP status (a served stream stays open for the test). */
  async function listenWith(settings: Record<string, string>, id: string, extra: Record<string, string>): Promise<number> {
    const { message, headers } = buildModernRequest(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { id, headers: extra },
    );
    const res = await worker.fetch(
      new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }),
      { ...env, ...settings } as never,
      createExecutionContext(),
    );
    if (res.status === 200) {
      const reader = new SseReader(res);
      open.push(reader);
      expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
    } else await res.body?.cancel();
    return res.status;
  }

  it("an authenticated principal's listen streams count together, whatever address each comes from", async () => {
    const token = { AUTH_MODE: "token", MCP_AUTH_TOKEN: `token-${crypto.randomUUID()}`, MAX_LISTEN_STREAMS: "2" };
    const listen = (id: string, address: string) =>
      listenWith(token, id, { Authorization: `Bearer ${token.MCP_AUTH_TOKEN}`, "CF-Connecting-IP": address });
    expect([await listen("p-1", "192.0.2.10"), await listen("p-2", "192.0.2.11"), await listen("p-3", "192.0.2.12")]).toEqual([
      200, 200, 429,
    ]);
  });

  it("MAX_LISTEN_STREAMS moves the bound, and every stream of one client is held by one hub shard", async () => {
    const address = "203.0.113.64";
    const listen = (id: string) => listenWith({ MAX_LISTEN_STREAMS: "2" }, id, { "CF-Connecting-IP": address });
    expect([await listen("two-1"), await listen("two-2"), await listen("two-3")]).toEqual([200, 200, 429]);
    const place = await listenerPlace(env, `ip:${address}`);
    const perShard = await Promise.all(
      hubShards().map((shard) => runInDurableObject(shard, (_i, state) => state.getWebSockets(`client:${place.client}`).length)),
    );
    expect(perShard).toEqual(hubShards().map((_, i) => (i === place.shard ? 2 : 0)));
  });

  it("every address of an IPv6 /64 counts as one client for listen streams", async () => {
    for (let i = 0; i < limits.maxListenStreams; i++)
      expect(await listenFrom(`2001:db8:77:1::${(i + 1).toString(16)}`, `v6-${i}`)).toBeInstanceOf(SseReader);
    await expectRpcError((await listenFrom("2001:db8:77:1:ffff::1", "v6-over")) as Response, 429, InvalidRequest, "v6-over");
  });

  it(`filters past MAX_LISTEN_FILTER_BYTES (${limits.maxListenFilterBytes}) together are 429, one larger than it alone is 400, and the hub stores no more than the bound`, async () => {
    const address = "203.0.113.63";
    expect(await listenFrom(address, "big-1", largest("a"))).toBeInstanceOf(SseReader);
    const over = (await listenFrom(address, "big-2", largest("b"))) as Response;
    expect((await expectRpcError(over, 429, InvalidRequest, "big-2")).message).toMatch(/MAX_LISTEN_FILTER_BYTES/);
    // Small filters still fit beside the large one.
    expect(await listenFrom(address, "small", { toolsListChanged: true })).toBeInstanceOf(SseReader);
    const stored = await Promise.all(
      hubShards().map((shard) =>
        runInDurableObject(shard, (_i, state) => {
          const has = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'listen_filters'").toArray().length > 0;
          return has
            ? state.storage.sql.exec<{ n: number }>("SELECT COALESCE(SUM(LENGTH(filter)), 0) AS n FROM listen_filters").one().n
            : 0;
        }),
      ),
    );
    expect(Math.max(...stored)).toBeLessThanOrEqual(limits.maxListenFilterBytes);

    // With a lower setting, one filter larger than the whole budget can never fit: that is the request's fault.
    const { message, headers } = buildModernRequest("subscriptions/listen", { notifications: largest("c") }, { id: "too-big" });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }),
      { ...env, MAX_LISTEN_FILTER_BYTES: "65536" } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect((await expectRpcError(res, 400, InvalidParams, "too-big")).message).toMatch(/MAX_LISTEN_FILTER_BYTES/);
  });
});
