/**
 * What a server says about itself before anyone connects: the Server Card (the SEP-2127 extension,
 * ../shared/spec/server-card/) and the official MCP Registry's `server.json`, both built here from
 * the app's own `info` and the URL it is served at, so neither can drift from what `server/discover`
 * and every result's serverInfo say. Pure rules, no HTTP: the Worker serves them
 * (src/engine/discovery/), `npm run server-json` prints one, and Node tests check them.
 */
import type { Implementation } from "./types";
import { LEGACY_VERSIONS, MODERN_VERSION } from "./versions";

const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
export const SERVER_CARD_TYPE = "application/mcp-server-card+json";

/** The registry's and the card's pattern for a name: a reverse-DNS namespace, one slash, a server name. */
const REGISTRY_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
/** The registry's and the card's limit for `description` and `title`. */
const DESCRIPTION_MAX = 100;

/** How a client gets in: nothing to do, a bearer token its user is given, or an OAuth sign-in it runs itself. */
export type SignIn = "none" | "token" | "oauth";

/** Where the app is served and how a client gets in: what the card, the catalog and the page are built for. */
export interface DiscoverySite {
  info: Implementation;
  /** The MCP endpoint's path ("/mcp"). */
  path: string;
  signIn: SignIn;
}

/** What the Worker tells discovery of how it authenticates (WorkerOptions' own fields; the OAuth entry: `principal`). */
export interface DiscoveryAuth {
  principal?: unknown;
  verifyToken?: unknown;
  authorizationServers?: readonly string[];
}

/**
 * What `discovery()` (src/engine/discovery/) gives `defineApp({ discovery })`: the registry name
 * the fork chose, and the handler of the discovery paths, which returns undefined for any other
 * request. An app without it serves none of them and bundles none of their code.
 */
export interface Discovery {
  /** The reverse-DNS name with one slash; unset, derived from the host (`registryName`). */
  readonly name?: string;
  /** `env` is the Worker's (its settings decide the sign-in); `path` the MCP endpoint's. */
  serve(request: Request, env: object, at: { info: Implementation; path: string; auth: DiscoveryAuth }): Promise<Response | undefined>;
}

/** The part of a name after the slash: the app's name, with what the pattern refuses made a hyphen. */
const serverPart = (name: string) => name.replace(/[^a-zA-Z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "mcp";

/**
 * The name in the card and `server.json`: the fork's own (`discovery({ name })`), else derived from
 * the host the server answers on, reversed (`mcp.example.com` gives `com.example.mcp/<info.name>`),
 * which the registry's HTTP or DNS proof of that host lets its owner publish.
 */
export function registryName(info: Implementation, host: string, name?: string): string {
  if (name) return name;
  const hostname = host.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  const namespace =
    /^[\d.]+$/.test(hostname) || hostname.includes(":") ? hostname.replace(/:/g, "-") : hostname.split(".").reverse().join(".");
  return `${namespace.replace(/[^a-zA-Z0-9.-]/g, "-")}/${serverPart(info.name)}`.slice(0, 200);
}

/** At most DESCRIPTION_MAX characters, cut at a word with an ellipsis (the app check warns first). */
export function clip(text: string): string {
  if (text.length <= DESCRIPTION_MAX) return text;
  const cut = text.slice(0, DESCRIPTION_MAX - 1);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 60 ? cut.lastIndexOf(" ") : cut.length).trimEnd()}…`;
}

/** The description a directory shows: the app's, else its title, else its name. */
const describe = (info: Implementation) => clip(info.description || info.title || info.name);

/** The Authorization header a client with a static token sends, as the card and the registry describe an input. */
function tokenHeader() {
  const about = "A bearer token from the server's operator";
  return {
    name: "Authorization",
    description: about,
    isRequired: true,
    isSecret: true,
    value: "Bearer {token}",
    variables: { token: { description: about, isRequired: true, isSecret: true } },
  };
}

/** What the card and `server.json` share: identity, and the one remote. */
function identity(info: Implementation, url: string, signIn: SignIn, name: string | undefined) {
  return {
    name: registryName(info, new URL(url).host, name),
    version: info.version,
    ...(info.title ? { title: clip(info.title) } : {}),
    description: describe(info),
    ...(info.websiteUrl ? { websiteUrl: info.websiteUrl } : {}),
    ...(info.icons?.length ? { icons: info.icons } : {}),
    remote: { type: "streamable-http", url, ...(signIn === "token" ? { headers: [tokenHeader()] } : {}) },
  };
}

/**
 * The Server Card of the server at `url` (its /mcp endpoint): the revisions it serves, newest first
 * (2026-07-28 per request, the 2025 ones in sessions), as `server/discover` and `initialize` offer them.
 */
export function serverCard(info: Implementation, url: string, signIn: SignIn, name?: string): Record<string, unknown> {
  const { remote, ...id } = identity(info, url, signIn, name);
  return {
    $schema: SERVER_CARD_SCHEMA,
    ...id,
    remotes: [{ ...remote, supportedProtocolVersions: [MODERN_VERSION, ...LEGACY_VERSIONS] }],
  };
}

/** The registry's `server.json` (schema 2025-12-11) of the server at `url`: the card's identity and remote. */
export function serverJson(info: Implementation, url: string, signIn: SignIn, name?: string): Record<string, unknown> {
  const { remote, ...id } = identity(info, url, signIn, name);
  return { $schema: SERVER_JSON_SCHEMA, ...id, remotes: [remote] };
}

/** What the registry would refuse in a `server.json`, or a directory would flag: one sentence each. */
export function registryProblems(doc: { name?: unknown; version?: unknown; description?: unknown; remotes?: unknown }): string[] {
  const problems: string[] = [];
  const name = String(doc.name ?? "");
  if (!REGISTRY_NAME.test(name) || name.length > 200)
    problems.push(`name "${name}" is not a reverse-DNS namespace, one slash and a server name (e.g. io.github.you/weather)`);
  const version = String(doc.version ?? "");
  if (!version || version === "latest" || /^[\^~<>=]|\.[x*](\.|$)|\s-\s|\|\|/.test(version))
    problems.push(`version "${version}" is not one concrete version (the registry refuses ranges and "latest")`);
  const description = String(doc.description ?? "");
  if (!description || description.length > DESCRIPTION_MAX)
    problems.push(`description has ${description.length} characters; the registry takes 1 to ${DESCRIPTION_MAX}`);
  const remotes = Array.isArray(doc.remotes) ? doc.remotes : [];
  if (!remotes.some((r) => r?.type === "streamable-http" && /^https:\/\//.test(String(r?.url))))
    problems.push("remotes name no streamable-http URL over https (the registry lists public servers only)");
  return problems;
}

/** What the card and `server.json` would cut or a registry refuse, said by the app check before a deploy. */
export function discoveryWarnings(info: Implementation, name: string | undefined): string[] {
  const warnings: string[] = [];
  const long = (what: string, text?: string) =>
    text &&
    text.length > DESCRIPTION_MAX &&
    warnings.push(`info.${what} has ${text.length} characters; the Server Card and the registry take ${DESCRIPTION_MAX}, so it is cut`);
  if (!info?.description)
    warnings.push("info has no description: the Server Card and the registry entry show the title or the name instead");
  long("description", info?.description);
  long("title", info?.title);
  if (name !== undefined && !REGISTRY_NAME.test(name))
    warnings.push(`discovery({ name: "${name}" }) is not reverse-DNS with one slash (e.g. io.github.you/weather): the card is invalid`);
  return warnings;
}
