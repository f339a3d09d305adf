/**
 * Finding who issues tokens for an MCP server: its protected resource
 * metadata (RFC 9728; from the challenge's `resource_metadata`, else the
 * path-suffixed and then the root well-known URL), and the authorization
 * server's metadata (RFC 8414 and OpenID discovery, in the order MCP gives).
 * oauth4webapi checks that the metadata names the issuer it was asked for.
 * Every address either server names is checked first (endpoints.ts), and
 * credentials made for one authorization server stay with it (`chooseIssuer`).
 */
import * as oauth from "oauth4webapi";
import { McpClientError } from "../errors";
import type { Fetch } from "../wire";
import { checkEndpoint, type EndpointPolicy } from "./endpoints";
import { issuerKey, type TokenStore } from "./store";

interface ResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
}

export async function resourceMetadata(
  fetchFn: Fetch,
  serverUrl: string,
  fromChallenge: string | undefined,
  policy: EndpointPolicy,
): Promise<ResourceMetadata> {
  if (fromChallenge) checkEndpoint(fromChallenge, "resource metadata URL in the server's challenge", serverUrl, policy);
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/$/, "");
  const candidates = [
    ...(fromChallenge ? [fromChallenge] : []),
    ...(path ? [`${url.origin}/.well-known/oauth-protected-resource${path}`] : []),
    `${url.origin}/.well-known/oauth-protected-resource`,
  ];
  for (const candidate of candidates) {
    const res = await fetchFn(candidate, { headers: { Accept: "application/json" } }).catch(() => undefined);
    if (!res?.ok) {
      await res?.body?.cancel();
      continue;
    }
    const prm = (await res.json()) as ResourceMetadata;
    if (!Array.isArray(prm.authorization_servers) || prm.authorization_servers.length === 0) {
      throw new McpClientError(`The protected resource metadata at ${candidate} names no authorization server`);
    }
    if (!resourceMatches(prm.resource, serverUrl)) {
      throw new McpClientError(`The protected resource metadata is for ${prm.resource}, not for ${serverUrl}; refusing to send it a token`);
    }
    return prm;
  }
  throw new McpClientError(`No protected resource metadata found for ${serverUrl}`, undefined, 401);
}

/** The metadata's resource must be this server or a path above it, on the same origin. */
function resourceMatches(resource: unknown, serverUrl: string): boolean {
  if (typeof resource !== "string") return false;
  try {
    const r = new URL(resource);
    const s = new URL(serverUrl);
    if (r.origin !== s.origin) return false;
    const rp = r.pathname.replace(/\/$/, "");
    const sp = s.pathname.replace(/\/$/, "");
    return sp === rp || sp.startsWith(rp + "/");
  } catch {
    return false;
  }
}

/** The well-known URLs MCP tries for an issuer, in order. */
function metadataUrls(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/$/, "");
  if (!path) return [`${issuer.origin}/.well-known/oauth-authorization-server`, `${issuer.origin}/.well-known/openid-configuration`];
  return [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The endpoints of an authorization server's metadata that the client contacts or sends the user to. */
const ENDPOINTS = ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const;

export async function authorizationServer(
  fetchFn: Fetch,
  issuer: string,
  serverUrl: string,
  policy: EndpointPolicy,
): Promise<oauth.AuthorizationServer> {
  checkEndpoint(issuer, "authorization server", serverUrl, policy);
  const expected = new URL(issuer);
  for (const url of metadataUrls(expected)) {
    const res = await fetchFn(url, { headers: { Accept: "application/json" } }).catch(() => undefined);
    if (!res?.ok) {
      await res?.body?.cancel();
      continue;
    }
    // Rejects metadata whose issuer is not the one the URL was built from (a mix-up defence).
    const as = await oauth.processDiscoveryResponse(expected, res);
    for (const key of ENDPOINTS) if (typeof as[key] === "string") checkEndpoint(as[key], `${key} of ${as.issuer}`, serverUrl, policy);
    return as;
  }
  throw new McpClientError(`No authorization server metadata found for ${issuer}`);
}

const sameIssuer = (a: string, b: string) => a.replace(/\/$/, "") === b.replace(/\/$/, "");

/**
 * The authorization server to send `clientId`'s credentials to, among those the MCP server names: the
 * one configured (`issuer`), else the one they were first sent to, kept in the store. A client
 * registered with one authorization server MUST NOT be used with another, so a server that now names
 * a different one gets a clear error, not the secret.
 */
export async function chooseIssuer(
  store: TokenStore,
  clientId: string | undefined,
  configured: string | undefined,
  named: string[],
): Promise<string> {
  const pinned = configured ?? (clientId === undefined ? undefined : ((await store.get(issuerKey(clientId))) as string | undefined));
  if (pinned === undefined) {
    // A client registered on the way (dynamic registration, a metadata document) has one registration per issuer.
    if (clientId !== undefined) await store.set(issuerKey(clientId), named[0]!);
    return named[0]!;
  }
  const match = named.find((n) => sameIssuer(n, pinned));
  if (match === undefined) {
    throw new McpClientError(
      `The MCP server names the authorization server ${named.join(", ")}, but this client's credentials belong to ${pinned}; they are not sent anywhere else (set the issuer option to move them)`,
    );
  }
  return match;
}

/**
 * The rule for a client secret: it belongs to one authorization server, so a client configured with
 * one must say which (`issuer`, or its `tokenEndpoint`); without that the first server an MCP server
 * names would get it (trust on first use), and a hostile MCP server names its own.
 */
export function requirePinnedSecret(what: string, secret: string | undefined, pin: { issuer?: string; tokenEndpoint?: string }): void {
  if (secret && !pin.issuer && !pin.tokenEndpoint) {
    throw new McpClientError(
      `${what} has a clientSecret but no issuer (or tokenEndpoint): a secret is sent only to the authorization server it belongs to; set issuer to it`,
    );
  }
}

/** The token endpoint a secret may go to: the configured one, which the authorization server's metadata must name. */
export function checkTokenEndpoint(as: oauth.AuthorizationServer, configured: string | undefined): string {
  const named = as.token_endpoint;
  if (!named) throw new McpClientError(`The authorization server ${as.issuer} has no token endpoint`);
  if (configured !== undefined && named !== configured) {
    throw new McpClientError(
      `The authorization server ${as.issuer} names the token endpoint ${named}, but this client's credentials belong to ${configured}; they are not sent anywhere else`,
    );
  }
  return named;
}
