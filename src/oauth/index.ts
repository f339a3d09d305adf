/**
 * Opt-in Worker entry (wrangler.oauth.toml, `npm run dev:oauth`): the example app with this
 * Worker as its own OAuth 2.1 authorization server, @cloudflare/workers-oauth-provider. The
 * default entry (src/index.ts) never imports this directory, so its bundle stays without it.
 *
 * The provider serves RFC 8414 metadata (/.well-known/oauth-authorization-server), RFC 9728
 * metadata (/.well-known/oauth-protected-resource/mcp), the token endpoint, dynamic client
 * registration and Client ID Metadata Documents; /authorize is ours (./authorize.ts). On /mcp
 * it checks the bearer token (401 with the challenge otherwise) and hands the grant's props to
 * the MCP Worker, which binds sessions, requestState and subscriptions to `props.userId`.
 */
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { readConfig } from "../config";
import { checkHostAndOrigin, hostAllowed } from "../http/gate";
import { reject } from "../http/responses";
import { ErrorCode } from "../mcp/errors";
import app from "../server";
import { MCP_PATH, createMcpWorker } from "../worker";
import { AUTHORIZE_PATH, authorize, type OAuthEnv, type UserProps } from "./authorize";

const mcp = createMcpWorker(app, { principal: (_request, _env, ctx) => (ctx.props as UserProps | undefined)?.userId });
export const { McpHub, McpSession } = mcp;

/**
 * The issuer is this Worker's origin and the protected resource is `<origin>/mcp`, as the
 * template derives its resource URI everywhere else; one provider per origin, built on first
 * use, and only for hosts in ALLOWED_HOSTS. The provider accepts https, and http on loopback
 * hosts only (wrangler dev).
 */
const providers = new Map<string, OAuthProvider<OAuthEnv>>();
function providerFor(origin: string): OAuthProvider<OAuthEnv> {
  let provider = providers.get(origin);
  if (!provider) {
    provider = new OAuthProvider<OAuthEnv>({
      apiRoute: MCP_PATH,
      apiHandler: mcp,
      defaultHandler: {
        fetch: (request, env, ctx) =>
          new URL(request.url).pathname === AUTHORIZE_PATH ? authorize(request, env) : mcp.fetch(request, env, ctx),
      },
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: "/oauth/token",
      clientRegistrationEndpoint: "/oauth/register",
      // CIMD also needs the global_fetch_strictly_public flag (wrangler.oauth.toml) and outbound network.
      clientIdMetadataDocumentEnabled: true,
      resourceMetadata: { resource: `${origin}${MCP_PATH}`, authorization_servers: [origin], resource_name: app.info.title ?? app.info.name },
    });
    providers.set(origin, provider);
  }
  return provider;
}

export default {
  async fetch(request: Request, env: OAuthEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const config = readConfig(env);
    if (url.pathname === MCP_PATH) {
      // The /mcp edge keeps the default entry's order: Host and Origin first, our CORS preflight,
      // and only then the token (the provider's own preflight would allow any origin).
      const gate = checkHostAndOrigin(request, config);
      if (gate instanceof Response) return gate;
      if (request.method === "OPTIONS") return mcp.fetch(request, env, ctx);
    }
    // DNS-rebinding protection for every route, before the origin becomes an issuer.
    const host = request.headers.get("Host") ?? url.host;
    if (!hostAllowed(host, config.allowedHosts)) {
      return reject(403, ErrorCode.InvalidRequest, `Forbidden: Host "${host}" is not in ALLOWED_HOSTS`);
    }
    let provider: OAuthProvider<OAuthEnv>;
    try {
      provider = providerFor(url.origin);
    } catch (err) {
      console.error("OAuth provider configuration failed:", err);
      return reject(500, ErrorCode.InternalError, `OAuth needs https (or http on a loopback host); ${url.origin} cannot be an issuer`);
    }
    return provider.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<OAuthEnv>;
