/**
 * Who is calling, as the core sees it: the one value a handler gets as `ctx.auth`, and the refusal
 * a handler (or the check of declared scopes) throws when the caller lacks scopes. No HTTP here:
 * the edge turns the refusal into the 403 step-up challenge of the request's revision.
 */
import { ErrorCode, McpError } from "./errors";
import { isObject } from "./guards";

/** The authenticated caller. Never the raw token: only what the server verified and chose to keep. */
export interface Auth {
  /** Stable identity: sessions, tasks and requestState are bound to it. */
  principal: string;
  /** The scopes the token holds, as the verifier read them (`scope` string or `scp` array). */
  scopes: readonly string[];
  /** The OAuth client the token was issued to, when the token says (`client_id`, `azp`). */
  clientId?: string;
  /** The token claims the app asked for (`defineAuthorization({ claims })`); nothing else. */
  claims: Readonly<Record<string, unknown>>;
}

/**
 * A scope as RFC 6749 writes one: printable ASCII without space, `"` or `\`, at most 256 characters.
 * Only such scopes are declared, kept from a token or named in a challenge, so a challenge's quoted
 * `scope="…"` never needs escaping and no token can write into the header.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/;
export const isScopeToken = (s: unknown): s is string => typeof s === "string" && SCOPE_TOKEN.test(s);

/**
 * Thrown for a caller that lacks scopes: by the check of what an operation declares, or by a handler
 * whose authorization depends on its arguments (`throw new InsufficientScope(["notes:write"])`).
 * Both revisions answer HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` naming
 * every scope in `scopes`, so the client can ask the user for them and retry (step-up).
 */
export class InsufficientScope extends McpError {
  readonly scopes: string[];
  constructor(scopes: readonly string[], message = "Insufficient scope") {
    // What is not a scope token (a handler's typo, a quote) is left out of the challenge.
    const named = scopes.filter(isScopeToken);
    super(ErrorCode.InsufficientScope, message, { scopes: named });
    this.scopes = named;
    this.name = "InsufficientScope";
  }
}

/**
 * The scopes a refusal names, when an error is one (an McpError, or the JSON-RPC error object a
 * session sent back): the edge makes the challenge from them.
 */
export function refusedScopes(error: { code: number; data?: unknown } | undefined): string[] | undefined {
  if (error?.code !== ErrorCode.InsufficientScope) return undefined;
  const scopes = isObject(error.data) ? error.data.scopes : undefined;
  // An McpError a handler built itself with this code may carry no scope list: answered as the error
  // it is. Of a list, only the scope tokens are named (a quote, CR or LF never reaches the challenge).
  return Array.isArray(scopes) ? scopes.filter(isScopeToken) : undefined;
}

/**
 * The one value for who is calling, built once at the edge for every way a request is authenticated
 * (a static token, a JWT, the OAuth entry's grant, a custom `verifyToken`, the `principal` hook, or
 * none) and carried to handlers (`ctx.caller`), policies (`op.caller`), sessions and tasks. `ctx.auth`
 * is its view for an authenticated caller (authView).
 */
export interface Caller extends Auth {
  /** False when no authentication is configured: `principal` is "" and `scopes` empty. */
  readonly authenticated: boolean;
  /**
   * Whose budgets this caller spends (the request rate limit, `toolRateLimit`, tasks in flight): its
   * principal when authenticated, else its client address (an IPv6 /64), as the edge keys it.
   */
  readonly rateLimitKey: string;
}

/**
 * What a verifier, the OAuth entry or the `principal` hook says of a caller; the edge makes the
 * request's Caller of it. Exported as `Principal` too (http/auth.ts): one declaration.
 */
export interface Identity {
  /** Stable identity: sessions, requestState and subscriptions are bound to it. */
  id: string;
  /** The scopes the token holds (`scopeList` reads them from a `scope` string or an `scp` array). */
  scopes: readonly string[];
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** The token's claims; the app's `defineAuthorization({ claims })` picks which handlers see. */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * The Caller for an identity (undefined: anonymous), with only the claims the app named
 * (`defineAuthorization({ claims })`, picked by `claimsOf`).
 */
export const callerOf = (
  who: Identity | undefined,
  rateLimitKey: string,
  claimsOf?: (claims: Readonly<Record<string, unknown>> | undefined) => Record<string, unknown>,
): Caller => ({
  principal: who?.id ?? "",
  scopes: who?.scopes ?? [],
  clientId: who?.clientId,
  claims: claimsOf?.(who?.claims) ?? {},
  authenticated: !!who,
  rateLimitKey,
});

/**
 * A caller nobody authenticated, from nowhere the edge could name (a test client's default): what
 * `callerOf(undefined, "")` makes, written out so that start-up calls (and V8 compiles) nothing.
 */
export const ANONYMOUS: Caller = { principal: "", scopes: [], clientId: undefined, claims: {}, authenticated: false, rateLimitKey: "" };

/** The caller as handlers see it (ctx.auth): undefined when nobody authenticated. */
export const authView = (caller: Caller | undefined): Auth | undefined =>
  caller?.authenticated
    ? { principal: caller.principal, scopes: caller.scopes, clientId: caller.clientId, claims: caller.claims }
    : undefined;

/**
 * The Caller again from what a session or a task kept of it: the principal it is bound to, and the
 * view (claims already picked) when the caller was authenticated.
 */
export const restoredCaller = (principal: string, auth: Auth | undefined, rateLimitKey: string): Caller =>
  auth ? { ...auth, principal, authenticated: true, rateLimitKey } : { ...ANONYMOUS, principal, rateLimitKey };
