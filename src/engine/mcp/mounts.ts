/**
 * Mounted servers as the core sees them (docs/mount.md): another MCP server's tools, prompts and resources served as this
 * server's own, under a prefix (`ex_<tool>`). `mountServer` (src/engine/mount/) makes the value and
 * brings the client that reaches the upstream, so an app without mounts carries none of it; here are
 * only the shape and the lookup by name. A mounted call is an operation of this server: its
 * authorization, policy, rate limits, spans and log line are the ones a local tool's call gets.
 */
import type { HandlerContext } from "./context";
import type { CallToolResult } from "./types";

/** The lists a mount serves, by their result's key. */
export type MountedList = "tools" | "prompts" | "resources" | "resourceTemplates";

export interface Mount {
  /** Every mounted name starts with it and `_`. */
  prefix: string;
  /** The scopes a call of any of its tools needs (docs/authorization.md); `toolScopes` per tool. */
  scopes?: readonly string[];
  /** Scopes by the upstream tool's name, in place of `scopes` for that tool. */
  toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** Why a deployed Worker would refuse its upstream URL given these settings (`npm run deploy` names it); undefined: it would not, or cannot tell. */
  deployRefusal?(env: unknown): string | undefined;
  /** Its tools as listed here: the upstream's, renamed with the prefix. */
  tools(ctx: HandlerContext<any>): Promise<Record<string, unknown>[]>;
  /** Calls the upstream's tool `name` (without the prefix). */
  callTool(name: string, args: Record<string, unknown>, ctx: HandlerContext<any>): Promise<CallToolResult>;
  /**
   * Whether its last list of `kind` held `name` (as listed here): such a name is the app's for spans
   * and metrics, as a local tool's is; any other name a client sends is not.
   */
  lists(kind: MountedList, name: string): boolean;
  /** Its prompts as listed here: the upstream's, renamed with the prefix. */
  prompts(ctx: HandlerContext<any>): Promise<Record<string, unknown>[]>;
  /** Gets the upstream's prompt `name` (without the prefix). */
  getPrompt(name: string, args: Record<string, string>, ctx: HandlerContext<any>): Promise<Record<string, unknown>>;
  /** Its resources and templates as listed here: URIs with `<prefix>+` before them. */
  resources(ctx: HandlerContext<any>): Promise<Record<string, unknown>[]>;
  resourceTemplates(ctx: HandlerContext<any>): Promise<Record<string, unknown>[]>;
  /**
   * Completes an argument of the upstream's prompt or a variable of its template (`ref` named as
   * upstream, without the prefix); no values when the upstream does not complete.
   */
  complete(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    params: Record<string, unknown>,
    ctx: HandlerContext<any>,
  ): Promise<Record<string, unknown>>;
  /** Reads the upstream's resource `uri` (without the prefix); the contents' URIs get it again. */
  readResource(uri: string, ctx: HandlerContext<any>): Promise<Record<string, unknown>>;
}

/** The mount a tool name belongs to, and the upstream's name for it. */
export function mountedTool(mounts: readonly Mount[] | undefined, name: string): [Mount, string] | undefined {
  for (const m of mounts ?? []) if (name.startsWith(`${m.prefix}_`)) return [m, name.slice(m.prefix.length + 1)];
  return undefined;
}

/** The mount a resource URI belongs to (`<prefix>+<upstream URI>`), and the upstream's URI. */
export function mountedResource(mounts: readonly Mount[] | undefined, uri: string): [Mount, string] | undefined {
  for (const m of mounts ?? []) if (uri.startsWith(`${m.prefix}+`)) return [m, uri.slice(m.prefix.length + 1)];
  return undefined;
}

/** What an operation on a mounted tool, prompt or resource needs, or undefined when it is no mount's. */
export function mountedScopes(found: [Mount, string] | undefined, fallback: readonly string[]): readonly string[] | undefined {
  return found && (found[0].toolScopes?.[found[1]] ?? found[0].scopes ?? fallback);
}
