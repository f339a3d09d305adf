/**
 * What the OAuth providers share around oauth4webapi: the options of each
 * request to an authorization server (the app's fetch; plain http only where
 * allowed, by default on loopback hosts for local development) and the token
 * response as it is stored.
 */
import * as oauth from "oauth4webapi";
import type { Fetch } from "../wire";
import type { StoredTokens } from "./store";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export const isLoopback = (url: string) => LOOPBACK.has(new URL(url).hostname);

export function requestOptions(fetchFn: Fetch, url: string, allowHttp?: boolean) {
  const insecure = allowHttp ?? isLoopback(url);
  return {
    [oauth.customFetch]: (u: string, init: RequestInit) => fetchFn(u, init),
    ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

/** A token response as kept: the scope granted (or, when the server did not say, asked for) and when it expires. */
export function storedTokens(issuer: string, t: oauth.TokenEndpointResponse, asked: string | undefined, resource: string): StoredTokens {
  const scope = t.scope ?? asked;
  return {
    accessToken: t.access_token,
    issuer,
    resource,
    ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
    ...(scope ? { scope } : {}),
    ...(typeof t.expires_in === "number" ? { expiresAt: Date.now() + t.expires_in * 1000 } : {}),
  };
}

/**
 * client_secret_basic with unreserved characters (such as "-") left as they are: a decoding server
 * reads the same credentials, and a server that compares them undecoded still recognises its own id.
 */
export const basicAuth =
  (secret: string): oauth.ClientAuth =>
  (_as, client, _body, headers) =>
    headers.set("authorization", `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`)}`);
