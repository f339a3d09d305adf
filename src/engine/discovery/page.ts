/**
 * The page a person gets who opens the MCP URL in a browser (the first thing most people do with a
 * URL they were given): the server's title and description, the URL with a copy button, how to add
 * it in Claude, ChatGPT, VS Code, Cursor and Claude Code, whether sign-in is needed, and a link to
 * the Server Card. Only a browser's navigation gets it: a request whose Accept names text/html and
 * neither MCP media type; every MCP client's GET goes on to /mcp as before. Nothing on it is more
 * than the card already says; every value is escaped, and a strict CSP allows only its own style
 * and script (by hash).
 */
import type { DiscoverySite } from "../mcp/discovery";
import { registryName } from "../mcp/discovery";

/** Whether a GET is a browser opening the URL rather than an MCP client (which names JSON or SSE). */
export function wantsPage(request: Request): boolean {
  if (request.method !== "GET") return false;
  const accept = (request.headers.get("Accept") ?? "").toLowerCase();
  const names = (type: string) => accept.split(",").some((part) => part.split(";")[0]!.trim() === type);
  return names("text/html") && !names("application/json") && !names("text/event-stream");
}

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}" +
  "code{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px;word-break:break-all}" +
  ".url{display:flex;gap:.5rem;align-items:center}button{font:inherit;padding:.3rem .8rem;cursor:pointer}" +
  "dt{font-weight:600;margin-top:.8rem}.note{color:#555}";

// Reads the URL from the button, so the script never changes and its hash is a constant.
const SCRIPT =
  'document.getElementById("copy").addEventListener("click",function(e){var b=e.currentTarget;' +
  'navigator.clipboard.writeText(b.dataset.url).then(function(){b.textContent="Copied"},function(){b.textContent="Select the URL to copy it"})})';

let hashes: Promise<string> | undefined;
/** The CSP of the page: nothing but its own inline style and script, each named by its SHA-256. */
const csp = () =>
  (hashes ??= Promise.all([STYLE, SCRIPT].map(sha256)).then(
    ([style, script]) =>
      `default-src 'none'; style-src 'sha256-${style}'; script-src 'sha256-${script}'; img-src https: data:; ` +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  ));

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...hash));
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const SIGN_IN: Record<DiscoverySite["signIn"], string> = {
  none: "No sign-in is needed.",
  token: "It needs a token: ask whoever runs it for one, and give your client the header <code>Authorization: Bearer &lt;token&gt;</code>.",
  oauth: "It needs you to sign in: your client opens the sign-in page when you first connect.",
};

/** The page for `site`, served at `url` (the MCP endpoint); `cardUrl` unless the card is off. */
export async function page(site: DiscoverySite, url: string, cardUrl: string | undefined, name: string | undefined): Promise<Response> {
  const { info } = site;
  const title = info.title || info.name;
  // The name a host lists the server under: the server part of the registry name, safe in a shell.
  const short = registryName(info, new URL(url).host, name).split("/")[1]!;
  const vscode = JSON.stringify({ name: short, type: "http", url });
  const cursor = btoa(JSON.stringify({ url }));
  const header = site.signIn === "token" ? ' --header "Authorization: Bearer &lt;token&gt;"' : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><link rel="icon" href="data:,"><style>${STYLE}</style></head><body><main>
<h1>${escape(title)}</h1>${info.description ? `<p>${escape(info.description)}</p>` : ""}
<p>This is an MCP server: add it to an AI app with its URL.</p>
<p class="url"><code id="url">${escape(url)}</code><button type="button" id="copy" data-url="${escape(url)}">Copy</button></p>
<p>${SIGN_IN[site.signIn]}</p>
<h2>Add it</h2><dl>
<dt>Claude</dt><dd>Settings → Connectors → Add custom connector, then paste the URL.</dd>
<dt>ChatGPT</dt><dd>Settings → Apps → Advanced settings: turn on Developer mode. Then Settings → Apps → Create app, and paste the URL.</dd>
<dt>VS Code</dt><dd><a href="${escape(`vscode:mcp/install?${encodeURIComponent(vscode)}`)}">Install in VS Code</a>, or run <code>code --add-mcp '${escape(vscode)}'</code></dd>
<dt>Cursor</dt><dd><a href="${escape(`cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(short)}&config=${encodeURIComponent(cursor)}`)}">Install in Cursor</a></dd>
<dt>Claude Code</dt><dd><code>claude mcp add --transport http ${escape(short)} ${escape(url)}${header}</code></dd>
</dl>${cardUrl ? `<p class="note">Its <a href="${escape(cardUrl)}">Server Card</a> describes it for directories and clients.</p>` : ""}
</main><script>${SCRIPT}</script></body></html>`;
  return new Response(html, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": await csp(),
      // The same URL answers MCP clients: a cache must key on Accept, and keep no copy of this.
      Vary: "Accept",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    },
  });
}
