/**
 * Who the app checks call as: the authentication the developer configured (AUTH_MODE in
 * wrangler.toml's [vars] or .dev.vars, which `npm test` loads), so that turning it on does not
 * break them with a bare "expected 401 to be 200". AUTH_MODE=token sends MCP_AUTH_TOKEN; any other
 * mode sends a dev token (src/engine/http/dev-tokens.ts; vitest.config.ts gives the tests their own
 * MCP_DEV_TOKEN_KEY) holding AUTH_SCOPES and every scope the app declares. When a check is refused
 * all the same, `whyRefused` names the setting that changed its outcome.
 * Part of the template: a fork keeps this folder as it is.
 */
import { SignJWT } from "jose";

interface AuthVars {
  AUTH_MODE?: string;
  MCP_AUTH_TOKEN?: string;
  AUTH_SCOPES?: string;
  MCP_DEV_TOKEN_KEY?: string;
}

interface ScopedApp {
  tools?: readonly { scopes?: unknown }[];
  resources?: readonly { scopes?: unknown }[];
  resourceTemplates?: readonly { scopes?: unknown }[];
  prompts?: readonly { scopes?: unknown }[];
  authorization?: { scopes?: readonly string[]; implies?: Readonly<Record<string, readonly string[]>> };
}

const mode = (vars: AuthVars) => (vars.AUTH_MODE ?? "").trim().toLowerCase() || "none";

/** Every scope the app names: AUTH_SCOPES, the default, those its operations declare as lists, and the broader ones of `implies`. */
export function scopesOf(app: ScopedApp, vars: AuthVars): string[] {
  const defs = [...(app.tools ?? []), ...(app.resources ?? []), ...(app.resourceTemplates ?? []), ...(app.prompts ?? [])];
  const declared = defs.flatMap((d) => (Array.isArray(d.scopes) ? (d.scopes as string[]) : []));
  const implies = Object.keys(app.authorization?.implies ?? {});
  return [
    ...new Set([...(vars.AUTH_SCOPES ?? "").split(/\s+/).filter(Boolean), ...(app.authorization?.scopes ?? []), ...declared, ...implies]),
  ];
}

/** The Authorization header of a caller the configured authentication admits with every scope; none when it is off. */
export async function callerHeaders(app: ScopedApp, vars: AuthVars): Promise<Record<string, string>> {
  const m = mode(vars);
  if (m === "none") return {};
  if (m === "token" && vars.MCP_AUTH_TOKEN) return { Authorization: `Bearer ${vars.MCP_AUTH_TOKEN}` };
  if (!vars.MCP_DEV_TOKEN_KEY) return {};
  return devTokenHeaders(vars, { sub: "app-check", scopes: scopesOf(app, vars) });
}

/**
 * The Authorization header of a dev token for your own `SELF.fetch` tests: the caller `mcp-dev#<sub>`
 * with exactly `scopes` (and `claims`), as `npm run token` mints under `npm run dev`. `npm test` gives
 * the Worker its own MCP_DEV_TOKEN_KEY (vitest.config.ts), so pass `env` from "cloudflare:test":
 *
 *   const headers = await devTokenHeaders(env, { sub: "alice", scopes: ["notes:read"] });
 */
export async function devTokenHeaders(
  vars: { MCP_DEV_TOKEN_KEY?: string },
  caller: { sub: string; scopes?: readonly string[]; claims?: Record<string, unknown> },
): Promise<Record<string, string>> {
  if (!vars.MCP_DEV_TOKEN_KEY)
    throw new Error("devTokenHeaders needs MCP_DEV_TOKEN_KEY in env: pass `env` from cloudflare:test under npm test");
  const token = await new SignJWT({ ...caller.claims, ...(caller.scopes?.length ? { scope: caller.scopes.join(" ") } : {}) })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("mcp-dev")
    .setSubject(caller.sub)
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(vars.MCP_DEV_TOKEN_KEY));
  return { Authorization: `Bearer ${token}` };
}

/** For a refused check: which setting changed its outcome, and what the Worker said. */
export function whyRefused(status: number, body: unknown, vars: AuthVars): string {
  const said = JSON.stringify(body);
  if (status !== 401 && status !== 403 && status !== 500) return said;
  const m = mode(vars);
  if (m === "none") return said;
  return `${status} with AUTH_MODE=${vars.AUTH_MODE} (from .dev.vars or wrangler.toml [vars], which npm test loads): the app checks call as the caller that setting admits; ${status === 500 ? "the setting is incomplete (docs/security.md lists what each mode needs)" : "check AUTH_SCOPES and MCP_AUTH_TOKEN there"}. The Worker said: ${said}`;
}
