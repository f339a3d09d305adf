/**
 * The 2026-07-28 Streamable HTTP transport around the ladder: message shape,
 * media types, body size, HTTP methods, notifications, session/resumption
 * headers, and the Host/Origin/CORS gate.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MCP_URL, VERSION, buildModernRequest, expectRpcError, modernPost } from "../helpers/mcp";

const ParseError = -32700;
const InvalidRequest = -32600;

/** A valid modern tools/list POST, with its headers overridable. */
function rawPost(body: string, headers: Record<string, string | null> = {}, url = MCP_URL): Promise<Response> {
  const { headers: base } = buildModernRequest("tools/list", {}, { headers });
  return SELF.fetch(url, { method: "POST", headers: base, body });
}

describe("message shape", () => {
  it("2026-07-28: a JSON array (batch) is rejected with 400 -32600", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify([message]));
    await expectRpcError(res, 400, InvalidRequest, null);
  });

  it("2026-07-28: a body that is not JSON is rejected with 400 -32700 and id null", async () => {
    const res = await rawPost('{"jsonrpc":"2.0","id":1,');
    await expectRpcError(res, 400, ParseError, null);
  });

  it("2026-07-28: a body that is not valid UTF-8 is rejected with 400 -32700", async () => {
    const { headers } = buildModernRequest("tools/list");
    const res = await SELF.fetch(MCP_URL, { method: "POST", headers, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    await expectRpcError(res, 400, ParseError, null);
  });

  it("2026-07-28: a request with a null id is rejected with 400 -32600", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify({ ...message, id: null }));
    await expectRpcError(res, 400, InvalidRequest);
  });

  it("2026-07-28: a JSON-RPC message with a wrong jsonrpc version is rejected with 400 -32600 echoing its id", async () => {
    const { message } = buildModernRequest("tools/list", {}, { id: 71 });
    const res = await rawPost(JSON.stringify({ ...message, jsonrpc: "1.0" }));
    await expectRpcError(res, 400, InvalidRequest, 71);
  });
});

describe("params keys that name a prototype", () => {
  // JSON.parse makes "__proto__" an own key; copied naively, it would become the params' prototype
  // and lend them members the client never sent (here a cursor, which this server would refuse).
  it("2026-07-28: a __proto__ member of params is dropped, never read through", async () => {
    const { message } = buildModernRequest("tools/list");
    const text = (extra: string) => JSON.stringify(message).replace('"params":{', `"params":{${extra},`);
    const own = await rawPost(text('"cursor":"not-a-cursor"'));
    await expectRpcError(own, 200, -32602);
    const res = await rawPost(text('"__proto__":{"cursor":"not-a-cursor"}'));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });
});

describe("media types and size", () => {
  it("2026-07-28: a Content-Type other than application/json is rejected with 415", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify(message), { "Content-Type": "text/plain" });
    expect(res.status).toBe(415);
    await res.body?.cancel();
  });

  it("2026-07-28: application/json with a charset parameter is accepted", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify(message), { "Content-Type": "application/json; charset=utf-8" });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  // Hosted clients send these; STRICT_HEADERS=on refuses them with 406 (test/engine/integration/hosted-quirks.test.ts).
  it("2026-07-28: an Accept header without text/event-stream is answered with JSON", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify(message), { Accept: "application/json" });
    expect([res.status, res.headers.get("Content-Type")]).toEqual([200, "application/json"]);
    await res.body?.cancel();
  });

  it("2026-07-28: an Accept header without application/json is answered with one SSE event", async () => {
    const { message } = buildModernRequest("tools/list");
    const res = await rawPost(JSON.stringify(message), { Accept: "text/event-stream" });
    expect([res.status, res.headers.get("Content-Type")]).toEqual([200, "text/event-stream"]);
    expect(await res.text()).toMatch(/^event: message\ndata: \{"jsonrpc":"2.0".*"result":.*\n\n$/s);
  });

  it("2026-07-28: a body over MAX_BODY_BYTES is rejected with 413", async () => {
    // wrangler.toml sets MAX_BODY_BYTES = 1048576; the padding makes the body larger but still valid JSON.
    const { message } = buildModernRequest("tools/list");
    const body = JSON.stringify({ ...message, params: { ...(message.params as object), padding: "x".repeat(1024 * 1024 + 1) } });
    const res = await rawPost(body);
    expect(res.status).toBe(413);
    await res.body?.cancel();
  });

  it("2026-07-28: a streamed body over MAX_BODY_BYTES without Content-Length is rejected with 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const { headers } = buildModernRequest("tools/list");
    const res = await SELF.fetch(MCP_URL, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    await res.body?.cancel();
  });
});

describe("HTTP methods and notifications", () => {
  for (const method of ["GET", "DELETE"]) {
    // 2026-07-28 is POST-only; on this dual-era endpoint GET/DELETE belong to 2025 sessions,
    // so a 2026 client (no session) is refused and never gets a stream or a session.
    it(`2026-07-28: ${method} from a 2026 client (no session) is refused with 4xx and opens no stream`, async () => {
      const res = await SELF.fetch(MCP_URL, {
        method,
        headers: { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": VERSION },
      });
      expect([400, 405]).toContain(res.status);
      expect(res.headers.get("Content-Type") ?? "").not.toMatch(/event-stream/);
      expect(res.headers.get("Mcp-Session-Id")).toBeNull();
      await res.body?.cancel();
    });
  }

  for (const method of ["PUT", "PATCH"]) {
    it(`2026-07-28: ${method} on /mcp is answered 405 with an Allow header listing POST`, async () => {
      const res = await SELF.fetch(MCP_URL, { method, headers: { "MCP-Protocol-Version": VERSION }, body: "{}" });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow") ?? "").toMatch(/\bPOST\b/);
      await res.body?.cancel();
    });
  }

  it("2026-07-28: a notification is accepted with 202 and an empty body", async () => {
    const res = await modernPost("notifications/cancelled", { requestId: 1, reason: "test" }, { id: null, meta: null });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("2026-07-28: paths other than /mcp are a plain 404 that names the endpoint, not a JSON-RPC error", async () => {
    const res = await modernPost("tools/list", {}, { url: "http://localhost/other" });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/\/mcp/);
    const favicon = await SELF.fetch("http://localhost/favicon.ico");
    expect(favicon.status).toBe(404);
    expect(await favicon.text()).not.toMatch(/jsonrpc/);
  });
});

describe("no sessions, no resumption", () => {
  it("2026-07-28: Mcp-Session-Id on a request is ignored and never echoed", async () => {
    const res = await modernPost("tools/list", {}, { headers: { "Mcp-Session-Id": "some-old-session" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThan(0);
  });

  it("2026-07-28: Last-Event-ID on a request is ignored", async () => {
    const res = await modernPost("tools/list", {}, { headers: { "Last-Event-ID": "42" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThan(0);
  });

  it("2026-07-28: no response ever mints a session id, not even an SSE one", async () => {
    const res = await modernPost("tools/call", { name: "countdown", arguments: { from: 1 } }, { meta: { progressToken: "t" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    const text = await res.text();
    // SSE event ids were removed in 2026-07-28.
    expect(text).not.toMatch(/^id:/m);
  });
});

describe("Host, Origin and CORS", () => {
  it("2026-07-28: a foreign Host is rejected with 403 (DNS-rebinding protection)", async () => {
    const res = await modernPost("tools/list", {}, { url: "http://evil.example/mcp" });
    expect(res.status).toBe(403);
    await res.body?.cancel();
  });

  it("2026-07-28: a foreign Host header on a localhost URL is rejected with 403", async () => {
    const res = await modernPost("tools/list", {}, { headers: { Host: "evil.example" } });
    expect(res.status).toBe(403);
    await res.body?.cancel();
  });

  it("2026-07-28: a foreign Origin is rejected with 403", async () => {
    const res = await modernPost("tools/list", {}, { headers: { Origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    await res.body?.cancel();
  });

  it("2026-07-28: an Origin that only prefixes an allowed host (localhost.evil.example) is rejected with 403", async () => {
    const res = await modernPost("tools/list", {}, { headers: { Origin: "http://localhost.evil.example" } });
    expect(res.status).toBe(403);
    await res.body?.cancel();
  });

  it("2026-07-28: an allowed Origin is served with CORS headers exposing Mcp-Session-Id", async () => {
    const origin = "http://localhost:5173";
    const res = await modernPost("tools/list", {}, { headers: { Origin: origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(res.headers.get("Access-Control-Expose-Headers") ?? "").toMatch(/mcp-session-id/i);
    expect(res.headers.get("Vary") ?? "").toMatch(/origin/i);
    await res.body?.cancel();
  });

  it("2026-07-28: errors for an allowed Origin carry CORS headers too (a browser can read them)", async () => {
    const origin = "http://localhost:5173";
    const res = await modernPost("tools/list", {}, { id: 81, headers: { Origin: origin, "Mcp-Method": null } });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    await expectRpcError(res, 400, -32020, 81);
  });

  it("2026-07-28: the OPTIONS preflight allows every 2026 request header and exposes Mcp-Session-Id", async () => {
    const origin = "http://localhost:5173";
    const res = await SELF.fetch(MCP_URL, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization",
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(res.headers.get("Access-Control-Allow-Methods") ?? "").toMatch(/\bPOST\b/);
    const allowed = (res.headers.get("Access-Control-Allow-Headers") ?? "").split(",").map((h) => h.trim().toLowerCase());
    for (const h of [
      "content-type",
      "mcp-protocol-version",
      "mcp-method",
      "mcp-name",
      "mcp-param-region",
      "last-event-id",
      "authorization",
    ])
      expect(allowed).toContain(h);
    expect(res.headers.get("Access-Control-Expose-Headers") ?? "").toMatch(/mcp-session-id/i);
    await res.body?.cancel();
  });

  it("2026-07-28: the OPTIONS preflight does not allow arbitrary headers", async () => {
    const res = await SELF.fetch(MCP_URL, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-evil" },
    });
    const allowed = (res.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase();
    expect(allowed).not.toContain("x-evil");
    await res.body?.cancel();
  });

  it("2026-07-28: an OPTIONS preflight from a foreign Origin is rejected with 403", async () => {
    const res = await SELF.fetch(MCP_URL, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    await res.body?.cancel();
  });
});
