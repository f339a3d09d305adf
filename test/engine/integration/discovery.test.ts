/**
 * `discovery()` through the Worker (docs/discovery.md): the Server Card at /mcp/server-card (built
 * from the app's info, agreeing with server/discover, public with authorization on, cached with an
 * ETag), the AI Catalog listing it, the page a browser gets on /mcp, each one's switch, and every
 * other request to /mcp answered exactly as by the same app without discovery. The card's shape is
 * validated against the extension's JSON Schema in Node (test/engine/unit/discovery.test.ts).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OAuthEnv } from "../../../src/engine/oauth/authorize";
import { createOAuthWorker } from "../../../src/engine/oauth/worker";
import { serverCard } from "../../../src/engine/mcp/discovery";
import { createMcpWorker, discovery } from "../../../src/mcp";
import discoveryApp, { DISCOVERY_INFO, namedApp, pageOnlyApp } from "../app/discovery-app";
import { inOneLimiterWindow } from "../helpers/limiter-window";
import { buildModernRequest } from "../helpers/mcp";
import { legacyHeaders, openLegacySession, type Send } from "../wire/index.ts";

const ORIGIN = "http://localhost";
const CARD = `${ORIGIN}/mcp/server-card`;
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const baseEnv = env as unknown as Record<string, unknown>;
const TOKEN_ENV = { ...baseEnv, AUTH_MODE: "token", MCP_AUTH_TOKEN: "discovery-test-token" };

const withDiscovery = createMcpWorker(discoveryApp);
/** The same app without discovery: what every MCP client's request must still get. */
const without = createMcpWorker({ ...discoveryApp, discovery: undefined });

async function fetchWith(worker: { fetch: typeof withDiscovery.fetch }, url: string, init: RequestInit = {}, e = baseEnv) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), e as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
const get = (url: string, headers: Record<string, string> = {}, e = baseEnv) => fetchWith(withDiscovery, url, { headers }, e);

describe("the Server Card", () => {
  it("is the app's identity and the deployed /mcp URL, as application/mcp-server-card+json", async () => {
    const res = await get(CARD, { Accept: "application/mcp-server-card+json" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/mcp-server-card+json");
    const card = (await res.json()) as any;
    expect(card).toEqual({
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: "localhost/engine-test-app",
      version: "0.1.0",
      title: "Engine test app",
      description: DISCOVERY_INFO.description,
      websiteUrl: "https://example.com/engine",
      icons: DISCOVERY_INFO.icons,
      remotes: [
        {
          type: "streamable-http",
          url: `${ORIGIN}/mcp`,
          supportedProtocolVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        },
      ],
    });
    // The origin is the request's: another allowed host gets its own URL and derived name.
    const other = (await (await get("http://127.0.0.1:8787/mcp/server-card")).json()) as any;
    expect(other.remotes[0].url).toBe("http://127.0.0.1:8787/mcp");
    expect(other.name).toBe("127.0.0.1/engine-test-app");
  });

  it("agrees with server/discover and the serverInfo every 2026-07-28 result carries", async () => {
    const card = (await (await get(CARD)).json()) as any;
    const { message, headers } = buildModernRequest("server/discover", {}, { id: 1 });
    const res = await fetchWith(withDiscovery, `${ORIGIN}/mcp`, { method: "POST", headers, body: JSON.stringify(message) });
    const { result } = (await res.json()) as any;
    const info = result._meta["io.modelcontextprotocol/serverInfo"];
    expect({
      version: card.version,
      title: card.title,
      description: card.description,
      websiteUrl: card.websiteUrl,
      icons: card.icons,
    }).toEqual({
      version: info.version,
      title: info.title,
      description: info.description,
      websiteUrl: info.websiteUrl,
      icons: info.icons,
    });
    expect(card.name.split("/")[1]).toBe(info.name);
    for (const v of result.supportedVersions) expect(card.remotes[0].supportedProtocolVersions).toContain(v);
  });

  it("is public with authorization on, and names the header a client must send", async () => {
    const res = await get(CARD, {}, TOKEN_ENV);
    expect(res.status).toBe(200);
    const card = (await res.json()) as any;
    expect(card.remotes[0].headers).toEqual([expect.objectContaining({ name: "Authorization", isRequired: true, isSecret: true })]);
    expect(card).toEqual(serverCard(DISCOVERY_INFO, `${ORIGIN}/mcp`, "token"));
    // /mcp itself still wants the token.
    const { message, headers } = buildModernRequest("tools/list", {}, { id: 1 });
    const refused = await fetchWith(withDiscovery, `${ORIGIN}/mcp`, { method: "POST", headers, body: JSON.stringify(message) }, TOKEN_ENV);
    expect(refused.status).toBe(401);
  });

  it("has an ETag that If-None-Match turns into 304, is cacheable and readable from any origin", async () => {
    const res = await get(CARD, { Origin: "https://anywhere.example" });
    const etag = res.headers.get("ETag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=3600");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Expose-Headers")).toBe("ETag");
    for (const match of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await get(CARD, { "If-None-Match": match });
      expect(again.status, match).toBe(304);
      expect(again.headers.get("ETag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    expect((await get(CARD, { "If-None-Match": '"stale"' })).status).toBe(200);
    // The body changes with the origin, and so does its tag.
    expect((await get("http://127.0.0.1/mcp/server-card", { "If-None-Match": etag })).status).toBe(200);
    const preflight = await fetchWith(withDiscovery, CARD, {
      method: "OPTIONS",
      headers: {
        Origin: "https://anywhere.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "if-none-match",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Headers")).toContain("If-None-Match");
    const post = await fetchWith(withDiscovery, CARD, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
  });

  it("refuses a Host not in ALLOWED_HOSTS, as /mcp does", async () => {
    const res = await get(CARD, { Host: "rebound.example" });
    expect(res.status).toBe(403);
  });

  it("carries the fork's registry name, and is served by the OAuth entry without a token", async () => {
    const named = (await (await fetchWith(createMcpWorker(namedApp), CARD)).json()) as any;
    expect(named.name).toBe("io.github.someone/weather");
    const entry = createOAuthWorker(discoveryApp);
    const ctx = createExecutionContext();
    const res = await entry.fetch(new Request(CARD), { ...baseEnv } as unknown as OAuthEnv, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).remotes[0].headers).toBeUndefined();
  });

  it("is absent when the app turns it off, or has no discovery", async () => {
    expect((await fetchWith(createMcpWorker(pageOnlyApp), CARD)).status).toBe(404);
    expect((await fetchWith(without, CARD)).status).toBe(404);
    expect((await fetchWith(createMcpWorker(pageOnlyApp), `${ORIGIN}/.well-known/ai-catalog.json`)).status).toBe(404);
    // A fork that serves its own catalog turns this one off and keeps the card.
    const ownCatalog = createMcpWorker({ ...discoveryApp, discovery: discovery({ catalog: false }) });
    expect(
      await ownCatalog.handle(new Request(`${ORIGIN}/.well-known/ai-catalog.json`), baseEnv as never, createExecutionContext()),
    ).toBeUndefined();
    expect((await fetchWith(ownCatalog, CARD)).status).toBe(200);
  });
});

describe("the AI Catalog", () => {
  it("lists the card at /.well-known/ai-catalog.json", async () => {
    const res = await get(`${ORIGIN}/.well-known/ai-catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/ai-catalog+json");
    expect(res.headers.get("ETag")).toMatch(/^"/);
    expect(await res.json()).toEqual({
      specVersion: "1.0",
      entries: [{ identifier: "urn:air:localhost:mcp:engine-test-app", type: "application/mcp-server-card+json", url: CARD }],
    });
  });
});

describe("the rate limit of the card and the catalog", () => {
  // The engine test app's tight limiter: 3 requests a minute for one key.
  const tight = baseEnv.TEST_TIGHT_RATE_LIMIT;
  /** Addresses no other test spends: the limiter's counts live as long as the test run. */
  const block = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  let last = 0;
  const address = () => `${block}.${++last}`;
  const from = (ip: string, url = CARD, e = baseEnv, worker = withDiscovery) =>
    fetchWith(worker, url, { headers: { "CF-Connecting-IP": ip } }, e);
  const mcpFrom = (ip: string, e: Record<string, unknown>) => {
    const { message, headers } = buildModernRequest("server/discover", {}, { id: 1 });
    return fetchWith(
      withDiscovery,
      `${ORIGIN}/mcp`,
      {
        method: "POST",
        headers: { ...headers, "CF-Connecting-IP": ip },
        body: JSON.stringify(message),
      },
      e,
    );
  };

  it("answers the request past MCP_DISCOVERY_RATE_LIMIT with 429 and Retry-After, per client address", async () => {
    await inOneLimiterWindow();
    const e = { ...baseEnv, MCP_DISCOVERY_RATE_LIMIT: tight };
    const [ip, other] = [address(), address()];
    // The card and the catalog spend one budget.
    expect((await from(ip, CARD, e)).status).toBe(200);
    expect((await from(ip, `${ORIGIN}/.well-known/ai-catalog.json`, e)).status).toBe(200);
    expect((await from(ip, CARD, e)).status).toBe(200);
    const refused = await from(ip, CARD, e);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    // Browser clients read the card across origins: they see the refusal and its Retry-After too.
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(((await refused.json()) as any).error.message).toMatch(/MCP_DISCOVERY_RATE_LIMIT/);
    expect((await from(ip, `${ORIGIN}/.well-known/ai-catalog.json`, e)).status).toBe(429);
    // Another address has its own budget; a preflight is not counted.
    expect((await from(other, CARD, e)).status).toBe(200);
    expect((await fetchWith(withDiscovery, CARD, { method: "OPTIONS", headers: { "CF-Connecting-IP": ip } }, e)).status).toBe(204);
  });

  it("counts apart from MCP traffic when it shares MCP_RATE_LIMIT, and is off with rateLimit: false", async () => {
    await inOneLimiterWindow();
    const e = { ...baseEnv, MCP_RATE_LIMIT: tight };
    const ip = address();
    for (let i = 0; i < 3; i++) expect((await from(ip, CARD, e)).status).toBe(200);
    const refused = await from(ip, CARD, e);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.message).toMatch(/MCP_RATE_LIMIT/);
    // The same address's MCP requests have their own budget, untouched by its card requests.
    for (let i = 0; i < 3; i++) expect((await mcpFrom(ip, e)).status).toBe(200);
    // An app that turns the limit off serves the card past it.
    const unlimited = createMcpWorker({ ...discoveryApp, discovery: discovery({ rateLimit: false }) });
    for (let i = 0; i < 4; i++) expect((await from(ip, CARD, e, unlimited)).status).toBe(200);
  });
});

describe("the registry's HTTP proof", () => {
  it("serves MCP_REGISTRY_AUTH at /.well-known/mcp-registry-auth as text/plain, and nothing without it", async () => {
    const url = `${ORIGIN}/.well-known/mcp-registry-auth`;
    const record = "v=MCPv1; k=ed25519; p=bm90LWEtcmVhbC1rZXktanVzdC1hLXRlc3QtdmFsdWU=";
    const res = await get(
      url,
      { Accept: "text/plain", "User-Agent": "mcp-registry/1.0" },
      { ...baseEnv, MCP_REGISTRY_AUTH: ` ${record}\n` },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe(record);
    expect((await get(url)).status).toBe(404);
  });
});

describe("the page for people", () => {
  it("answers a browser's GET on /mcp with a small page, every value escaped, under a strict CSP", async () => {
    const res = await get(`${ORIGIN}/mcp`, { Accept: BROWSER });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("Content-Security-Policy")!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+';/);
    expect(res.headers.get("Vary")).toBe("Accept");
    const html = await res.text();
    expect(html.length).toBeLessThan(4096);
    expect(html).toContain("<title>Engine test app</title>");
    expect(html).toContain("dice &amp; a &lt;greeting&gt; for &quot;discovery&quot; tests.");
    expect(html).not.toContain("<greeting>");
    expect(html).toContain('data-url="http://localhost/mcp"');
    expect(html).toContain("claude mcp add --transport http engine-test-app http://localhost/mcp");
    expect(html).toContain(`href="${CARD}"`);
    expect(html).toContain("No sign-in is needed.");
    // No tool data: a caller without a token sees nothing the card does not say.
    expect(html).not.toContain("convert_temperature");
  });

  it("with authorization on, says a token is needed, and the page needs none", async () => {
    const res = await get(`${ORIGIN}/mcp`, { Accept: "text/html" }, TOKEN_ENV);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("It needs a token");
    expect(html).toContain('--header "Authorization: Bearer &lt;token&gt;"');
  });

  it("is off when the app turns it off", async () => {
    const off = await fetchWith(createMcpWorker(namedApp), `${ORIGIN}/mcp`, { headers: { Accept: BROWSER } });
    const before = await fetchWith(without, `${ORIGIN}/mcp`, { headers: { Accept: BROWSER } });
    expect(off.status).toBe(before.status);
    expect(await off.text()).toBe(await before.text());
  });
});

describe("MCP clients' requests to /mcp", () => {
  /** What a Worker answers, reduced to what a client reads. */
  const answer = async (res: Response) => ({ status: res.status, type: res.headers.get("Content-Type"), body: await res.text() });

  it("are answered exactly as by the app without discovery", async () => {
    const { message, headers } = buildModernRequest("tools/list", {}, { id: 7 });
    const requests: [string, RequestInit][] = [
      ["GET, no Accept", {}],
      ["GET, Accept: text/event-stream", { headers: { Accept: "text/event-stream" } }],
      ["GET, Accept: */*", { headers: { Accept: "*/*" } }],
      ["GET, html and SSE", { headers: { Accept: "text/html, text/event-stream" } }],
      ["GET, html and JSON", { headers: { Accept: "text/html, application/json" } }],
      ["GET, session id and SSE", { headers: { Accept: "text/event-stream", "Mcp-Session-Id": "nope" } }],
      ["DELETE", { method: "DELETE", headers: { "Mcp-Session-Id": "nope" } }],
      ["POST tools/list", { method: "POST", headers, body: JSON.stringify(message) }],
      ["POST, html Accept", { method: "POST", headers: { ...headers, Accept: "text/html" }, body: JSON.stringify(message) }],
      ["PUT", { method: "PUT" }],
    ];
    for (const [what, init] of requests) {
      const a = await answer(await fetchWith(withDiscovery, `${ORIGIN}/mcp`, init));
      const b = await answer(await fetchWith(without, `${ORIGIN}/mcp`, init));
      expect(a, what).toEqual(b);
    }
  });

  it("a 2025-11-25 session's GET still opens its SSE stream", async () => {
    const send: Send = async ({ method, headers, body }) => {
      const res = await fetchWith(withDiscovery, `${ORIGIN}/mcp`, { method, headers, body });
      return { status: res.status, header: (name) => res.headers.get(name), text: await res.text() };
    };
    const session = await openLegacySession(send);
    const res = await fetchWith(withDiscovery, `${ORIGIN}/mcp`, { headers: { ...legacyHeaders(session.id), Accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    await res.body?.cancel();
  });
});
