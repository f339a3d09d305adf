/**
 * Property-based fuzzing of the /mcp HTTP surface with fast-check, on both
 * lanes: arbitrary bodies (JSON values, JSON-RPC-ish objects with random
 * methods, params and ids, strings, raw bytes) and arbitrary header
 * combinations (protocol version, Mcp-Method, Mcp-Name, Mcp-Param-*,
 * session ids, Last-Event-ID, media types, HTTP methods).
 *
 * Properties: the status is never ≥ 500; a JSON answer is one well-formed
 * JSON-RPC response; an SSE answer carries only well-formed JSON-RPC
 * messages; 202 has an empty body; and afterwards normal calls still work.
 * The seed is fixed (and printed) so a failure reproduces; FUZZ_SEED is not
 * read from the environment because the tests run inside workerd.
 */
import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_URL, META, VERSION, base64Header, modernResult, type RpcMessage } from "../helpers/mcp";
import { LEGACY_VERSION, openSession, request, respond, result, sse, notify, cancelAllReaders } from "../helpers/legacy";

const SEED = 20260728;
const RUNS = 300;

beforeAll(() => {
  console.log(`fuzz: fast-check seed ${SEED}, ${RUNS} runs per property`);
});
afterAll(cancelAllReaders);

const ELICIT = { elicitation: {} };
const CONVERT = { name: "convert_temperature", arguments: { value: 100, from: "celsius" } };

// ── what a well-formed answer is ───────────────────────────────────────────

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isId = (x: unknown) => typeof x === "string" || (typeof x === "number" && Number.isSafeInteger(x));

/** One JSON-RPC response: id (null only for errors), exactly one of result (an object) and error. */
function checkResponse(m: unknown, where: string): void {
  expect(isObject(m), where).toBe(true);
  const r = m as Record<string, unknown>;
  expect(r.jsonrpc, where).toBe("2.0");
  expect("result" in r !== "error" in r, `${where}: exactly one of result and error`).toBe(true);
  if ("result" in r) {
    expect(isId(r.id), `${where}: result id`).toBe(true);
    expect(isObject(r.result), `${where}: result object`).toBe(true);
  } else {
    expect(r.id === null || isId(r.id), `${where}: error id`).toBe(true);
    const e = r.error as Record<string, unknown>;
    expect(isObject(e) && Number.isInteger(e.code) && typeof e.message === "string", `${where}: error object`).toBe(true);
  }
}

/** Any message a server may put on a stream: a notification, a (2025) server request, or a response. */
function checkStreamMessage(m: unknown, where: string): void {
  if (isObject(m) && "method" in m) {
    expect(m.jsonrpc, where).toBe("2.0");
    expect(typeof m.method, where).toBe("string");
    if ("params" in m) expect(isObject(m.params), where).toBe(true);
    if ("id" in m) expect(isId(m.id), where).toBe(true);
  } else checkResponse(m, where);
}

/** Reads a few events of an SSE answer (bounded), checks each, and drops the connection. */
async function checkSse(res: Response, where: string): Promise<RpcMessage[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 150;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const chunk = await Promise.race([reader.read(), new Promise<"t">((r) => (timer = setTimeout(() => r("t"), left)))]);
    if (timer !== undefined) clearTimeout(timer);
    if (chunk === "t" || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  const messages: RpcMessage[] = [];
  // Only whole events (followed by a blank line) are checked; the last one may have been cut by the cancel.
  for (const block of text.split(/\n\n/).slice(0, -1)) {
    const data = block
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (data === "") continue;
    const m = JSON.parse(data) as RpcMessage;
    checkStreamMessage(m, where);
    messages.push(m);
  }
  return messages;
}

/** Statuses seen per property, so a run that never got past the edge is noticed. */
let seen: Record<string, number> = {};
const saw = (key: string) => (seen[key] = (seen[key] ?? 0) + 1);

/** The property every answer meets; returns the SSE messages when the answer was a stream. */
async function checkAnswer(res: Response, method: string, where: string): Promise<RpcMessage[]> {
  saw(String(res.status));
  expect(res.status, where).toBeLessThan(500);
  const type = res.headers.get("Content-Type") ?? "";
  if (type.startsWith("text/event-stream")) {
    expect(res.status, where).toBe(200);
    return checkSse(res, where);
  }
  const text = await res.text();
  if (res.status === 202) expect(text, where).toBe("");
  else if (type.startsWith("application/json") && method !== "HEAD") {
    const m = JSON.parse(text) as RpcMessage;
    checkResponse(m, `${where} → ${text.slice(0, 300)}`);
    if (m.result) saw("result");
  } else if (method === "OPTIONS" || method === "HEAD" || (method === "DELETE" && res.status === 200)) expect(text, where).toBe("");
  else expect.fail(`${where}: unexpected ${res.status} ${type}: ${text.slice(0, 200)}`);
  return [];
}

// ── generators ─────────────────────────────────────────────────────────────

const printable = fc.string({
  unit: fc.constantFrom(..." !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~\t".split("")),
  maxLength: 40,
});
const anyId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
  fc.double(),
  fc.jsonValue({ maxDepth: 1 }),
  fc.string({ minLength: 250, maxLength: 300 }),
);
// countdown sleeps and subscriptions/listen never ends: left out to keep runs short.
const TOOL_NAMES = ["convert_temperature", "roll_dice", "greet", "no_such_tool", "__proto__", "constructor"];
const MODERN_METHODS = [
  "tools/call",
  "tools/list",
  "prompts/get",
  "prompts/list",
  "resources/read",
  "resources/list",
  "resources/templates/list",
  "completion/complete",
  "server/discover",
  "initialize",
  "ping",
];
const LEGACY_METHODS = [
  ...MODERN_METHODS.filter((m) => m !== "server/discover"),
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/initialized",
  "notifications/cancelled",
];

/** Usually `good`, sometimes one of the `bad` values: most messages get past the edge, some do not. */
const mostly = <T, U>(good: fc.Arbitrary<T>, ...bad: fc.Arbitrary<U>[]) =>
  fc.oneof(
    { arbitrary: good as fc.Arbitrary<T | U>, weight: 12 * Math.max(1, bad.length) },
    ...bad.map((b) => ({ arbitrary: b as fc.Arbitrary<T | U>, weight: 1 })),
  );

const validMeta = fc.record(
  {
    [META.protocolVersion]: mostly(fc.constant(VERSION), fc.constantFrom("2025-11-25", "1.0", "")),
    [META.clientCapabilities]: mostly(fc.constantFrom({}, ELICIT, { elicitation: { url: {} } }), fc.jsonValue({ maxDepth: 1 })),
    [META.logLevel]: mostly(fc.constantFrom("info", "debug"), fc.constant("shout")),
    progressToken: mostly(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), fc.double()),
  },
  { requiredKeys: [META.protocolVersion, META.clientCapabilities] },
);

/** Params for the modern lane (with the _meta envelope) or the session lane (no envelope: at most a progressToken). */
const paramsWith = (meta: fc.Arbitrary<unknown>) =>
  fc.record(
    {
      name: mostly(fc.constantFrom(...TOOL_NAMES, "explain_unit"), fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })),
      uri: mostly(fc.constantFrom("info://about", "units://kelvin", "units://nope"), fc.string({ maxLength: 20 })),
      arguments: mostly(
        fc.constantFrom({ value: 1, from: "kelvin" }, { unit: "kelvin" }, {}, { sides: 6, count: 2 }),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      _meta: meta,
      requestState: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 1 })),
      inputResponses: fc.oneof(fc.constant({ who: { action: "accept", content: { name: "Fuzz" } } }), fc.jsonValue({ maxDepth: 3 })),
      cursor: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
      level: fc.constantFrom("debug", "error", "nope", 3),
      requestId: anyId,
      notifications: fc.jsonValue({ maxDepth: 2 }),
      ref: fc.oneof(fc.constant({ type: "ref/prompt", name: "explain_unit" }), fc.jsonValue({ maxDepth: 2 })),
      argument: fc.oneof(fc.constant({ name: "unit", value: "k" }), fc.jsonValue({ maxDepth: 2 })),
    },
    { requiredKeys: ["_meta"] },
  );
const MODERN_PARAMS = paramsWith(mostly(validMeta, fc.jsonValue({ maxDepth: 2 })));
const LEGACY_PARAMS = paramsWith(
  mostly(
    fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()) }, { requiredKeys: [] }),
    validMeta,
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

/** A JSON-RPC-ish message: mostly well-formed, with any member sometimes missing or of the wrong type. */
const MISSING: unknown = Symbol("missing");
const withoutMissing = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== MISSING));
const rpcish = (methods: string[], params: fc.Arbitrary<unknown>) =>
  fc
    .record({
      jsonrpc: mostly(fc.constant("2.0"), fc.jsonValue({ maxDepth: 0 }), fc.constant(MISSING)),
      id: mostly(fc.oneof(fc.integer(), fc.string({ maxLength: 12 })), anyId, fc.constant(MISSING)),
      method: mostly(fc.constantFrom(...methods), fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 }), fc.constant(MISSING)),
      params: mostly(params, fc.jsonValue({ maxDepth: 2 }), fc.constant(MISSING)),
    })
    .map(withoutMissing);

/** A JSON-RPC response (an answer to a server request), sometimes malformed. */
const rpcResponse = fc.record(
  {
    jsonrpc: mostly(fc.constant("2.0"), fc.jsonValue({ maxDepth: 0 })),
    id: fc.oneof(
      fc.integer({ min: 1, max: 40 }).map((n) => `s${n.toString(36)}`),
      anyId,
    ),
    result: fc.oneof(
      fc.constant({ action: "accept", content: { name: "Fuzz" } }),
      fc.constant({ action: "maybe" }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string({ maxLength: 10 }) }), fc.jsonValue({ maxDepth: 2 })),
  },
  { requiredKeys: ["jsonrpc", "id"] },
);

/** A body: a JSON-RPC-ish message or response, a random JSON value, a random string, or random bytes. */
const body = (methods: string[], params: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { arbitrary: rpcish(methods, params).map((o) => ({ text: JSON.stringify(o), message: o as Record<string, unknown> })), weight: 12 },
    { arbitrary: rpcResponse.map((o) => ({ text: JSON.stringify(o), message: o as Record<string, unknown> })), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ text: JSON.stringify(v) ?? "null", message: undefined })), weight: 2 },
    { arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((text) => ({ text, message: undefined })), weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: bytes, message: undefined })), weight: 1 },
  );

/** Mirrors the body's method and name in headers when they can be headers, as a client would. */
function mirrored(message: Record<string, unknown> | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  const plain = (x: unknown) => typeof x === "string" && /^[\x21-\x7e]*$/.test(x) && x.length < 200;
  const method = message?.method;
  h["Mcp-Method"] = plain(method) ? (method as string) : "tools/call";
  const p = isObject(message?.params) ? message!.params : {};
  const name = method === "resources/read" ? p.uri : p.name;
  if (plain(name)) h["Mcp-Name"] = name as string;
  else if (typeof name === "string") h["Mcp-Name"] = base64Header(name);
  return h;
}

const post = (headers: Record<string, string>, b: string | Uint8Array) => SELF.fetch(MCP_URL, { method: "POST", headers, body: b });
const BASE = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

// ── afterwards ─────────────────────────────────────────────────────────────

async function expectModernHealthy(): Promise<void> {
  expect((await modernResult("tools/call", CONVERT)).structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
}

/** A session answers ping and tools/call, and a call that asks the user completes with the answer. */
async function expectSessionHealthy(sessionId: string): Promise<void> {
  expect(await result(sessionId, "ping")).toEqual({});
  expect((await result(sessionId, "tools/call", CONVERT)).structuredContent.kelvin).toBe(373.15);
  const reader = sse(await request(sessionId, "tools/call", { name: "greet", arguments: {} }, { id: "after-fuzz" }));
  const ask = await reader.until((m) => m.method === "elicitation/create");
  expect((await respond(sessionId, ask!.message!.id!, { result: { action: "accept", content: { name: "Ada" } } })).status).toBe(202);
  expect((await reader.until((m) => m.id === "after-fuzz"))?.message?.result.content[0].text).toBe("Hello, Ada!");
}

// ── properties ─────────────────────────────────────────────────────────────

/** Runs a property with the fixed seed, then reports what it reached and checks it got past the edge. */
async function run<T extends unknown[]>(label: string, property: fc.IAsyncPropertyWithHooks<T>, mustSee: string[]): Promise<void> {
  seen = {};
  await fc.assert(property, { seed: SEED, numRuns: RUNS });
  console.log(`fuzz ${label}: ${JSON.stringify(seen)}`);
  for (const key of mustSee) expect(seen[key] ?? 0, `${label} never produced ${key}: ${JSON.stringify(seen)}`).toBeGreaterThan(0);
}

describe("fuzz", () => {
  it(`2026-07-28: arbitrary bodies with mirrored headers never get a 5xx, and every answer is well-formed JSON-RPC (${RUNS} runs)`, async () => {
    await run(
      "modern bodies",
      fc.asyncProperty(body(MODERN_METHODS, MODERN_PARAMS), async ({ text, message }) => {
        const res = await post({ ...BASE, "MCP-Protocol-Version": VERSION, ...mirrored(message) }, text);
        await checkAnswer(res, "POST", `modern body ${typeof text === "string" ? text.slice(0, 200) : `bytes[${text.length}]`}`);
      }),
      ["200", "result", "400", "404"],
    );
    await expectModernHealthy();
  });

  it(`2025-11-25: arbitrary bodies inside a session never get a 5xx, every answer is well-formed, and the session still works (${RUNS} runs)`, async () => {
    const s = await openSession({ capabilities: ELICIT });
    const streamed: (string | number)[] = [];
    await run(
      "legacy bodies",
      fc.asyncProperty(body(LEGACY_METHODS, LEGACY_PARAMS), fc.boolean(), async ({ text, message }, withVersion) => {
        const headers: Record<string, string> = {
          ...BASE,
          "Mcp-Session-Id": s.id,
          ...(withVersion ? { "MCP-Protocol-Version": LEGACY_VERSION } : {}),
        };
        const res = await post(headers, text);
        const onStream = await checkAnswer(
          res,
          "POST",
          `legacy body ${typeof text === "string" ? text.slice(0, 200) : `bytes[${text.length}]`}`,
        );
        if (onStream.length > 0 && isId(message?.id)) streamed.push(message!.id as string | number);
      }),
      ["200", "result", "202", "400"],
    );
    // Calls the fuzz left waiting on the user are cancelled, as a client would, so the check below has room.
    for (const requestId of streamed) expect((await notify(s.id, "notifications/cancelled", { requestId })).status).toBe(202);
    await expectSessionHealthy(s.id);
    await expectModernHealthy();
  });

  it(`both lanes: arbitrary header combinations and HTTP methods never get a 5xx, and every answer is well-formed (${RUNS} runs)`, async () => {
    const victim = await openSession({ capabilities: ELICIT });
    const modernBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { ...CONVERT, _meta: { [META.protocolVersion]: VERSION, [META.clientCapabilities]: {} } },
    });
    const legacyBody = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: CONVERT });
    const pingBody = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
    // Each header: usually a value a real client sends, sometimes absent, sometimes garbage.
    const header = <T>(good: fc.Arbitrary<T>, ...bad: fc.Arbitrary<T>[]) =>
      fc.oneof(
        { arbitrary: good as fc.Arbitrary<T | undefined>, weight: 6 },
        { arbitrary: fc.constant(undefined), weight: 1 },
        ...bad.map((b) => ({ arbitrary: b as fc.Arbitrary<T | undefined>, weight: 1 })),
      );
    const rarely = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb as fc.Arbitrary<T | undefined>, weight: 1 });
    const headerSet = fc.record(
      {
        "MCP-Protocol-Version": header(
          fc.constantFrom(VERSION, LEGACY_VERSION),
          fc.constantFrom("2025-06-18", "2025-03-26", "", " 2026-07-28 "),
          printable,
        ),
        "Mcp-Method": header(
          fc.constant("tools/call"),
          fc.constantFrom("TOOLS/CALL", "ping", base64Header("tools/call"), "=?base64?%%%?="),
          printable,
        ),
        "Mcp-Name": header(
          fc.constantFrom("convert_temperature", base64Header("convert_temperature"), " convert_temperature "),
          fc.constantFrom("=?base64?!!?=", "n".repeat(9000)),
          printable,
        ),
        "Mcp-Param-Unit": rarely(printable),
        "Mcp-Session-Id": header(fc.constant(victim.id), fc.constant("A".repeat(43)), printable),
        "Last-Event-ID": rarely(fc.oneof(fc.constantFrom("p1-0", "g1-0", "p2-1", "0"), printable)),
        "Content-Type": header(
          fc.constantFrom("application/json", "application/json; charset=utf-8", "APPLICATION/JSON"),
          fc.constantFrom("text/plain", ""),
        ),
        Accept: header(
          fc.constantFrom("application/json, text/event-stream", "*/*", "text/*, application/*"),
          fc.constantFrom("application/json", "text/event-stream", ""),
        ),
        Origin: rarely(fc.constantFrom("http://localhost", "https://evil.example", "null", "not a url")),
        Authorization: rarely(printable),
      },
      { requiredKeys: [] },
    );
    await run(
      "headers",
      fc.asyncProperty(
        fc.constantFrom("POST", "POST", "POST", "POST", "GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"),
        headerSet,
        fc.constantFrom(modernBody, legacyBody, pingBody),
        async (method, headers, b) => {
          const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
          const res = await SELF.fetch(MCP_URL, { method, headers: clean, body: method === "GET" || method === "HEAD" ? null : b });
          await checkAnswer(res, method, `${method} ${JSON.stringify(clean).slice(0, 400)} ${b.slice(0, 60)}`);
        },
      ),
      ["result", "400", "403", "405", "406", "415"],
    );
    await expectModernHealthy();
    const fresh = await openSession({ capabilities: ELICIT });
    await expectSessionHealthy(fresh.id);
  });
});
