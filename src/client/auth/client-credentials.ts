/**
 * OAuth client credentials (the MCP auth extension for machine clients): no
 * user and no browser. On a 401 the provider finds the authorization server
 * the same way as the user flow (challenge → resource metadata → server
 * metadata), then asks its token endpoint for a token with
 * `grant_type=client_credentials` and the `resource` indicator, proving who
 * it is with a client secret (`client_secret_basic`, or `client_secret_post`
 * where the server lists only that) or a signed JWT (`private_key_jwt`).
 */
import * as oauth from "oauth4webapi";
import type { AuthProvider } from "../client";
import { McpClientError } from "../errors";
import type { Fetch } from "../wire";
import { authorizedFetch } from "./authorized";
import type { BearerChallenge } from "./challenge";
import { authorizationServer, resourceMetadata } from "./discovery";
import { basicAuth, requestOptions, storedTokens } from "./requests";
import { MemoryTokenStore, tokensKey, type StoredTokens, type TokenStore } from "./store";

export interface ClientCredentialsOptions {
  clientId: string;
  /** The client's secret (client_secret_basic / client_secret_post). */
  clientSecret?: string;
  /** Or the key that signs its assertions (private_key_jwt), e.g. an ES256 key imported with WebCrypto. */
  privateKey?: CryptoKey | { key: CryptoKey; kid?: string };
  /** Scope to ask for when neither the challenge nor the resource metadata names one. */
  scope?: string;
  store?: TokenStore;
  /** The fetch for discovery and token requests. */
  fetch?: Fetch;
  /** Allow http:// endpoints. Defaults to true only for loopback hosts (local development). */
  allowHttp?: boolean;
}

export class ClientCredentials implements AuthProvider {
  private readonly store: TokenStore;
  constructor(private readonly options: ClientCredentialsOptions) {
    if (!options.clientSecret && !options.privateKey) throw new McpClientError("ClientCredentials needs a clientSecret or a privateKey");
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
    const methods = as.token_endpoint_auth_methods_supported;
    return methods?.includes("client_secret_post") && !methods.includes("client_secret_basic") ? oauth.ClientSecretPost(clientSecret!) : basicAuth(clientSecret!);
  }

  private async obtain(resource: string, challenge: BearerChallenge): Promise<void> {
    const prm = await resourceMetadata(this.oauthFetch, resource, challenge.resourceMetadata);
    const as = await authorizationServer(this.oauthFetch, prm.authorization_servers[0]!);
    if (!as.token_endpoint) throw new McpClientError(`The authorization server ${as.issuer} has no token endpoint`);
    const scope = challenge.scope ?? prm.scopes_supported?.join(" ") ?? this.options.scope;
    const client: oauth.Client = { client_id: this.options.clientId };
    const params: Record<string, string> = { resource: prm.resource, ...(scope ? { scope } : {}) };
    const res = await oauth.clientCredentialsGrantRequest(as, client, this.clientAuth(as), params, requestOptions(this.oauthFetch, as.token_endpoint, this.options.allowHttp));
    const tokens = await oauth.processClientCredentialsResponse(as, client, res);
    await this.store.set(tokensKey(resource), storedTokens(as.issuer, tokens, scope));
  }
}
