/**
 * DPoP (RFC 9449, the MCP auth extension for sender-constrained tokens): the
 * token is bound to a key the client holds, so a stolen token is useless
 * without it. Every token request and every request to the MCP server
 * carries a fresh proof signed with that key, the token goes as
 * `Authorization: DPoP …`, and a server that answers `use_dpop_nonce` is
 * asked once more with the nonce it gave (oauth4webapi keeps the nonces).
 */
import * as oauth from "oauth4webapi";
import type { Fetch } from "../wire";

/**
 * The key and the nonce memory of one client: pass `new DPoPKey()` (an ES256 key made here) or
 * `new DPoPKey(keyPair)` (yours, to keep with the tokens across restarts) as `OAuthClient`'s `dpop`.
 * An app without DPoP never loads this code.
 */
export class DPoPKey {
  private handle: Promise<oauth.DPoPHandle> | undefined;
  constructor(private readonly keyPair?: CryptoKeyPair) {}

  /** The oauth4webapi handle that signs proofs and keeps the servers' nonces. */
  get(): Promise<oauth.DPoPHandle> {
    this.handle ??= (async () => oauth.DPoP({}, this.keyPair ?? (await oauth.generateKeyPair("ES256"))))();
    return this.handle;
  }

  /** Runs a token request, once more with the server's nonce if it asks for one. */
  async withNonce<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      if (!oauth.isDPoPNonceError(err)) throw err;
      return attempt();
    }
  }

  /** Sends a request to the MCP server with a DPoP-bound token and a fresh proof; a refusal is returned as the server's response. */
  async send(
    token: string,
    next: Fetch,
    input: string | URL | Request,
    init: RequestInit | undefined,
    allowHttp: boolean,
  ): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const handle = await this.get();
    const body = typeof init?.body === "string" ? init.body : null;
    const attempt = () =>
      oauth.protectedResourceRequest(token, init?.method ?? "GET", url, new Headers(init?.headers), body, {
        DPoP: handle,
        [oauth.customFetch]: (u: string, o: RequestInit) =>
          next(u, { ...o, redirect: "follow", ...(init?.signal ? { signal: init.signal } : {}) }),
        ...(allowHttp ? { [oauth.allowInsecureRequests]: true } : {}),
      });
    try {
      return await this.withNonce(attempt);
    } catch (err) {
      // Any other challenge (an expired token, a missing scope) goes back to the auth loop as the answer it is.
      if (err instanceof oauth.WWWAuthenticateChallengeError) return err.response;
      throw err;
    }
  }
}
