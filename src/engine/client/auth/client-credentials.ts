/**
 * Tokens without a user at a browser, for machine clients (the MCP auth
 * extensions): on a 401 the provider finds the authorization server the same
 * way as the user flow (challenge → resource metadata → server metadata),
 * then asks its token endpoint for a token with the `resource` indicator —
 * with `grant_type=client_credentials`, or, given an `assertion`, the
 * JWT-bearer grant (RFC 7523: a workload's identity token, or an ID-JAG from
 * the user's identity provider for enterprise-managed authorization). The
 * client proves who it is with a secret (`client_secret_basic`, or
 * `client_secret_post` where the server lists only that), a signed JWT
 * (`private_key_jwt`), or not at all (a public workload client).
 */
import * as oauth from "oauth4webapi";
import type { AuthProvider } from "../client";
import { McpClientError } from "../errors";
import type { Fetch } from "../wire";
import { authorizedFetch } from "./authorized";
import type { BearerChallenge } from "./challenge";
import { authorizationServer, checkTokenEndpoint, chooseIssuer, requirePinnedSecret, resourceMetadata } from "./discovery";
import { basicAuth, requestOptions, storedTokens } from "./requests";
import { MemoryTokenStore, tokensKey, type StoredTokens, type TokenStore } from "./store";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface ClientCredentialsOptions {
  clientId: string;
  /** The client's secret (client_secret_basic / client_secret_post). */
  clientSecret?: string;
  /** Or the key that signs its assertions (private_key_jwt), e.g. an ES256 key imported with WebCrypto. */
  privateKey?: CryptoKey | { key: CryptoKey; kid?: string };
  /** Use the JWT-bearer grant with this assertion instead of client_credentials (asked for each new token). */
  assertion?: (at: { issuer: string; resource: string }) => Promise<string> | string;
  /** Scope to ask for when neither the challenge nor the resource metadata names one. */
  scope?: string;
  store?: TokenStore;
  /** The fetch for discovery and token requests. */
  fetch?: Fetch;
  /** Allow http:// endpoints. Defaults to true only for loopback hosts (local development). */
  allowHttp?: boolean;
  /**
   * Allow authorization servers and endpoints on private, link-local or loopback addresses (default:
   * only when the MCP server is on one itself, for local development).
   */
  allowPrivateNetwork?: boolean;
  /**
   * The authorization server these credentials belong to; required with a `clientSecret` (or give
   * `tokenEndpoint`), which is sent to no other. Without a secret, and unset, the credentials go to the
   * first one the MCP server names and stay with it (kept in the store): a server that later names
   * another gets an error.
   */
  issuer?: string;
  /** The token endpoint these credentials belong to: the authorization server's metadata must name exactly this one. */
  tokenEndpoint?: string;
}

export class ClientCredentials implements AuthProvider {
  private readonly store: TokenStore;
  constructor(private readonly options: ClientCredentialsOptions) {
    if (!options.clientSecret && !options.privateKey && !options.assertion)
      throw new McpClientError("ClientCredentials needs a clientSecret, a privateKey or an assertion");
    requirePinnedSecret("ClientCredentials", options.clientSecret, options);
    this.store = options.store ?? new MemoryTokenStore();
  }

  private get oauthFetch(): Fetch {
    return this.options.fetch ?? ((input, init) => fetch(input, init));
  }

  wrap(next: Fetch, resource: string): Fetch {
    const held = async () => ((await this.store.get(tokensKey(resource))) as StoredTokens | undefined)?.accessToken;
    return authorizedFetch(next, resource, held, (_status, challenge) => this.obtain(resource, challenge));
  }

  private clientAuth(as: oauth.AuthorizationServer): oauth.ClientAuth {
    const { clientSecret, privateKey } = this.options;
    if (privateKey) return oauth.PrivateKeyJwt(privateKey);
    if (!clientSecret) return oauth.None();
    const methods = as.token_endpoint_auth_methods_supported;
    return methods?.includes("client_secret_post") && !methods.includes("client_secret_basic")
      ? oauth.ClientSecretPost(clientSecret!)
      : basicAuth(clientSecret!);
  }

  private async obtain(resource: string, challenge: BearerChallenge): Promise<void> {
    const o = this.options;
    const prm = await resourceMetadata(this.oauthFetch, resource, challenge.resourceMetadata, o);
    const issuer = await chooseIssuer(this.store, o.clientId, o.issuer, prm.authorization_servers);
    const as = await authorizationServer(this.oauthFetch, issuer, resource, o);
    const tokenEndpoint = checkTokenEndpoint(as, o.tokenEndpoint);
    const scope = challenge.scope ?? prm.scopes_supported?.join(" ") ?? this.options.scope;
    const client: oauth.Client = { client_id: this.options.clientId };
    const params: Record<string, string> = { resource: prm.resource, ...(scope ? { scope } : {}) };
    const request = requestOptions(this.oauthFetch, tokenEndpoint, this.options.allowHttp);
    const { assertion } = this.options;
    const tokens = assertion
      ? await oauth.processGenericTokenEndpointResponse(
          as,
          client,
          await oauth.genericTokenEndpointRequest(
            as,
            client,
            this.clientAuth(as),
            JWT_BEARER,
            { ...params, assertion: await assertion({ issuer: as.issuer, resource: prm.resource }) },
            request,
          ),
        )
      : await oauth.processClientCredentialsResponse(
          as,
          client,
          await oauth.clientCredentialsGrantRequest(as, client, this.clientAuth(as), params, request),
        );
    await this.store.set(tokensKey(resource), storedTokens(as.issuer, tokens, scope, prm.resource));
  }
}
