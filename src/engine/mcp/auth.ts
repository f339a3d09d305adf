/**
 * Who is calling, as the core sees it: the one value a handler gets as `ctx.auth`, and the refusal
 * a handler (or the check of declared scopes) throws when the caller lacks scopes. No HTTP here:
 * the edge turns the refusal into the 403 step-up challenge of the request's revision.
 */
import { ErrorCode, McpError } from "./errors";

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
export const refusedScopes = (error: { code: number; data?: unknown } | undefined): string[] | undefined =>
  // An McpError a handler built itself with this code may carry no scopes: answered as the error it is.
  error?.code === ErrorCode.InsufficientScope ? (error.data as { scopes?: string[] } | undefined)?.scopes : undefined;

/** The caller as handlers see it (ctx.auth): only the claims the app named (authorization.ts picks them). */
export const authOf = (
  who: { id: string; scopes: readonly string[]; clientId?: string; claims?: Readonly<Record<string, unknown>> },
  claimsOf?: (claims: Readonly<Record<string, unknown>> | undefined) => Record<string, unknown>,
): Auth => ({ principal: who.id, scopes: who.scopes, clientId: who.clientId, claims: claimsOf?.(who.claims) ?? {} });
