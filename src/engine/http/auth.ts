/**
 * Optional resource-server authorization (off by default): a bearer token on
 * every request, checked by a pluggable verifier. Two verifiers are built in:
 * a static token from a secret, and OAuth JWT access tokens checked against a
 * JWKS (issuer, audience = this server's URI, expiry, scopes) by the `jose`
 * check a Worker opts into (jwt-auth.ts). Failures answer 401/403 with the RFC 6750 / RFC 9728 challenge
 * that tells the client where to find the authorization server.
 */
import { writeLog } from "../mcp/telemetry";
import type { AuthConfig } from "../config";
import { isScopeToken, type Identity } from "../mcp/auth";
import { ErrorCode } from "../mcp/errors";
import type { RequestId } from "../mcp/jsonrpc";
import { json, rpcError } from "./responses";

/** What a verifier (or the `principal` hook) says of a caller: the one declaration is Identity (mcp/auth.ts). */
export type Principal = Identity;

/** Bounds on what a token may claim, so a hostile one costs a request nothing it can grow. */
const MAX_SCOPES = 256;
const MAX_SCOPE_CHARS = 256;

/**
 * The scopes a token holds, as identity providers send them: a space-separated `scope` string
 * (RFC 8693, Auth0, Keycloak) or an `scp` array (Okta, Entra ID). Over 256 scopes or a scope over
 * 256 characters is a malformed token (401); a scope outside RFC 6749's characters (a quote, a
 * backslash) can match no declared scope and is dropped, so nothing unsafe reaches a challenge.
 */
export function scopeList(scope: unknown, scp?: unknown): string[] {
  const raw = typeof scope === "string" ? scope.split(" ") : Array.isArray(scp) ? scp : typeof scp === "string" ? scp.split(" ") : [];
  if (raw.length > MAX_SCOPES) throw new AuthFailure("invalid_token", `The access token holds more than ${MAX_SCOPES} scopes`);
  const out: string[] = [];
  for (const s of raw) {
    if (typeof s !== "string" || s === "") continue;
    if (s.length > MAX_SCOPE_CHARS)
      throw new AuthFailure("invalid_token", `The access token holds a scope longer than ${MAX_SCOPE_CHARS} characters`);
    if (isScopeToken(s)) out.push(s);
  }
  return out;
}

/** Thrown by a verifier: a bad token (401) or a good token without the needed scopes (403). */
export class AuthFailure extends Error {
  constructor(
    readonly kind: "invalid_token" | "insufficient_scope",
    message: string,
  ) {
    super(message);
  }
}

/** Checks a bearer token and says who it belongs to. */
export type TokenVerifier = (token: string, resource: string) => Promise<Identity>;

export const PRM_PATH = "/.well-known/oauth-protected-resource";

/** This server's canonical URI (the token audience): scheme, host and the MCP path. */
const resourceUri = (request: Request, mcpPath: string) => `${new URL(request.url).origin}${mcpPath}`;

/** Constant-time comparison, so a token cannot be guessed one character at a time. */
function sameString(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function staticTokenVerifier(token: string, scopes: string[]): TokenVerifier {
  return async (presented) => {
    if (!sameString(presented, token)) throw new AuthFailure("invalid_token", "The access token is not valid");
    return { id: "token", scopes };
  };
}

type JwtConfig = Extract<AuthConfig, { mode: "jwt" }>;

/**
 * The verifier for AUTH_MODE=jwt (jwt-auth.ts: signature, issuer, audience, expiry and scopes, with
 * jose). Passed in rather than imported, so a Worker that does not pass it carries none of it.
 */
export type JwtAuth = ((cfg: JwtConfig) => TokenVerifier) & {
  /**
   * `npm run dev`'s tokens (dev-tokens.ts), when it set MCP_DEV_TOKEN_KEY: wraps the configured
   * verifier (none when AUTH_MODE=none), so a dev token and a real one are each checked by their own.
   */
  dev?: (key: string, inner: TokenVerifier | undefined, scopes: string[]) => TokenVerifier;
};

/**
 * The verifier the configuration asks for; undefined when authorization is off. AUTH_MODE=jwt in a
 * Worker built without `jwt` is a misconfiguration, said on every request (500, and the log names the fix).
 */
export function verifierFor(cfg: AuthConfig, jwtAuth: JwtAuth | undefined): TokenVerifier | undefined {
  if (cfg.mode === "token") return staticTokenVerifier(cfg.token, cfg.scopes);
  if (cfg.mode === "jwt") {
    if (!jwtAuth)
      throw new Error("AUTH_MODE=jwt needs the JWT check passed in: createMcpWorker(app, { jwt: jwtAuth }), as src/index.ts does");
    return jwtAuth(cfg);
  }
  return undefined;
}

/**
 * The authorization servers a client can get a token from. Only JWT mode names one (the issuer): a
 * static token (AUTH_MODE=token) is handed out by you, not by an OAuth server, so there is nothing to
 * discover and no protected-resource metadata to serve, since RFC 9728 and MCP require at least one
 * authorization server in it.
 */
export const authorizationServers = (cfg: AuthConfig, named: readonly string[] = []): string[] =>
  cfg.mode === "jwt" ? [cfg.issuer, ...named] : [...named];

/**
 * RFC 9728 protected-resource metadata; only served when there is an authorization server to name.
 * `scopes_supported` is the baseline (baselineScopes): what a client asks for at the first consent.
 */
export function protectedResourceMetadata(request: Request, mcpPath: string, servers: string[], baseline: readonly string[]): Response {
  const body = {
    resource: resourceUri(request, mcpPath),
    authorization_servers: servers,
    // Least scope first: only the baseline every operation needs; an operation's own scopes are asked
    // for by step-up (its 403 challenge) when it is called. No baseline, no scope to ask for at first.
    ...(baseline.length > 0 ? { scopes_supported: [...baseline] } : {}),
    bearer_methods_supported: ["header"],
  };
  return json(body, 200, { "Cache-Control": "max-age=3600" });
}

/**
 * A 401/403 with the RFC 6750 challenge. With `metadata` it points the client at this resource's
 * RFC 9728 metadata, where it finds the authorization server (and, with `scopes`, what to ask for);
 * without one (a static token) it names no metadata URL that would only answer 404. The JSON-RPC
 * error carries the request's id when there is one (a step-up refusal of a named operation).
 */
interface Challenge {
  /** Where the MCP endpoint is served: the metadata URL names it. */
  mcpPath: string;
  status: 400 | 401 | 403;
  /** The JSON-RPC error's message. */
  message: string;
  /** The RFC 6750 error code (`invalid_token`, `insufficient_scope`…); none for a request without credentials. */
  error?: string;
  /** What the client should ask for. */
  scopes?: readonly string[];
  /** Whether this server serves RFC 9728 metadata (default true). */
  metadata?: boolean;
  /** The request's id, when the refusal is of a named operation. */
  id?: RequestId | null;
}

export function challenge(request: Request, c: Challenge): Response {
  const { mcpPath, status, message, error, metadata = true, id = null } = c;
  // Only scope tokens reach the header, whoever named them (a handler's error data included): no
  // quote, CR or LF can end the quoted string or the header, nor add a parameter.
  const scopes = (c.scopes ?? []).filter(isScopeToken).slice(0, MAX_CHALLENGE_SCOPES);
  const params = [
    error && `error="${error}"`,
    metadata && `resource_metadata="${resourceUri(request, PRM_PATH + mcpPath)}"`,
    scopes.length > 0 && `scope="${scopes.join(" ")}"`,
  ].filter(Boolean);
  const stepUp = error === "insufficient_scope";
  // JSON leaves `data` out when it is undefined.
  const body = { code: stepUp ? ErrorCode.InsufficientScope : ErrorCode.InvalidRequest, message, data: stepUp ? { scopes } : undefined };
  return rpcError(id, body, status, { "WWW-Authenticate": params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer" });
}

/** At most this many scopes in one challenge: a handler's refusal cannot make a header unbounded. */
const MAX_CHALLENGE_SCOPES = 64;

/**
 * Runs the verifier on the request's bearer token; a Response is the 400/401/403 to send. `baseline`
 * is what a 401 (and the verifier's own 403) asks for: the scopes every operation needs. `verifier`
 * names the check in the log line of a result without an id.
 */
export async function authenticate(
  request: Request,
  verify: TokenVerifier,
  mcpPath: string,
  baseline: readonly string[],
  metadata = true,
  verifier = "verifyToken",
): Promise<Identity | Response> {
  const fail = (status: 400 | 401 | 403, error: string | undefined, message: string) =>
    challenge(request, { mcpPath, status, message, error, scopes: baseline, metadata });

  const header = request.headers.get("Authorization") ?? "";
  // RFC 6750 §3: a request without a Bearer credential (none, or another scheme such as Basic) gets
  // the challenge without an error code; §3.1: a malformed Bearer credential is 400 invalid_request.
  if (!/^Bearer(?:\s|$)/i.test(header)) return fail(401, undefined, "Unauthorized: send Authorization: Bearer <token>");
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!m) return fail(400, "invalid_request", "Bad Request: malformed Bearer token");
  let who: Identity;
  try {
    who = await verify(m[1]!, resourceUri(request, mcpPath));
  } catch (err) {
    if (err instanceof AuthFailure && err.kind === "insufficient_scope")
      return fail(403, "insufficient_scope", `Forbidden: ${err.message}`);
    if (err instanceof AuthFailure) return fail(401, "invalid_token", `Unauthorized: ${err.message}`);
    throw err;
  }
  // Sessions, rate limits, tasks and caching are keyed by the id: a result without one would make an
  // anonymous caller whose scopes are honoured (and its answers cached as public). Refused, and said.
  if (typeof who?.id !== "string" || who.id === "" || !Array.isArray(who.scopes)) {
    writeLog("error", "verifier_without_id", {
      message: `${verifier} returned no id (a non-empty string) or no scopes list: refused (401)`,
    });
    return fail(401, "invalid_token", "Unauthorized");
  }
  return who;
}
