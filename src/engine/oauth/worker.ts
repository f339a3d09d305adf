/**
 * The OAuth entry's Worker for an app (./index.ts builds it for the example app; tests build it for
 * theirs): the Worker as its own OAuth 2.1 authorization server, @cloudflare/workers-oauth-provider.
 *
 * The provider serves RFC 8414 metadata (/.well-known/oauth-authorization-server), RFC 9728
 * metadata (/.well-known/oauth-protected-resource/mcp), the token endpoint, dynamic client
 * registration and Client ID Metadata Documents, and, when configured, the enterprise-managed
 * authorization grant (./id-jag.ts); /authorize is ours (./authorize.ts). On /mcp it checks the
 * bearer token (401 with the challenge otherwise) and hands the grant's props to the MCP Worker,
 * which binds sessions, requestState and subscriptions to `props.userId`.
 */
import {
  GrantType,
  OAuthProvider,
  getOAuthApi,
  type GrantSummary,
  type OAuthProviderOptions,
  type TokenExchangeCallbackOptions,
} from "@cloudflare/workers-oauth-provider";
import { readConfig } from "../config";
import { checkHost, checkHostAndOrigin } from "../http/gate";
import { reject } from "../http/responses";
import { ErrorCode } from "../mcp/errors";
import type { AppDefinition } from "../mcp/app";
import { MCP_PATH, createMcpWorker } from "../worker";
import { AUTHORIZE_PATH, authorize, isLoopbackHostname, type OAuthEnv, type UserProps } from "./authorize";
import { enterpriseAuthorization } from "./id-jag";
import { OAuthOnce } from "./once";
import { scopePolicy, type OAuthScopeOptions } from "./scopes";

/** What an app tells its OAuth entry: which user may hold which scope, and what the consent page selects (./scopes.ts). */
export type OAuthWorkerOptions = OAuthScopeOptions<OAuthEnv>;

/**
 * Every path the provider hands to the MCP Worker as its API: `/mcp` and all below it (`/mcp/`,
 * `/mcp//`, `/mcp/x`), so each passes the /mcp edge's gate before the provider sees it.
 */
const servedAsApi = (pathname: string) => pathname === MCP_PATH || pathname.startsWith(`${MCP_PATH}/`);

/** The OAuth entry for `app`: its fetch, and the Durable Object classes its wrangler config binds. */
export function createOAuthWorker(app: AppDefinition<any>, options: OAuthWorkerOptions = {}) {
  const scopes = scopePolicy<OAuthEnv>(app, options);
  // The grant's user is the principal; the scopes and client the provider verified for the token
  // (its `ctx.auth`) are what the operations' declared scopes are checked against (docs/authorization.md).
  const mcp = createMcpWorker(app, {
    principal: (_request, _env, ctx) => {
      const userId = (ctx.props as UserProps | undefined)?.userId;
      const granted = (ctx as { auth?: { scope?: string[]; clientId?: string } }).auth;
      return userId ? { id: userId, scopes: granted?.scope ?? [], clientId: granted?.clientId } : undefined;
    },
  });
  const { McpHub, McpSession, McpTask } = mcp;

  /**
   * The issuer is this Worker's origin and the protected resource is `<origin>/mcp`, as the
   * template derives its resource URI everywhere else, so each origin gets its own provider,
   * and only for hosts in ALLOWED_HOSTS.
   *
   * That one resource is also what a client gets when it sends no RFC 8707 `resource` (Claude Code
   * sends none; other clients drop it on refresh): the provider binds a grant to its sole resource
   * when /authorize omits it, and /token and refresh inherit the grant's. A `resource` naming
   * anything else is `invalid_target`. Give a provider a second resource and that default is gone:
   * such clients would then get `invalid_target`.
   *
   * Each origin also gets its own copy of `env`. The provider stores its helpers in
   * `env.OAUTH_PROVIDER` the first time it needs them and never replaces them; `env` is one object
   * for the whole isolate, so with a shared `env` the first origin to reach /authorize would answer
   * /authorize for every other origin too (wrong issuer, wrong resource). A copy per origin keeps
   * each provider's helpers with its own origin.
   *
   * The cache is bounded: an allowed host without a port in ALLOWED_HOSTS matches every port, and
   * each `Host: name:port` is an origin of its own, so a client cycling ports must not be able to
   * fill the isolate's memory. A deployment answers on a few origins (its domains, workers.dev,
   * localhost under `wrangler dev`); the least recently used entry goes first, and an evicted
   * origin is simply built again on its next request (providers keep nothing but configuration).
   */
  const MAX_PROVIDERS = 16;
  interface Issuer {
    provider: OAuthProvider<OAuthEnv>;
    base: OAuthEnv;
    env: OAuthEnv;
  }
  const issuers = new Map<string, Issuer>();

  function issuerFor(origin: string, env: OAuthEnv): Issuer {
    const hit = issuers.get(origin);
    if (hit && hit.base === env) {
      issuers.delete(origin); // re-insert: Map order is the recency order
      issuers.set(origin, hit);
      return hit;
    }
    const providerOptions: OAuthProviderOptions<OAuthEnv> = {
      apiRoute: MCP_PATH,
      apiHandler: mcp,
      defaultHandler: {
        fetch: (request, env, ctx) =>
          new URL(request.url).pathname === AUTHORIZE_PATH ? authorize(request, env, scopes) : mcp.fetch(request, env, ctx),
      },
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: "/oauth/token",
      clientRegistrationEndpoint: "/oauth/register",
      // CIMD also needs the global_fetch_strictly_public flag (wrangler.oauth.toml) and outbound network.
      clientIdMetadataDocumentEnabled: true,
      // Least scope first: the resource metadata's scopes_supported and the 401 challenge (requiredScopes) name the app's
      // baseline (`defineAuthorization({ scopes })`), so a client asks for that at first consent; an
      // operation that needs more asks by step-up (403 insufficient_scope), and the consent page lets
      // the user grant more for clients that cannot (./scopes.ts).
      resourceMetadata: {
        resource: `${origin}${MCP_PATH}`,
        authorization_servers: [origin],
        resource_name: app.info.title ?? app.info.name,
      },
      ...(scopes.baseline.length > 0 ? { requiredScopes: [...scopes.baseline] } : {}),
      // The scopes this server grants (./scopes.ts): in its RFC 8414 metadata, and the only ones a
      // consent may approve.
      ...(scopes.known.length > 0 ? { scopesSupported: [...scopes.known] } : {}),
      // ID-JAG (RFC 7523 jwt-bearer from a trusted enterprise IdP): only when its vars name one.
      enterpriseManagedAuthorization: enterpriseAuthorization(env, scopes),
      tokenExchangeCallback: (exchange) => replaceEarlierGrants(exchange),
    };
    /**
     * /authorize keeps the user's earlier grants to a client (revokeExistingGrants: false, ./authorize.ts),
     * so a client that never finishes a second sign-in (a step-up it cannot complete) keeps its token.
     * When the new code is redeemed, the grants it replaces go: the user's other grants to this client,
     * and for a client metadata document (an https client_id every installation of an app shares),
     * only those of this installation, the same redirect URI, as the provider's own replacement does.
     */
    const replaceEarlierGrants = async ({
      grantType,
      userId,
      grantId,
      clientId,
      env,
    }: TokenExchangeCallbackOptions<OAuthEnv>): Promise<void> => {
      if (grantType !== GrantType.AUTHORIZATION_CODE) return;
      const helpers = getOAuthApi(providerOptions, env);
      const grants: GrantSummary[] = [];
      let cursor: string | undefined;
      do {
        const page = await helpers.listUserGrants(userId, cursor ? { cursor } : {});
        grants.push(...page.items.filter((g) => g.clientId === clientId));
        cursor = page.cursor;
      } while (cursor);
      const redirectUri = grants.find((g) => g.id === grantId)?.redirectUri;
      const shared = clientId.startsWith("https://");
      for (const grant of grants) {
        if (grant.id !== grantId && (!shared || grant.redirectUri === redirectUri)) await helpers.revokeGrant(grant.id, userId);
      }
    };
    const provider = new OAuthProvider<OAuthEnv>(providerOptions);
    const issuer: Issuer = { provider, base: env, env: { ...env } };
    issuers.delete(origin);
    issuers.set(origin, issuer);
    while (issuers.size > MAX_PROVIDERS) issuers.delete(issuers.keys().next().value!);
    return issuer;
  }

  // The provider checks every /mcp token here, so AUTH_MODE and its settings (the default entry's,
  // say from a .dev.vars both share) do not apply: the entry sees an env without AUTH_MODE, one copy per env.
  const withoutAuthMode = new WeakMap<OAuthEnv, OAuthEnv>();
  const entryEnv = (env: OAuthEnv) => {
    if ((env as { AUTH_MODE?: string }).AUTH_MODE === undefined) return env;
    let own = withoutAuthMode.get(env);
    if (!own) withoutAuthMode.set(env, (own = { ...env, AUTH_MODE: undefined }));
    return own;
  };

  async function fetch(request: Request, rawEnv: OAuthEnv, ctx: ExecutionContext): Promise<Response> {
    const env = entryEnv(rawEnv);
    const url = new URL(request.url);
    const config = readConfig(env);
    // The card, the catalog and the page are public: served before the provider asks for a token.
    const found = app.discovery && (await app.discovery.serve(request, env, { info: app.info, path: MCP_PATH, auth: { principal: true } }));
    if (found) return found;
    if (servedAsApi(url.pathname)) {
      // The /mcp edge keeps the default entry's order: Host and Origin first, our CORS preflight,
      // and only then the token (the provider's own preflight would allow any origin). The same
      // for `/mcp/` and every path below: the provider treats them all as /mcp.
      const gate = checkHostAndOrigin(request, config);
      if (gate instanceof Response) return gate;
      if (request.method === "OPTIONS") return mcp.fetch(request, env, ctx);
    }
    // DNS-rebinding protection for every route, before the origin becomes an issuer.
    const refused = checkHost(request, config);
    if (refused) return refused;
    // OAuth runs over https only; plain http is accepted on loopback hosts (`wrangler dev`). A
    // plain-http request to any other allowed host is the client's mistake (or a proxy that
    // dropped TLS): say so, rather than fail to build an issuer for it.
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHostname(url.hostname))) {
      return reject(403, ErrorCode.InvalidRequest, `Forbidden: OAuth on ${url.host} needs https; use https://${url.host}${url.pathname}`);
    }
    let issuer: Issuer;
    try {
      issuer = issuerFor(url.origin, env);
    } catch (err) {
      console.error("OAuth provider configuration failed:", err);
      return reject(500, ErrorCode.InternalError, `OAuth provider configuration failed for ${url.origin}`);
    }
    return issuer.provider.fetch(request, issuer.env, ctx);
  }

  return { fetch, McpHub, McpSession, McpTask, OAuthOnce };
}
