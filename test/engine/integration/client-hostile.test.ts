/**
 * The client against servers that are hostile or broken (src/engine/client/limits.ts): none of them can
 * make it buffer without end, follow pages for ever, spin on a schema, ask the app thousands of
 * questions, lose an answer's key, or reconnect in a tight loop. Each server is played by the test.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, McpClientError, type Fetch } from "../../../src/engine/client";
import { json, recording, scripted, type Sent } from "../helpers/client";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const URL_ = "http://hostile.test/mcp";
const encoder = new TextEncoder();
const complete = { resultType: "complete", ttlMs: 0, cacheScope: "public" };
const discover = { ...complete, supportedVersions: [MODERN], capabilities: { tools: {} } };
const initialize = { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } };
const sse = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { "Content-Type": "text/event-stream", ...headers } });

/** A 2026-07-28 server whose tools/call answers with `call`. */
const modernServer = (call: (m: Sent) => unknown, tools: unknown[] = [{ name: "t", inputSchema: { type: "object" } }]) =>
  scripted((m) => (m.method === "server/discover" ? discover : m.method === "tools/list" ? { ...complete, tools } : call(m)));

describe("client against a hostile server: size", () => {
  it("refuses an SSE event larger than limits.maxMessageBytes, which would otherwise be read whole", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const fetch = modernServer((m) =>
      sse(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { ...complete, content: [{ type: "text", text: big }] } })}\n\n`),
    );
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN, limits: { maxMessageBytes: 1024 * 1024 } });
    await expect(client.callTool("t")).rejects.toThrow(/larger than 1048576 bytes \(limits\.maxMessageBytes\)/);
  });

  it("stops reading an event that never ends once it passes the limit, and closes the stream", async () => {
    let sent = 0;
    let cancelled = false;
    const chunk = encoder.encode("x".repeat(64 * 1024));
    const fetch = modernServer(() =>
      sse(
        new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(encoder.encode("data: ")),
          pull: (c) => {
            sent += chunk.length;
            c.enqueue(chunk);
          },
          cancel: () => void (cancelled = true),
        }),
      ),
    );
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN, limits: { maxMessageBytes: 1024 * 1024 } });
    await expect(client.callTool("t")).rejects.toThrow(/limits\.maxMessageBytes/);
    expect(cancelled).toBe(true);
    // What the server pushed before the client stopped: the limit, and what the stream's queue held ahead.
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });

  it("refuses a JSON body larger than the limit", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const fetch = modernServer((m) => json({ jsonrpc: "2.0", id: m.id, result: { ...complete, content: [{ type: "text", text: big }] } }));
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN, limits: { maxMessageBytes: 1024 * 1024 } });
    await expect(client.callTool("t")).rejects.toThrow(/larger than 1048576 bytes/);
  });

  it("reads events split anywhere across chunks, CRLF included, the same as whole", async () => {
    const text = `: hi\r\nid: 1\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"é"}}\r\n\r\ndata: {"jsonrpc":"2.0","id":ID,"result":{"resultType":"complete","content":[{"type":"text","text":"ünï"}]}}\r\n\r\n`;
    const logs: unknown[] = [];
    const fetch = modernServer((m) => {
      const bytes = encoder.encode(text.replace("ID", String(m.id)));
      // One byte at a time: every CR, LF and UTF-8 sequence is split somewhere.
      let i = 0;
      return sse(new ReadableStream<Uint8Array>({ pull: (c) => (i < bytes.length ? c.enqueue(bytes.slice(i, ++i)) : c.close()) }));
    });
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN });
    const result = await client.callTool("t", {}, { onLog: (l) => logs.push(l.data) });
    expect(result.content).toEqual([{ type: "text", text: "ünï" }]);
    expect(logs).toEqual(["é"]);
  });
});

describe("client against a hostile server: pages", () => {
  /** tools/list with a new cursor on every page (until the guard stops a client that would go on). */
  function endless(next: (cursor: string | undefined) => string) {
    const pages: (string | undefined)[] = [];
    const fetch = scripted((m) => {
      if (m.method === "server/discover") return discover;
      if (m.method === "tools/call") return { ...complete, content: [] };
      const cursor = m.params?.cursor as string | undefined;
      pages.push(cursor);
      if (pages.length > 1000) return new Response("the test's guard", { status: 500 });
      return { ...complete, tools: [{ name: `tool-${pages.length}`, inputSchema: { type: "object" } }], nextCursor: next(cursor) };
    });
    return { fetch, pages };
  }

  it("listAllTools follows at most limits.maxListPages pages, then throws", async () => {
    const { fetch, pages } = endless((c) => String(Number(c ?? 0) + 1));
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN });
    await expect(client.listAllTools()).rejects.toThrow(/past 100 pages \(limits\.maxListPages\)/);
    expect(pages).toHaveLength(100);
    const small = await McpClient.connect(URL_, { fetch, protocol: MODERN, limits: { maxListPages: 3 } });
    pages.length = 0;
    await expect(small.listAllTools()).rejects.toThrow(McpClientError);
    expect(pages).toHaveLength(3);
  });

  it("a cursor the server gave before ends the listing with the tools seen", async () => {
    const { fetch, pages } = endless((c) => (c === "a" ? "b" : "a"));
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN });
    const tools = await client.listAllTools();
    expect(pages).toEqual([undefined, "a", "b"]);
    expect(tools.map((t) => t.name)).toEqual(["tool-1", "tool-2", "tool-3"]);
  });

  it("calling a tool no page lists costs at most limits.maxListPages pages, and the call is still made", async () => {
    const { fetch, pages } = endless((c) => String(Number(c ?? 0) + 1));
    const { fetch: recorded, sent } = recording(fetch);
    const client = await McpClient.connect(URL_, { fetch: recorded, protocol: MODERN, limits: { maxListPages: 5 } });
    await client.callTool("unlisted");
    expect(pages).toHaveLength(5);
    expect(sent.filter((m) => m.method === "tools/call")).toHaveLength(1);
  });
});

describe("client against a hostile server: outputSchema", () => {
  const withSchema = (schema: unknown, out: unknown) =>
    modernServer(
      () => ({ ...complete, content: [], structuredContent: out }),
      [{ name: "t", inputSchema: { type: "object" }, outputSchema: schema }],
    );

  it("a pattern that backtracks without end is not judged: the result passes", async () => {
    // ^(a+)+$ against 26 a's and a "!": 2^26 backtracking steps, seconds of a Worker's CPU.
    const fetch = withSchema({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } }, { s: `${"a".repeat(26)}!` });
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN });
    await client.listTools();
    await expect(client.callTool("t")).resolves.toMatchObject({ structuredContent: { s: expect.any(String) } });
  });

  it("a safe pattern is still judged", async () => {
    const fetch = withSchema({ type: "object", properties: { s: { type: "string", pattern: "^[a-z]+$" } } }, { s: "A1" });
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN });
    await client.listTools();
    await expect(client.callTool("t")).rejects.toThrow(/does not match/);
  });

  for (const [label, schema] of [
    ["a $ref to itself", { $ref: "#" }],
    ["not of a $ref to itself", { not: { $ref: "#" } }],
    ["a chain of $refs", { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } } }],
  ] as const) {
    it(`${label} is a schema it cannot judge: the result passes, no RangeError`, async () => {
      const client = await McpClient.connect(URL_, { fetch: withSchema(schema, { x: 1 }), protocol: MODERN });
      await client.listTools();
      await expect(client.callTool("t")).resolves.toMatchObject({ structuredContent: { x: 1 } });
    });
  }
});

describe("client against a hostile server: input rounds", () => {
  it("a round of 5,000 questions is refused before the app's handler is asked once", async () => {
    let asked = 0;
    const inputRequests = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [
        `q${i}`,
        { method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } },
      ]),
    );
    const fetch = modernServer(() => ({ resultType: "input_required", inputRequests }));
    const client = await McpClient.connect(URL_, {
      fetch,
      protocol: MODERN,
      handlers: { elicitation: () => (asked++, { action: "decline" }) },
    });
    await expect(client.callTool("t")).rejects.toThrow(
      /5000 questions in one input round; the client answers at most 16 \(limits\.maxInputRequests\)/,
    );
    expect(asked).toBe(0);
  });

  it('a question keyed "__proto__" is answered under that key in the retry', async () => {
    const bodies: string[] = [];
    const fetch: Fetch = async (input, init) => {
      const request = new Request(input, init);
      const text = await request.text();
      const m = JSON.parse(text) as Sent;
      if (m.method === "server/discover") return json({ jsonrpc: "2.0", id: m.id, result: discover });
      if (m.method === "tools/list") return json({ jsonrpc: "2.0", id: m.id, result: { ...complete, tools: [] } });
      bodies.push(text);
      if (bodies.length === 1) {
        // Written by hand: an object literal's "__proto__" would set a prototype, not a key.
        const ask = `{"__proto__":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}`;
        return new Response(`{"jsonrpc":"2.0","id":${m.id},"result":{"resultType":"input_required","inputRequests":${ask}}}`, {
          headers: { "Content-Type": "application/json" },
        });
      }
      return json({ jsonrpc: "2.0", id: m.id, result: { ...complete, content: [] } });
    };
    const client = await McpClient.connect(URL_, { fetch, protocol: MODERN, handlers: { elicitation: () => ({ action: "decline" }) } });
    await client.callTool("t");
    const retry = JSON.parse(bodies[1]!) as { params: { inputResponses: Record<string, unknown> } };
    expect(Object.hasOwn(retry.params.inputResponses, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(retry.params.inputResponses, "__proto__")?.value).toEqual({ action: "decline" });
  });
});

describe("client against a hostile server: 2025-11-25 reconnections", () => {
  /** A session whose GET stream says `retry: 0` and closes at once, every time. */
  function closingStream() {
    let gets = 0;
    const posts = scripted((m) => (m.method === "initialize" ? initialize : {}));
    const fetch: Fetch = async (input, init) => {
      if ((init?.method ?? "GET") !== "GET") return posts(input, init);
      gets++;
      return sse("retry: 0\n\n");
    };
    return { fetch, gets: () => gets };
  }

  it("a GET stream that closes at once with retry: 0 is reopened no sooner than limits.minRetryMs, backing off", async () => {
    // The client and its scripted server run in this isolate: its timers and clock are the test's to drive.
    vi.useFakeTimers();
    const { fetch, gets } = closingStream();
    const client = await McpClient.connect(URL_, { fetch, protocol: LEGACY });
    try {
      await vi.advanceTimersByTimeAsync(2000);
      // 500 ms floor doubling on each empty reconnection: 0, 1 s, 2 s in the first two seconds (was 490–820).
      expect(gets()).toBeGreaterThanOrEqual(2);
      expect(gets()).toBeLessThanOrEqual(3);
    } finally {
      await client.close();
      vi.useRealTimers();
    }
  });

  it("gives the GET stream up after limits.maxReconnects empty reconnections in a row", async () => {
    vi.useFakeTimers();
    const { fetch, gets } = closingStream();
    const client = await McpClient.connect(URL_, { fetch, protocol: LEGACY, limits: { minRetryMs: 1, maxReconnects: 3 } });
    try {
      await expect(client.listen({})).resolves.toBeDefined();
      // A minute on the client's clock, every backoff timer fired: no fifth GET.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(gets()).toBe(4);
    } finally {
      await client.close();
      vi.useRealTimers();
    }
  });

  it("an answer whose connection is reset mid-call is resumed with GET and Last-Event-ID", async () => {
    const resumes: (string | null)[] = [];
    let callId: unknown;
    const posts = scripted((m) => {
      if (m.method === "initialize") return initialize;
      if (m.method !== "tools/call") return {};
      callId = m.id;
      const progress = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } };
      return sse(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(encoder.encode(`retry: 10\nid: e1\ndata: ${JSON.stringify(progress)}\n\n`));
            // The network drops the connection: undici's body read fails with "terminated".
            setTimeout(() => c.error(new TypeError("terminated")), 5);
          },
        }),
      );
    });
    const fetch: Fetch = async (input, init) => {
      if ((init?.method ?? "GET") !== "GET") return posts(input, init);
      const headers = new Headers(init?.headers);
      resumes.push(headers.get("last-event-id"));
      if (!headers.get("last-event-id")) return new Response(null, { status: 405 });
      return sse(
        `id: e2\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [{ type: "text", text: "resumed" }] } })}\n\n`,
      );
    };
    const client = await McpClient.connect(URL_, { fetch, protocol: LEGACY, sessionStream: false, limits: { minRetryMs: 1 } });
    await expect(client.callTool("t")).resolves.toMatchObject({ content: [{ type: "text", text: "resumed" }] });
    expect(resumes).toEqual(["e1"]);
  });
});
