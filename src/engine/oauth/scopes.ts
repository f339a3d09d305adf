/**
 * Which scopes the OAuth entry's authorization server grants, and to whom. Scopes are permissions on
 * /mcp, so the server grants only those the app knows (declared on an operation or in
 * `defineAuthorization`, or named in its `implies`), refuses a request for any other with
 * `invalid_scope` (RFC 6749 §4.1.2.1), and asks the app which of them a user may hold
 * (`userScopes`). The consent page may grant more of the known scopes than a client asked for
 * (RFC 6749 §3.3; the token response names the scopes issued), which keeps clients that cannot step
 * up working: the app picks what the page selects at first (`consentScopes`), the user picks the rest.
 */
import type { AppDefinition } from "../mcp/app";

/** What the app tells the OAuth entry about its scopes (`createOAuthWorker(app, options)`). */
export interface OAuthScopeOptions<E = unknown> {
  /**
   * The scopes `userId` may hold, of `scopes` (which are all known to the app). Called before the
   * consent page (it offers only these), when the form comes back, and for each ID-JAG user. The
   * default lets every signed-in user hold every scope the app knows.
   */
  userScopes?: (input: {
    userId: string;
    clientId: string;
    scopes: readonly string[];
    env: E;
  }) => readonly string[] | Promise<readonly string[]>;
  /**
   * Scopes the consent page selects at first besides those the client asked for, and that the demo
   * sign-in grants: for apps whose users' clients cannot step up (docs/authorization.md). Default: none.
   */
  consentScopes?: readonly string[];
  /** Scopes the server may grant that no definition names (a handler's InsufficientScope, a template's scope function). */
  scopes?: readonly string[];
}

/** The scope policy the entry applies, built once per app. */
export interface ScopePolicy<E = unknown> {
  /** Every scope the server may grant, in the order the app names them. */
  known: readonly string[];
  /** What a request that names no scope gets (the app's `defineAuthorization({ scopes })`). */
  baseline: readonly string[];
  /** Selected at first on the consent page (and granted by the demo) besides those asked for. */
  consent: readonly string[];
  /** The subset of `scopes` (known ones) that `userId` may hold. */
  allowed(userId: string, clientId: string, scopes: readonly string[], env: E): Promise<string[]>;
}

/** An RFC 6749 §3.3 scope token: printable ASCII without space, `"` or `\`. */
const isScopeToken = (s: unknown): s is string => typeof s === "string" && /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/.test(s);

/**
 * `offline_access` asks for a refresh token, not a permission: this server issues one with every
 * code, so a request naming it is served and the scope itself is not granted.
 */
const OFFLINE_ACCESS = "offline_access";

/**
 * Scopes some OAuth libraries add to every request (OpenID Connect's, and `offline_access`): unless
 * the app declares one of them, they grant nothing here, so a request naming them is served without
 * them rather than refused.
 */
const IGNORED = new Set([OFFLINE_ACCESS, "openid", "profile", "email", "address", "phone"]);

/**
 * What an authorization request asks for, and what it names that this server does not know. An app
 * that declares no scope at all checks none, so nothing it is asked for is refused (and none granted).
 */
export function askedScopes(policy: Pick<ScopePolicy, "known">, requested: readonly string[]): { asked: string[]; unknown: string[] } {
  const asked = requested.filter((s) => policy.known.includes(s));
  const unknown = policy.known.length === 0 ? [] : requested.filter((s) => !IGNORED.has(s) && !policy.known.includes(s));
  return { asked, unknown };
}

export function scopePolicy<E>(app: AppDefinition<any>, options: OAuthScopeOptions<E> = {}): ScopePolicy<E> {
  const known = new Set<string>();
  const add = (scopes: unknown) => {
    if (Array.isArray(scopes)) for (const s of scopes) if (isScopeToken(s) && s !== OFFLINE_ACCESS) known.add(s);
  };
  const auth = app.authorization;
  add(auth?.scopes);
  for (const t of app.tools ?? []) add(t.scopes);
  for (const r of app.resources ?? []) add(r.scopes);
  for (const t of app.resourceTemplates ?? []) add(t.scopes);
  for (const p of app.prompts ?? []) add(p.scopes);
  for (const [broad, narrower] of Object.entries(auth?.implies ?? {})) {
    add([broad]);
    add(narrower);
  }
  add(options.scopes);
  const knownList = [...known];
  const only = (scopes: readonly string[] | undefined) => (scopes ?? []).filter((s) => known.has(s));
  return {
    known: knownList,
    baseline: only(auth?.scopes),
    consent: only(options.consentScopes),
    async allowed(userId, clientId, scopes, env) {
      const candidates = [...new Set(only(scopes))];
      if (!options.userScopes || candidates.length === 0) return candidates;
      const granted = new Set(await options.userScopes({ userId, clientId, scopes: candidates, env }));
      // Never more than was asked about: a hook that returns other scopes grants none of those.
      return candidates.filter((s) => granted.has(s));
    },
  };
}
