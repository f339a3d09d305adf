/**
 * The client's OAuth (src/engine/client/auth) when the MCP server, or the authorization server it names,
 * is hostile: addresses it must not contact (plain http, the cloud's metadata service, a private
 * host), credentials it must not send to another authorization server, and what every token request
 * must say (the RFC 8707 resource) and registration must claim (a web client's type).
 */
import { describe, expect, it, vi } from "vitest";
import { ClientCredentials, McpClient, McpClientError, MemoryTokenStore, OAuthClient, type Fetch } from "../../../src/engine/client";
import { json } from "../helpers/client";

const MCP = "https://mcp.example/mcp";
const AS = "https://as.example";
const MODERN = "2026-07-28";

interface Seen {
  url: string;
  method: string;
  headers: Headers;
  body: string;
}

/**
 * An MCP server on https that wants a token from whichever authorization servers `world.servers`
 * names (each at its own origin, with the metadata `world.metadata(issuer)`), and records every request.
 */
function world() {
  const seen: Seen[] = [];
  const w = {
    seen,
    servers: [AS],
    challenge: `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"`,
    metadata: (issuer: string): Record<string, unknown> => ({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
    }),
    /** Tokens the MCP server accepts. */
    valid: new Set<string>(),
    issued: 0,
    fetch: (async (input, init) => {
      const request = new Request(input, init);
      const body = new TextDecoder().decode(await request.arrayBuffer());
      seen.push({ url: request.url, method: request.method, headers: request.headers, body });
      const url = new URL(request.url);
      if (request.url === MCP) {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
        if (!token || !w.valid.has(token)) return new Response(null, { status: 401, headers: { "WWW-Authenticate": w.challenge } });
        const m = JSON.parse(body) as { id: number };
        return json({
          jsonrpc: "2.0",
          id: m.id,
          result: { resultType: "complete", supportedVersions: [MODERN], capabilities: {}, ttlMs: 0, cacheScope: "public" },
        });
      }
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json({ resource: MCP, authorization_servers: w.servers });
      if (url.pathname === "/.well-known/oauth-authorization-server") return json(w.metadata(url.origin));
      if (url.pathname === "/register") return json({ client_id: "registered", token_endpoint_auth_method: "none" }, 201);
      if (url.pathname === "/token") {
        const token = `${url.host}-${++w.issued}`;
        w.valid.add(token);
        return json({ access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `refresh-${w.issued}` });
      }
      return new Response("not found", { status: 404 });
    }) as Fetch,
  };
  return w;
}

/** A user who approves at once: the browser comes back with a code and the state it was given. */
const approve = (redirectUri: string) =>
  vi.fn(async (url: URL) => `${redirectUri}?code=the-code&state=${url.searchParams.get("state")}&iss=${encodeURIComponent(url.origin)}`);

const hosts = (seen: Seen[]) => new Set(seen.map((s) => new URL(s.url).host));

describe("client OAuth: addresses a server names", () => {
  for (const [label, servers] of [
    ["a plain http authorization server", ["http://as.example"]],
    ["the cloud metadata address", ["https://169.254.169.254"]],
    ["a private address", ["https://10.0.0.7"]],
    ["a private address mapped into IPv6", ["https://[::ffff:10.0.0.7]"]],
  ] as const) {
    it(`an https server naming ${label} is refused before anything is sent there`, async () => {
      const w = world();
      w.servers = [...servers];
      const authorize = approve("https://app.example/callback");
      const auth = new OAuthClient({ redirectUri: "https://app.example/callback", authorize, fetch: w.fetch });
      const err = await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      expect(String(err)).toMatch(/plain http|private, link-local or loopback/);
      expect([...hosts(w.seen)]).toEqual(["mcp.example"]);
      expect(authorize).not.toHaveBeenCalled();
    });
  }

  it("a resource_metadata URL in the challenge on the metadata address is not fetched", async () => {
    const w = world();
    w.challenge = `Bearer resource_metadata="http://169.254.169.254/latest/meta-data/"`;
    const auth = new OAuthClient({
      redirectUri: "https://app.example/callback",
      authorize: approve("https://app.example/callback"),
      fetch: w.fetch,
    });
    await expect(McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN })).rejects.toThrow(McpClientError);
    expect(hosts(w.seen).has("169.254.169.254")).toBe(false);
  });

  it("metadata naming a private registration endpoint or an http authorize URL: no registration there, no user sent there", async () => {
    for (const bad of [{ registration_endpoint: "https://10.0.0.7/register" }, { authorization_endpoint: "http://as.example/authorize" }]) {
      const w = world();
      const base = w.metadata;
      w.metadata = (issuer) => ({ ...base(issuer), ...bad });
      const authorize = approve("https://app.example/callback");
      const auth = new OAuthClient({ redirectUri: "https://app.example/callback", authorize, fetch: w.fetch });
      await expect(McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN })).rejects.toThrow(McpClientError);
      expect(hosts(w.seen).has("10.0.0.7")).toBe(false);
      expect(w.seen.some((s) => s.url.endsWith("/register"))).toBe(false);
      expect(authorize).not.toHaveBeenCalled();
    }
  });

  it("allowPrivateNetwork lets an authorization server on a private address through", async () => {
    const w = world();
    w.servers = ["https://10.0.0.7"];
    const auth = new OAuthClient({
      redirectUri: "https://app.example/callback",
      authorize: approve("https://app.example/callback"),
      fetch: w.fetch,
      allowPrivateNetwork: true,
    });
    const client = await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    expect(client.protocolVersion).toBe(MODERN);
    expect(hosts(w.seen).has("10.0.0.7")).toBe(true);
  });
});

describe("client OAuth: credentials stay with their authorization server", () => {
  const secretsSentTo = (seen: Seen[]) => [
    ...new Set(
      seen
        .filter((s) => s.url.endsWith("/token") && s.headers.get("authorization")?.startsWith("Basic "))
        .map((s) => new URL(s.url).origin),
    ),
  ];

  it("ClientCredentials: after the MCP server names another authorization server, the secret is not sent there", async () => {
    const w = world();
    const auth = new ClientCredentials({ clientId: "machine", clientSecret: "s3cret", fetch: w.fetch, issuer: AS });
    await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    expect(secretsSentTo(w.seen)).toEqual([AS]);
    // The server turns: it refuses the token it accepted and names a new authorization server.
    w.valid.clear();
    w.servers = ["https://evil.example"];
    const err = await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/belong to https:\/\/as\.example; they are not sent anywhere else/);
    expect(secretsSentTo(w.seen)).toEqual([AS]);
  });

  it("ClientCredentials with issuer set: a server that names only another is refused from the start", async () => {
    const w = world();
    w.servers = ["https://evil.example"];
    const auth = new ClientCredentials({ clientId: "machine", clientSecret: "s3cret", fetch: w.fetch, issuer: AS });
    await expect(McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN })).rejects.toThrow(/belong to https:\/\/as\.example/);
    expect(hosts(w.seen).has("evil.example")).toBe(false);
  });

  it("OAuthClient with a pre-registered client: a changed authorization server gets an error, not the client's secret or its user", async () => {
    const w = world();
    const store = new MemoryTokenStore();
    const authorize = approve("https://app.example/callback");
    const auth = new OAuthClient({
      redirectUri: "https://app.example/callback",
      authorize,
      clientId: "pre",
      clientSecret: "s3cret",
      issuer: AS,
      fetch: w.fetch,
      store,
    });
    await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    expect(authorize).toHaveBeenCalledTimes(1);
    w.valid.clear();
    w.servers = ["https://evil.example"];
    await expect(McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN })).rejects.toThrow(/belong to https:\/\/as\.example/);
    expect(authorize).toHaveBeenCalledTimes(1);
    expect(secretsSentTo(w.seen)).toEqual([AS]);
  });
});

describe("client OAuth: what the requests say", () => {
  it("the authorization request, the code exchange and a refresh all carry the resource (RFC 8707)", async () => {
    const w = world();
    const authorize = approve("https://app.example/callback");
    const store = new MemoryTokenStore();
    const auth = new OAuthClient({ redirectUri: "https://app.example/callback", authorize, fetch: w.fetch, store });
    await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    expect(new URL(String(authorize.mock.calls[0]![0])).searchParams.get("resource")).toBe(MCP);
    // The token is refused later: the client refreshes it rather than asking the user again.
    w.valid.clear();
    await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    const grants = w.seen.filter((s) => s.url === `${AS}/token`).map((s) => new URLSearchParams(s.body));
    expect(grants.map((g) => g.get("grant_type"))).toEqual(["authorization_code", "refresh_token"]);
    expect(grants.map((g) => g.get("resource"))).toEqual([MCP, MCP]);
    expect(authorize).toHaveBeenCalledTimes(1);
  });

  for (const [redirectUri, type] of [
    ["https://app.example/callback", "web"],
    ["http://localhost:3000/callback", "native"],
    ["com.example.app:/callback", "native"],
  ] as const) {
    it(`dynamic registration with redirect ${redirectUri} says application_type "${type}"`, async () => {
      const w = world();
      const auth = new OAuthClient({ redirectUri, authorize: approve(redirectUri), fetch: w.fetch });
      await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN }).catch(() => undefined);
      const registration = w.seen.find((s) => s.url === `${AS}/register`);
      expect(JSON.parse(registration!.body)).toMatchObject({ application_type: type, redirect_uris: [redirectUri] });
    });
  }
});
