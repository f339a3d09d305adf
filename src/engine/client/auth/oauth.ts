/**
 * The MCP authorization flow as a client, on oauth4webapi: on a 401 it finds
 * the authorization server (challenge → resource metadata → server metadata),
 * gets a client id (pre-registered, a client ID metadata document, or dynamic
 * registration), sends the user through authorization code + PKCE S256 with
 * the `resource` indicator, checks the `iss` of the answer, redeems the code,
 * and retries the request. A 403 `insufficient_scope` asks again for the
 * union of the scopes held and the scopes challenged (step-up); an expired
 * token is refreshed first. Each request triggers at most one new
 * authorization, so a server that keeps refusing ends the loop.
 */
import * as oauth from "oauth4webapi";
import type { AuthProvider } from "../client";
import { McpClientError } from "../errors";
import type { Fetch } from "../wire";
import { authorizedFetch, type Present } from "./authorized";
import type { DPoPKey } from "./dpop";
import { basicAuth, isLoopback, requestOptions, storedTokens } from "./requests";
import type { BearerChallenge } from "./challenge";
import { authorizationServer, checkTokenEndpoint, chooseIssuer, requirePinnedSecret, resourceMetadata } from "./discovery";
import { MemoryTokenStore, clientKey, tokensKey, type StoredClient, type StoredTokens, type TokenStore } from "./store";

export interface OAuthClientOptions {
  /** Where the authorization server sends the user back (registered with it). */
  redirectUri: string;
  /**
   * Sends the user to `authorizationUrl` and resolves with the full URL the
   * browser came back to on `redirectUri` (with `code`, `state`, `iss`).
   */
  authorize: (authorizationUrl: URL) => Promise<string | URL>;
  clientName?: string;
  /**
   * A client registered beforehand with one authorization server: `issuer`, or else (a public client,
   * no secret) the first one an MCP server names, kept in the store. A server that names another gets
   * an error, not these credentials.
   */
  clientId?: string;
  /** The pre-registered client's secret: needs `issuer` (or `tokenEndpoint`), and is sent to no other server. */
  clientSecret?: string;
  /** The authorization server `clientId` belongs to; set, it is the only one the client authorizes with. */
  issuer?: string;
  /** The token endpoint `clientId` belongs to: the authorization server's metadata must name exactly this one. */
  tokenEndpoint?: string;
  /** An https URL of this client's metadata document, used when the server supports client ID metadata documents. */
  clientMetadataUrl?: string;
  /** For dynamic registration; by default `web` for an https redirect to a host other than loopback, `native` otherwise. */
  applicationType?: "native" | "web";
  /** Scope to ask for when neither the challenge nor the resource metadata names one. */
  scope?: string;
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it. Default true. */
  offlineAccess?: boolean;
  store?: TokenStore;
  /** The fetch for the OAuth requests (discovery, registration, tokens). */
  fetch?: Fetch;
  /** Allow http:// endpoints. Defaults to true only for loopback hosts (local development). */
  allowHttp?: boolean;
  /**
   * Allow authorization servers and endpoints on private, link-local or loopback addresses (default:
   * only when the MCP server is on one itself, for local development).
   */
  allowPrivateNetwork?: boolean;
  /** Bind tokens to a key with DPoP (RFC 9449): `new DPoPKey()`, or `new DPoPKey(keyPair)` to keep the key with the tokens. */
  dpop?: DPoPKey;
}

/** A token this close to its expiry is refreshed before it is sent. */
const REFRESH_BEFORE_MS = 60_000;
const union = (...scopes: (string | undefined)[]) => {
  const set = new Set(scopes.flatMap((s) => s?.split(" ") ?? []).filter(Boolean));
  return set.size ? [...set].join(" ") : undefined;
};

export class OAuthClient implements AuthProvider {
  private readonly store: TokenStore;
  private readonly dpop: DPoPKey | undefined;
  constructor(private readonly options: OAuthClientOptions) {
    if (options.clientId) requirePinnedSecret("OAuthClient", options.clientSecret, options);
    this.store = options.store ?? new MemoryTokenStore();
    this.dpop = options.dpop;
  }

  /** A token request, retried with the server's nonce when tokens are bound to a DPoP key. */
  private withNonce<T>(attempt: () => Promise<T>): Promise<T> {
    return this.dpop ? this.dpop.withNonce(attempt) : attempt();
  }

  /** Token request options: the fetch, and the DPoP key when tokens are bound to one. */
  private async tokenOptions(url: string) {
    return { ...this.requestOptions(url), ...(this.dpop ? { DPoP: await this.dpop.get() } : {}) };
  }

  private get oauthFetch(): Fetch {
    return this.options.fetch ?? ((input, init) => fetch(input, init));
  }

  private requestOptions(url: string) {
    return requestOptions(this.oauthFetch, url, this.options.allowHttp);
  }

  /** The tokens held for an MCP server, if any. */
  async tokens(resource: string): Promise<StoredTokens | undefined> {
    return (await this.store.get(tokensKey(resource))) as StoredTokens | undefined;
  }

  wrap(next: Fetch, resource: string): Fetch {
    const dpop = this.dpop;
    const present: Present | undefined = dpop
      ? (token, next, input, init) => dpop.send(token, next, input, init, this.options.allowHttp ?? isLoopback(resource))
      : undefined;
    return authorizedFetch(
      next,
      resource,
      () => this.current(resource),
      (status, challenge) => this.obtain(resource, status, challenge),
      present,
    );
  }

  /**
   * The access token to send: one about to expire is refreshed first (when there is a refresh token),
   * so a request does not go out with a token the server will refuse on the way.
   */
  private async current(resource: string): Promise<string | undefined> {
    const held = await this.tokens(resource);
    if (held?.refreshToken && held.expiresAt !== undefined && held.expiresAt - Date.now() < REFRESH_BEFORE_MS) {
      const refreshed = await authorizationServer(this.oauthFetch, held.issuer, resource, this.options)
        .then((as) => this.refresh(resource, held.resource ?? resource, as, held))
        .catch(() => false);
      if (refreshed) return (await this.tokens(resource))?.accessToken;
    }
    return held?.accessToken;
  }

  /** Gets a usable token for `resource` after the server refused the one held (or none). */
  private async obtain(resource: string, status: number, challenge: BearerChallenge): Promise<void> {
    const held = await this.tokens(resource);
    const o = this.options;
    const prm = await resourceMetadata(this.oauthFetch, resource, challenge.resourceMetadata, o);
    // Pre-registered credentials go only to the authorization server they belong to.
    const issuer = await chooseIssuer(this.store, o.clientId, o.issuer, prm.authorization_servers);
    const as = await authorizationServer(this.oauthFetch, issuer, resource, o);
    // A refused token with a refresh token from the same server: refresh before bothering the user.
    if (status === 401 && held?.refreshToken && held.issuer === as.issuer) {
      if (await this.refresh(resource, prm.resource, as, held).catch(() => false)) return;
    }
    const stepUp = status === 403 ? held?.scope : undefined;
    let scope = union(stepUp, challenge.scope ?? (stepUp ? undefined : prm.scopes_supported?.join(" ")) ?? this.options.scope);
    if (
      (this.options.offlineAccess ?? true) &&
      as.scopes_supported?.includes("offline_access") &&
      scope &&
      !scope.split(" ").includes("offline_access")
    ) {
      scope = union(scope, "offline_access");
    }
    await this.authorizeAt(resource, prm.resource, as, scope);
  }

  private async client(as: oauth.AuthorizationServer): Promise<StoredClient> {
    const stored = (await this.store.get(clientKey(as.issuer))) as StoredClient | undefined;
    if (stored) return stored;
    const o = this.options;
    if (o.clientId) {
      // Before the user is sent anywhere or a secret leaves: the metadata must name the token endpoint configured.
      checkTokenEndpoint(as, o.tokenEndpoint);
      return { clientId: o.clientId, ...(o.clientSecret ? { clientSecret: o.clientSecret } : {}) };
    }
    if (o.clientMetadataUrl && as.client_id_metadata_document_supported)
      return { clientId: o.clientMetadataUrl, tokenEndpointAuthMethod: "none" };
    if (!as.registration_endpoint)
      throw new McpClientError(`The authorization server ${as.issuer} offers no registration and this client has no client id for it`);
    const methods = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
    const method = methods.includes("none")
      ? "none"
      : methods.includes("client_secret_basic")
        ? "client_secret_basic"
        : "client_secret_post";
    // Registration is read by hand: authorization servers fill optional fields loosely (a null expiry),
    // and only the id, the secret and the auth method matter here.
    const res = await this.oauthFetch(as.registration_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        client_name: o.clientName ?? "MCP client",
        redirect_uris: [o.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: method,
        // OpenID DCR: a client whose redirect is an https URL on a real host is a web client.
        application_type: o.applicationType ?? (o.redirectUri.startsWith("https:") && !isLoopback(o.redirectUri) ? "web" : "native"),
      }),
    });
    const reg = (await res.json().catch(() => ({}))) as {
      client_id?: unknown;
      client_secret?: unknown;
      token_endpoint_auth_method?: unknown;
    };
    if (!res.ok || typeof reg.client_id !== "string")
      throw new McpClientError(`Dynamic client registration at ${as.issuer} failed (HTTP ${res.status})`, undefined, res.status);
    const client: StoredClient = {
      clientId: reg.client_id,
      ...(typeof reg.client_secret === "string" ? { clientSecret: reg.client_secret } : {}),
      ...(typeof reg.token_endpoint_auth_method === "string" ? { tokenEndpointAuthMethod: reg.token_endpoint_auth_method } : {}),
    };
    await this.store.set(clientKey(as.issuer), client);
    return client;
  }

  private clientAuth(as: oauth.AuthorizationServer, client: StoredClient): oauth.ClientAuth {
    if (!client.clientSecret) return oauth.None();
    const method =
      client.tokenEndpointAuthMethod ??
      (as.token_endpoint_auth_methods_supported?.includes("client_secret_post") &&
      !as.token_endpoint_auth_methods_supported.includes("client_secret_basic")
        ? "client_secret_post"
        : "client_secret_basic");
    return method === "client_secret_post" ? oauth.ClientSecretPost(client.clientSecret) : basicAuth(client.clientSecret);
  }

  private async authorizeAt(
    resource: string,
    resourceIndicator: string,
    as: oauth.AuthorizationServer,
    scope: string | undefined,
  ): Promise<void> {
    if (!as.authorization_endpoint || !as.token_endpoint)
      throw new McpClientError(`The authorization server ${as.issuer} has no authorization or token endpoint`);
    // MCP asks for PKCE S256, and a server that does not advertise it may ignore the challenge: then a
    // stolen code would be redeemable. Refuse before the user is sent anywhere.
    if (!as.code_challenge_methods_supported?.includes("S256")) {
      throw new McpClientError(
        `The authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported); the client will not authorize with it`,
      );
    }
    const stored = await this.client(as);
    const client: oauth.Client = { client_id: stored.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    const q = url.searchParams;
    q.set("response_type", "code");
    q.set("client_id", stored.clientId);
    q.set("redirect_uri", this.options.redirectUri);
    q.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    q.set("code_challenge_method", "S256");
    q.set("state", state);
    q.set("resource", resourceIndicator);
    if (scope) q.set("scope", scope);
    const back = new URL(String(await this.options.authorize(url)));
    // Checks state, an error answer, and `iss` against the issuer (RFC 9207) before the code is used.
    const params = oauth.validateAuthResponse(as, client, back, state);
    const options = { additionalParameters: { resource: resourceIndicator }, ...(await this.tokenOptions(as.token_endpoint)) };
    const tokens = await this.withNonce(async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          this.clientAuth(as, stored),
          params,
          this.options.redirectUri,
          verifier,
          options,
        ),
      ),
    );
    await this.save(resource, resourceIndicator, as.issuer, tokens, scope);
  }

  private async refresh(resource: string, resourceIndicator: string, as: oauth.AuthorizationServer, held: StoredTokens): Promise<boolean> {
    if (!as.token_endpoint || !held.refreshToken) return false;
    const stored = await this.client(as);
    const client: oauth.Client = { client_id: stored.clientId };
    // RFC 8707: the resource goes with every token request, a refresh included.
    const options = { additionalParameters: { resource: resourceIndicator }, ...(await this.tokenOptions(as.token_endpoint)) };
    const tokens = await this.withNonce(async () =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, this.clientAuth(as, stored), held.refreshToken!, options),
      ),
    );
    await this.save(
      resource,
      resourceIndicator,
      as.issuer,
      { ...tokens, refresh_token: tokens.refresh_token ?? held.refreshToken },
      held.scope,
    );
    return true;
  }

  private async save(
    resource: string,
    resourceIndicator: string,
    issuer: string,
    t: oauth.TokenEndpointResponse,
    asked: string | undefined,
  ): Promise<void> {
    await this.store.set(tokensKey(resource), storedTokens(issuer, t, asked, resourceIndicator));
  }

  /** Forgets the tokens for a server (sign out). */
  async forget(resource: string): Promise<void> {
    await this.store.delete(tokensKey(resource));
  }
}
