/**
 * A client secret belongs to one authorization server (issue: trust on first use). `ClientCredentials`
 * and a pre-registered `OAuthClient` with a secret need to be told which one (`issuer`, or its
 * `tokenEndpoint`), and send the secret to no other: an MCP server that names another authorization
 * server from its first answer gets an error, and nothing of the secret.
 */
import { describe, expect, it, vi } from "vitest";
import { ClientCredentials, McpClient, McpClientError, OAuthClient, type Fetch } from "../../../src/engine/client";
import { json } from "../helpers/client";

const MCP = "https://mcp.example/mcp";
const AS = "https://as.example";
const EVIL = "https://evil.example";
const MODERN = "2026-07-28";
const REDIRECT = "https://app.example/callback";

/** An MCP server naming `servers` as its authorization servers; every request is recorded. */
function world(servers: string[], tokenEndpointOf = (issuer: string) => `${issuer}/token`) {
  const seen: { url: string; authorization: string | null; body: string }[] = [];
  const valid = new Set<string>();
  const fetch: Fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = await request.text();
    seen.push({ url: request.url, authorization: request.headers.get("authorization"), body });
    const url = new URL(request.url);
    if (request.url === MCP) {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
      if (!token || !valid.has(token))
        return new Response(null, {
          status: 401,
          headers: { "WWW-Authenticate": `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"` },
        });
      const m = JSON.parse(body) as { id: number };
      return json({
        jsonrpc: "2.0",
        id: m.id,
        result: { resultType: "complete", supportedVersions: [MODERN], capabilities: {}, ttlMs: 0, cacheScope: "public" },
      });
    }
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json({ resource: MCP, authorization_servers: servers });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json({
        issuer: url.origin,
        authorization_endpoint: `${url.origin}/authorize`,
        token_endpoint: tokenEndpointOf(url.origin),
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      });
    }
    if (url.pathname.endsWith("/token")) {
      const token = `${url.host}-${valid.size + 1}`;
      valid.add(token);
      return json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    return new Response("not found", { status: 404 });
  };
  /** The origins a secret reached: in a Basic header or a client_secret form field. */
  const secretWentTo = () => [
    ...new Set(
      seen.filter((s) => s.authorization?.startsWith("Basic ") || /client_secret=/.test(s.body)).map((s) => new URL(s.url).origin),
    ),
  ];
  return { fetch, seen, secretWentTo };
}

/** A user who approves at once. */
const approve = async (url: URL) => `${REDIRECT}?code=c&state=${url.searchParams.get("state")}&iss=${encodeURIComponent(url.origin)}`;

describe("client secrets: one authorization server each", () => {
  it("ClientCredentials with a secret and neither issuer nor tokenEndpoint is refused when made, before any request", () => {
    expect(() => new ClientCredentials({ clientId: "machine", clientSecret: "s3cret" })).toThrow(McpClientError);
    expect(() => new ClientCredentials({ clientId: "machine", clientSecret: "s3cret" })).toThrow(/issuer/);
  });

  it("a pre-registered OAuthClient with a secret and neither issuer nor tokenEndpoint is refused when made", () => {
    expect(() => new OAuthClient({ redirectUri: REDIRECT, authorize: approve, clientId: "pre", clientSecret: "s3cret" })).toThrow(/issuer/);
  });

  it("an MCP server whose first answer names another authorization server gets an error, and never the secret", async () => {
    const w = world([EVIL]);
    const auth = new ClientCredentials({ clientId: "machine", clientSecret: "s3cret", fetch: w.fetch, issuer: AS });
    await expect(McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN })).rejects.toThrow(McpClientError);
    expect(w.secretWentTo()).toEqual([]);
    expect(w.seen.some((s) => s.url.startsWith(EVIL))).toBe(false);
  });

  it("tokenEndpoint: the secret goes there and nowhere else; an authorization server with another token endpoint is refused", async () => {
    const good = world([AS]);
    const auth = new ClientCredentials({ clientId: "machine", clientSecret: "s3cret", fetch: good.fetch, tokenEndpoint: `${AS}/token` });
    await McpClient.connect(MCP, { fetch: good.fetch, auth, protocol: MODERN });
    expect(good.secretWentTo()).toEqual([AS]);

    const moved = world([EVIL]);
    const pinned = new ClientCredentials({ clientId: "machine", clientSecret: "s3cret", fetch: moved.fetch, tokenEndpoint: `${AS}/token` });
    await expect(McpClient.connect(MCP, { fetch: moved.fetch, auth: pinned, protocol: MODERN })).rejects.toThrow(/token endpoint/);
    expect(moved.secretWentTo()).toEqual([]);

    // The right issuer whose metadata now points its token endpoint elsewhere: refused too.
    const redirected = world([AS], () => `${EVIL}/token`);
    const auth3 = new ClientCredentials({
      clientId: "machine",
      clientSecret: "s3cret",
      fetch: redirected.fetch,
      issuer: AS,
      tokenEndpoint: `${AS}/token`,
    });
    await expect(McpClient.connect(MCP, { fetch: redirected.fetch, auth: auth3, protocol: MODERN })).rejects.toThrow(/token endpoint/);
    expect(redirected.secretWentTo()).toEqual([]);
  });

  it("a pre-registered OAuthClient with its issuer: signs in there; named another, the user is sent nowhere", async () => {
    const good = world([AS]);
    const authorize = vi.fn(approve);
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      authorize,
      clientId: "pre",
      clientSecret: "s3cret",
      issuer: AS,
      fetch: good.fetch,
    });
    await McpClient.connect(MCP, { fetch: good.fetch, auth, protocol: MODERN });
    expect(good.secretWentTo()).toEqual([AS]);

    const moved = world([EVIL]);
    const authorize2 = vi.fn(approve);
    const auth2 = new OAuthClient({
      redirectUri: REDIRECT,
      authorize: authorize2,
      clientId: "pre",
      clientSecret: "s3cret",
      issuer: AS,
      fetch: moved.fetch,
    });
    await expect(McpClient.connect(MCP, { fetch: moved.fetch, auth: auth2, protocol: MODERN })).rejects.toThrow(McpClientError);
    expect(authorize2).not.toHaveBeenCalled();
    expect(moved.secretWentTo()).toEqual([]);
  });

  it("without a secret nothing changes: a public or private-key client still follows the server's authorization server", async () => {
    const w = world([AS]);
    const { privateKey } = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const auth = new ClientCredentials({ clientId: "machine", privateKey, fetch: w.fetch });
    await McpClient.connect(MCP, { fetch: w.fetch, auth, protocol: MODERN });
    expect(w.seen.some((s) => s.url === `${AS}/token`)).toBe(true);
  });
});
