/**
 * The client's OAuth flow (src/engine/client/auth) against a protected MCP server
 * and authorization server played by the test.
 */
import { describe, expect, it, vi } from "vitest";
import { McpClient, McpClientError, MemoryTokenStore, OAuthClient, type Fetch } from "../../../src/engine/client";
import { json } from "../helpers/client";

const MCP = "http://mcp.test/mcp";
const ISSUER = "http://as.test";

/** An MCP server that wants a token, and an authorization server with the given metadata. */
function protectedServer(asMetadata: Record<string, unknown>): Fetch {
  return async (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.href === MCP) {
      return new Response(null, {
        status: 401,
        headers: { "WWW-Authenticate": `Bearer resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp"` },
      });
    }
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json({ resource: MCP, authorization_servers: [ISSUER] });
    if (url.origin === ISSUER && url.pathname === "/.well-known/oauth-authorization-server") {
      return json({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/authorize`,
        token_endpoint: `${ISSUER}/token`,
        response_types_supported: ["code"],
        ...asMetadata,
      });
    }
    return new Response("not found", { status: 404 });
  };
}

describe("client OAuth", () => {
  for (const [label, metadata] of [
    ["does not list code_challenge_methods_supported", {}],
    ["lists only plain", { code_challenge_methods_supported: ["plain"] }],
  ] as const) {
    it(`refuses to authorize with a server that ${label} (no PKCE S256), before the user is sent anywhere`, async () => {
      const fetch = protectedServer(metadata);
      const authorize = vi.fn(async () => "http://localhost:3000/callback?code=x");
      const auth = new OAuthClient({
        redirectUri: "http://localhost:3000/callback",
        authorize,
        clientId: "pre-registered",
        fetch,
        allowHttp: true,
      });
      const err = await McpClient.connect(MCP, { fetch, auth }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      expect((err as Error).message).toMatch(/PKCE S256/);
      expect(authorize).not.toHaveBeenCalled();
    });
  }

  it("refreshes a token about to expire before sending it, so the request is not refused on the way", async () => {
    const seen: string[] = [];
    const grants: string[] = [];
    const metadata = { code_challenge_methods_supported: ["S256"] };
    const as = protectedServer(metadata);
    const fetch: Fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.url === `${ISSUER}/token`) {
        grants.push(new URLSearchParams(await request.text()).get("grant_type") ?? "");
        return json({ access_token: "fresh", token_type: "Bearer", expires_in: 3600, refresh_token: "r2" });
      }
      if (request.url === MCP) {
        const token = request.headers.get("authorization") ?? "";
        seen.push(token);
        if (token !== "Bearer fresh") return as(input, init);
        const body = (await request.json()) as { id: number };
        return json({
          jsonrpc: "2.0",
          id: body.id,
          result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {}, ttlMs: 0, cacheScope: "public" },
        });
      }
      return as(input, init);
    };
    const store = new MemoryTokenStore();
    // Held from an earlier login: it expires in ten seconds.
    store.set(`tokens:${MCP}`, { accessToken: "stale", refreshToken: "r1", issuer: ISSUER, expiresAt: Date.now() + 10_000 });
    const authorize = vi.fn(async () => "http://localhost:3000/callback?code=x");
    const auth = new OAuthClient({
      redirectUri: "http://localhost:3000/callback",
      authorize,
      clientId: "pre-registered",
      fetch,
      store,
      allowHttp: true,
    });
    await McpClient.connect(MCP, { fetch, auth, protocol: "2026-07-28" });
    expect(seen).toEqual(["Bearer fresh"]);
    expect(grants).toEqual(["refresh_token"]);
    expect(authorize).not.toHaveBeenCalled();
  });
});
