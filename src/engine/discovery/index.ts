/**
 * `discovery()`, the opt-in value of `defineApp({ discovery })` that makes a server findable and
 * connectable (docs/discovery.md): its Server Card at `<mcp>/server-card`, the AI Catalog that lists it
 * at /.well-known/ai-catalog.json, the registry's HTTP proof at /.well-known/mcp-registry-auth
 * (MCP_REGISTRY_AUTH), and a page for a person whose browser opens the MCP URL. All public (no token),
 * built per request from the app's `info` and the request's origin, and rate limited per client address
 * (the discovery notes' SHOULD). The Worker hands every request here first; anything else gets undefined
 * and goes on to /mcp as before.
 */
import { readConfig, type Config, type Vars } from "../config";
import type { RateLimitBindings } from "../env";
import { authorizationServers } from "../http/auth";
import { checkHost } from "../http/gate";
import { overLimit, rateLimitKey } from "../http/rate-limit";
import { reject } from "../http/responses";
import {
  SERVER_CARD_TYPE,
  registryName,
  serverCard,
  type Discovery,
  type DiscoveryAuth,
  type DiscoverySite,
  type SignIn,
} from "../mcp/discovery";
import { ErrorCode } from "../mcp/errors";
import { wantsPage, page } from "./page";

export interface DiscoveryOptions {
  /**
   * The reverse-DNS name with one slash the card and `server.json` carry (`io.github.you/weather`,
   * `com.example/weather`): a namespace the registry lets you prove (docs/discovery.md). Default: the
   * host reversed and the app's `info.name` (`com.example.mcp/weather` on mcp.example.com).
   */
  name?: string;
  /** Serve the Server Card at `<mcp path>/server-card` (default true). */
  card?: boolean;
  /** Serve /.well-known/ai-catalog.json listing the card (default true; false to serve your own from your routes). */
  catalog?: boolean;
  /** Answer a browser that opens the MCP URL with a page saying how to add the server (default true). */
  page?: boolean;
  /**
   * Count the card's, the catalog's and the registry proof's requests per client address and answer 429
   * with Retry-After past the limit (default true): MCP_DISCOVERY_RATE_LIMIT's limit when that binding
   * exists, else MCP_RATE_LIMIT's, counted apart from MCP traffic. false: no limit of their own.
   */
  rateLimit?: boolean;
}

const CATALOG_PATH = "/.well-known/ai-catalog.json";
const REGISTRY_AUTH_PATH = "/.well-known/mcp-registry-auth";
/** The discovery notes' advice for a card: an hour fresh, then revalidated with its ETag. */
const CACHE = "public, max-age=3600";
/** Public, read-only metadata: readable from any origin, its validator exposed (the notes' CORS list). */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
  "Access-Control-Expose-Headers": "ETag",
};

export function discovery(options: DiscoveryOptions = {}): Discovery {
  const { name, card = true, catalog = true, rateLimit = true } = options;
  return {
    name,
    async serve(request, env, { info, path, auth }) {
      const url = new URL(request.url);
      const at = url.pathname.replace(/\/+$/, "") || "/";
      const cardPath = `${path}/server-card`;
      const mcpUrl = `${url.origin}${path}`;
      const config = readConfig(env as Vars);
      const site: DiscoverySite = { info, path, signIn: signInOf(config, auth) };
      let body: (() => string) | undefined;
      let type = "application/json";
      if (card && at === cardPath) {
        body = () => JSON.stringify(serverCard(site.info, mcpUrl, site.signIn, name));
        type = SERVER_CARD_TYPE;
      } else if (card && catalog && at === CATALOG_PATH) {
        body = () => JSON.stringify(aiCatalog(site, url, name));
        type = "application/ai-catalog+json";
      } else if (at === REGISTRY_AUTH_PATH && (env as Vars).MCP_REGISTRY_AUTH) {
        body = () => (env as Vars).MCP_REGISTRY_AUTH!.trim();
        type = "text/plain; charset=utf-8";
      } else if (options.page !== false && at === path && wantsPage(request)) {
        return checkHost(request, config) ?? page(site, mcpUrl, card ? `${mcpUrl}/server-card` : undefined, name);
      }
      if (!body) return undefined;
      return checkHost(request, config) ?? (rateLimit ? await limited(request, env) : null) ?? document(request, body, type);
    },
  };
}

/**
 * The 429 for a client address past its budget for discovery documents, or null. Keyed apart from its
 * MCP requests, so a client that reads the card spends none of its MCP budget, and the reverse. A
 * preflight is not counted: browsers keep it a day (Access-Control-Max-Age).
 */
async function limited(request: Request, env: object): Promise<Response | null> {
  if (request.method === "OPTIONS") return null;
  const { MCP_DISCOVERY_RATE_LIMIT: own, MCP_RATE_LIMIT: shared } = env as RateLimitBindings;
  const binding = own ? "MCP_DISCOVERY_RATE_LIMIT" : "MCP_RATE_LIMIT";
  const refused = await overLimit(own ?? shared, `discovery:${rateLimitKey(request, "")}`, "discovery documents", binding);
  if (!refused) return null;
  // Readable by the browser clients the card's CORS serves, so they see the Retry-After.
  for (const [key, value] of Object.entries(CORS)) refused.headers.set(key, value);
  return refused;
}

/** How a client gets in: the OAuth entry's or a router's hook, metadata naming an authorization server, a token check, or nothing. */
function signInOf(config: Config, auth: DiscoveryAuth): SignIn {
  if (auth.principal || authorizationServers(config.auth, auth.authorizationServers).length > 0) return "oauth";
  return config.auth.mode !== "none" || auth.verifyToken ? "token" : "none";
}

/** The catalog of this one server (discovery notes, "AI Catalog"): its card's URL, named `urn:air:<host>:mcp:<server>`. */
function aiCatalog(site: DiscoverySite, url: URL, name: string | undefined) {
  const server = registryName(site.info, url.host, name).split("/")[1];
  return {
    specVersion: "1.0",
    entries: [
      { identifier: `urn:air:${url.hostname}:mcp:${server}`, type: SERVER_CARD_TYPE, url: `${url.origin}${site.path}/server-card` },
    ],
  };
}

/** A public document: GET and HEAD, with an ETag (a hash of the body) that a matching If-None-Match turns into 304. */
async function document(request: Request, body: () => string, type: string): Promise<Response> {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: { ...CORS, "Access-Control-Max-Age": "86400" } });
  if (request.method !== "GET" && request.method !== "HEAD")
    return reject(405, ErrorCode.InvalidRequest, "Method not allowed; use GET", { Allow: "GET, HEAD, OPTIONS", ...CORS });
  const text = body();
  const etag = `"${await digest(text)}"`;
  const headers = { ...CORS, "Cache-Control": CACHE, ETag: etag };
  if (matchesEtag(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : text, { headers: { ...headers, "Content-Type": type } });
}

/** The first 16 bytes of the body's SHA-256, hex: a strong validator of exactly these bytes. */
async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(hash.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** RFC 9110's If-None-Match: `*`, or a list of tags compared weakly (a W/ prefix does not matter). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}
