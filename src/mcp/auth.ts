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
 * Thrown for a caller that lacks scopes: by the check of what an operation declares, or by a handler
 * whose authorization depends on its arguments (`throw new InsufficientScope(["notes:write"])`).
 * Both revisions answer HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` naming
 * every scope in `scopes`, so the client can ask the user for them and retry (step-up).
 */
export class InsufficientScope extends McpError {
  constructor(readonly scopes: readonly string[], message = `Forbidden: this operation needs the scope(s) ${scopes.join(" ")}`) {
    super(ErrorCode.InsufficientScope, message, { scopes: [...scopes] });
    this.name = "InsufficientScope";
  }
}

/**
 * The scopes a refusal names, when an error is one (an McpError, or the JSON-RPC error object a
 * session sent back): the edge makes the challenge from them.
 */
export const refusedScopes = (error: { code: number; data?: unknown } | undefined): string[] | undefined =>
  error?.code === ErrorCode.InsufficientScope ? (error.data as { scopes: string[] }).scopes : undefined;

/** The caller as handlers see it (ctx.auth): only the claims the app named. */
export function authOf(who: { id: string; scopes: readonly string[]; clientId?: string; claims?: Readonly<Record<string, unknown>> }, claimNames: readonly string[] | undefined): Auth {
  const claims: Record<string, unknown> = {};
  if (who.claims && claimNames) for (const name of claimNames) if (Object.hasOwn(who.claims, name)) claims[name] = who.claims[name];
  return { principal: who.id, scopes: who.scopes, clientId: who.clientId, claims };
}
