/**
 * Where the OAuth client keeps what it obtained: the tokens for each MCP
 * server and the client registration at each authorization server (a
 * registration is never shown to another issuer). Memory by default; a
 * Durable Object's storage or KV fits the same interface.
 */
export interface TokenStore {
  get(key: string): Promise<unknown> | unknown;
  set(key: string, value: unknown): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

export class MemoryTokenStore implements TokenStore {
  private readonly map = new Map<string, unknown>();
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    this.map.set(key, value);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** Scopes granted (or, when the server did not say, asked for). */
  scope?: string;
  /** Epoch milliseconds. */
  expiresAt?: number;
  /** The authorization server that issued them. */
  issuer: string;
  /** The resource indicator (RFC 8707) they were asked for, sent again with a refresh. */
  resource?: string;
}

export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: string;
}

export const tokensKey = (resource: string) => `tokens:${resource}`;
export const clientKey = (issuer: string) => `client:${issuer}`;
/** The authorization server a pre-registered client's credentials were first sent to (the pin). */
export const issuerKey = (clientId: string) => `issuer:${clientId}`;
