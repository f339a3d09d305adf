/**
 * What keeps a view (MCP Apps, `defineView`) from rendering in a host, named before it ships: the app
 * check prints these as warnings (`npm test`, `npm run check:app`). Each host builds the view's
 * sandbox from the resource's `_meta`: its CSP from `ui.csp` (origins only; anything else is dropped
 * and the fetch is blocked), its permissions from `ui.permissions` (each an empty object), its origin
 * from `ui.domain` in the host's own format (Claude: the first 32 hex digits of the SHA-256 of the
 * server's URL, then `.claudemcpcontent.com`, no scheme; Claude refuses any other form) and, for
 * ChatGPT, from `openai/widgetDomain` (an https origin). docs/views-and-skills.md has the table.
 */
import type { ToolDefinition } from "./app";

const CLAUDE_DOMAIN = /^[0-9a-f]{32}\.claudemcpcontent\.com$/;
/** An origin a CSP source list takes: a scheme, a host (a leading `*.` allowed), a port, nothing after. */
const ORIGIN = /^(https|wss):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d+)?$/i;
const LOCAL_ORIGIN = /^(http|ws):\/\/(localhost|127\.0\.0\.1)(:\d+)?$/i;

/** One warning per thing in a tool's view that a host would not render as written. */
export function viewHostWarnings(tools: readonly ToolDefinition<any, any, any, string>[]): string[] {
  return tools.flatMap((tool) => {
    const meta = tool?.view?.resource?._meta as Record<string, any> | undefined;
    return meta ? viewMetaWarnings(meta, `View ${tool.view!.uri} (tool "${tool.name}")`) : [];
  });
}

/**
 * What a host would not render as written in one view's `_meta` (`at` names the view): the rules the
 * app check applies to the definitions and the doctor to what a deployed server serves.
 */
export function viewMetaWarnings(meta: Record<string, any>, at: string): string[] {
  const warnings: string[] = [];
  const ui = meta.ui ?? {};
  for (const [list, entries] of Object.entries((ui.csp ?? {}) as Record<string, unknown>))
    for (const entry of Array.isArray(entries) ? entries : [entries])
      if (typeof entry !== "string" || !(ORIGIN.test(entry) || LOCAL_ORIGIN.test(entry)))
        warnings.push(
          `${at}: csp.${list} "${String(entry)}" is not an origin (https://host[:port], *.host allowed, no path): hosts drop it and block what the view loads from it`,
        );
  for (const [name, value] of Object.entries((ui.permissions ?? {}) as Record<string, unknown>))
    if (!value || typeof value !== "object" || Object.keys(value).length > 0)
      warnings.push(`${at}: permissions.${name} must be {} (the extension's form); hosts grant nothing for ${JSON.stringify(value)}`);
  if (ui.domain !== undefined && !isClaudeDomain(ui.domain))
    warnings.push(
      `${at}: domain "${ui.domain}" is not Claude's form (sha256 of the server's URL, 32 hex digits, then .claudemcpcontent.com, no https://): Claude refuses the view ("Invalid ui.domain format"); leave it unset, or use the value \`npm run server-json -- --url <your /mcp URL>\` prints, and chatgptDomain for ChatGPT`,
    );
  const openai = meta["openai/widgetDomain"];
  if (openai !== undefined && !ORIGIN.test(String(openai)))
    warnings.push(`${at}: chatgptDomain "${openai}" is not an https origin: ChatGPT renders the view on its default sandbox origin`);
  return warnings;
}

/** Whether `domain` has Claude's form; whether it is the one for the server's URL is `claudeViewDomain`'s to say. */
export const isClaudeDomain = (domain: unknown) => CLAUDE_DOMAIN.test(String(domain));

/**
 * Claude's sandbox origin for the views of the server at `mcpUrl` (the exact URL a user adds): the first
 * 32 hex digits of its SHA-256, then `.claudemcpcontent.com`. `npm run server-json` prints it and the
 * doctor compares a served view's domain with it.
 */
export async function claudeViewDomain(mcpUrl: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(mcpUrl)));
  return `${Array.from(hash.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}.claudemcpcontent.com`;
}
