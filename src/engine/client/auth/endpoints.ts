/**
 * Which addresses the OAuth client will contact or send the user to, when an
 * MCP server or an authorization server names them (a `resource_metadata`
 * URL, an issuer, an endpoint in its metadata). A hostile server could name
 * plain http (a token or a code in clear), or an address inside the network
 * the client runs in (169.254.169.254, 10.0.0.7: the cloud's metadata
 * service, an internal host), so both are refused unless allowed:
 * - plain http only with `allowHttp` (by default on loopback hosts alone);
 * - private, link-local and loopback addresses only with `allowPrivateNetwork`, or when the MCP
 *   server is itself on one (local development).
 * An address is judged as written: a name that resolves to a private address is not caught here.
 */
import { McpClientError } from "../errors";
import { isLoopback } from "./requests";

export interface EndpointPolicy {
  allowHttp?: boolean;
  allowPrivateNetwork?: boolean;
  /**
   * What the refusal says allows the address, where the caller is not the client's own options (a
   * mount: `npm run dev`, a service binding); by default the client's option that allows it.
   */
  allowedBy?: { http: string; privateNetwork: string };
}

const v4 = (host: string): number[] | undefined => {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  return parts.map(Number);
};

/** 10/8, 172.16/12, 192.168/16, 169.254/16, 127/8, 100.64/10 (carrier NAT), 0/8. */
function privateV4([a, b]: number[]): boolean {
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 172 && b! >= 16 && b! < 32) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b! >= 64 && b! < 128)
  );
}

/** Whether a URL's host is an address of a private network, link-local, or loopback (as the URL parser wrote it). */
function isPrivateHost(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const four = v4(host);
  if (four) return privateV4(four);
  if (!host.startsWith("[")) return false;
  const six = host.slice(1, -1);
  // An IPv4 address mapped into IPv6 (the parser writes ::ffff:a9fe:a9fe for ::ffff:169.254.169.254).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(six);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return privateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  return six === "::1" || six === "::" || /^f[cd]/.test(six) || /^fe[89ab]/.test(six);
}

/** Throws unless the client may contact `url`, which `named` (the MCP server, its metadata) gave it; `serverUrl` is the MCP server's. */
export function checkEndpoint(url: string, what: string, serverUrl: string, policy: EndpointPolicy): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new McpClientError(`The ${what} is not a URL: ${url}`);
  }
  const http = u.protocol === "http:";
  if (!http && u.protocol !== "https:")
    throw new McpClientError(`The ${what} ${url} is neither https nor http; the client will not use it`);
  if (http && !(policy.allowHttp ?? isLoopback(url))) {
    throw new McpClientError(
      `The ${what} ${url} is plain http; the client will not use it (${policy.allowedBy?.http ?? "allowHttp allows it"})`,
    );
  }
  if (isPrivateHost(u) && !policy.allowPrivateNetwork && !isPrivateHost(new URL(serverUrl))) {
    throw new McpClientError(
      `The ${what} ${url} is a private, link-local or loopback address; the client will not contact it (${policy.allowedBy?.privateNetwork ?? "allowPrivateNetwork allows it"})`,
    );
  }
}
