/**
 * The checks every /mcp request passes before any protocol work, on both
 * lanes: Host and Origin allow-lists (DNS-rebinding protection), media types,
 * and the body size limit.
 */
import type { Config } from "../config";
import { ErrorCode } from "../mcp/errors";
import { readCapped } from "../mcp/read-capped";
import type { Quirk } from "../mcp/quirks";
import { refuse, reject } from "./responses";

/**
 * Whether "host[:port]" (from a Host header or an origin URL, any case) is on the list. An entry with a
 * port must match exactly; one without allows any port; "*.example.com" allows any name below it.
 */
function hostAllowed(hostPort: string, allowed: string[], wildcards = true): boolean {
  const hp = hostPort.toLowerCase();
  const host = hp.startsWith("[") ? hp.slice(0, hp.indexOf("]") + 1) : hp.split(":")[0]!;
  return allowed.some((entry) => entry === hp || entry === host || (wildcards && entry.startsWith("*.") && host.endsWith(entry.slice(1))));
}

const hostOf = (request: Request) => request.headers.get("Host") ?? new URL(request.url).host;

const refusedHost = (host: string, config: Config) =>
  hostAllowed(host, config.allowedHosts) ? null : refuse(403, `Forbidden: Host "${host}" is not in ALLOWED_HOSTS`);

/** 403 unless the Host is allowed (DNS-rebinding protection); every route of the Worker passes it. */
export const checkHost = (request: Request, config: Config): Response | null => refusedHost(hostOf(request), config);

/**
 * 403 unless the Host is allowed and a present Origin is allowed; returns the allowed origin (or null).
 * A wildcard entry admits Hosts only, never Origins: a page on another name under the same domain
 * (another tenant's workers.dev site) must not get a browser's way into this server.
 */
export function checkHostAndOrigin(request: Request, config: Config): Response | { origin: string | null } {
  const host = hostOf(request);
  const refused = refusedHost(host, config);
  if (refused) return refused;
  const origin = request.headers.get("Origin");
  if (origin === null) return { origin: null };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return refuse(403, `Forbidden: Origin "${origin}" is not a valid origin`);
  }
  const web = url.protocol === "https:" || url.protocol === "http:";
  const sameHost = url.host === host.toLowerCase();
  if (config.allowedOrigins.includes(origin.toLowerCase()) || (web && (sameHost || hostAllowed(url.host, config.allowedHosts, false))))
    return { origin };
  return refuse(403, `Forbidden: Origin "${origin}" is not allowed (ALLOWED_ORIGINS)`);
}

const accepts = (accept: string, type: string) => {
  const [major] = type.split("/");
  return accept.split(",").some((part) => {
    const t = part.split(";")[0]!.trim().toLowerCase();
    return t === type || t === "*/*" || t === `${major}/*`;
  });
};

/**
 * POST must send JSON and accept both JSON and SSE answers. Unless `strict`, an Accept with only one
 * of them, or none, is served (http/quirks.ts): the quirk is returned, and the answer takes that form.
 */
export function checkPostMediaTypes(request: Request, strict: boolean): Response | Quirk | null {
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    return refuse(415, "Unsupported Media Type: Content-Type must be application/json");
  }
  const accept = request.headers.get("Accept") ?? "";
  const json = accepts(accept, "application/json");
  const sse = accepts(accept, "text/event-stream");
  if (json && sse) return null;
  if (!strict) {
    if (json) return "accept-json";
    if (sse) return "accept-sse";
    if (!accept.trim()) return "accept-none";
  }
  return refuse(406, "Not Acceptable: Accept must list application/json and text/event-stream");
}

// One strict decoder for every request (bodies, and base64 header values in headers.ts): decode()
// without `stream` keeps no state between calls.
export const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Reads the body as UTF-8 text, stopping at the limit (413) and rejecting invalid UTF-8 (400). */
export async function readBody(request: Request, limit: number): Promise<Response | string> {
  const tooLarge = () => refuse(413, `Payload Too Large: the body limit is ${limit} bytes`);
  const length = request.headers.get("Content-Length");
  const declared = length === null ? NaN : Number(length);
  if (declared > limit) return tooLarge();
  if (!request.body) return "";
  // A declared length within the limit bounds what HTTP framing delivers, so the body is read whole:
  // one native read instead of a chunk loop, which was most of this function's cost per request.
  const bytes = Number.isSafeInteger(declared) ? new Uint8Array(await request.arrayBuffer()) : await readCapped(request.body, limit);
  if (bytes === null || bytes.byteLength > limit) return tooLarge();
  try {
    return UTF8.decode(bytes);
  } catch {
    return reject(400, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8");
  }
}

/** Protocol headers longer than the limit get 431 before anything parses them. */
export function checkHeaderSizes(request: Request, max: number): Response | null {
  // forEach, not the entries iterator: the runtime's iterator builds a [name, value] array per header
  // and costs about a third more for a request's usual dozen headers. Every header is still seen.
  let over: string | undefined;
  request.headers.forEach((value, name) => {
    if (over === undefined && value.length > max && (name.startsWith("mcp-") || name === "last-event-id" || name === "authorization"))
      over = name;
  });
  return over === undefined ? null : refuse(431, `Request Header Fields Too Large: ${over} is over ${max} bytes (MAX_HEADER_BYTES)`);
}
