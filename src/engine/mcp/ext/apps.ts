/**
 * MCP Apps (`io.modelcontextprotocol/ui`): a tool names an interactive view, a `ui://` resource of
 * type `text/html;profile=mcp-app` that hosts render in a sandboxed frame and talk to over
 * postMessage. The HTML is deployed as a Static Asset and read through the binding when a host
 * reads the resource, so it is neither in the Worker's bundle nor parsed at start-up.
 */
import type { View } from "../app";
import { fetchAsset } from "./assets";
import { defineExtension } from "./host";

export const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/** The origins a view may reach; hosts build its Content-Security-Policy from them (none by default). */
export interface ViewCsp {
  /** fetch, XHR and WebSocket (connect-src). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts and media. */
  resourceDomains?: string[];
  /** Nested frames (frame-src). */
  frameDomains?: string[];
  /** Allowed <base> URIs (base-uri). */
  baseUriDomains?: string[];
}

/** Browser features a view asks for; hosts may grant them through the frame's `allow` attribute. */
export interface ViewPermissions {
  camera?: object;
  microphone?: object;
  geolocation?: object;
  clipboardWrite?: object;
}

export interface ViewOptions {
  /** The resource's URI; it must start with `ui://`. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** Where the HTML is under the assets directory, e.g. `/views/convert.html`. */
  asset: string;
  csp?: ViewCsp;
  permissions?: ViewPermissions;
  /**
   * A dedicated sandbox origin, in the form the host documents: for Claude, the first 32 hex digits of
   * the SHA-256 of the server's /mcp URL and `.claudemcpcontent.com` (`npm run server-json` prints it).
   */
  domain?: string;
  /**
   * ChatGPT's sandbox origin for the view (`openai/widgetDomain`, an https origin), which its app review
   * asks for; it also gets the CSP under ChatGPT's own names (`openai/widgetCSP`).
   */
  chatgptDomain?: string;
  /** Whether the host should draw a border and background around the view. */
  prefersBorder?: boolean;
  /** The Static Assets binding (default "ASSETS"). */
  binding?: string;
}

/**
 * One extension object for every view, so an app declares the capability once. A host that did not
 * declare it gets text-only tools: no `_meta.ui` to misread, and no tool that only a view may call
 * (`visibility: ["app"]`), which such a host would offer to the model. Marked pure so that an app
 * which imports the engine but defines no view leaves this module out of its bundle.
 */
const extension = /* @__PURE__ */ defineExtension({
  id: UI_EXTENSION,
  settings: {},
  // The extension makes mimeTypes required: a client that cannot render this type is no host of views.
  clientOf: (settings) => Array.isArray(settings.mimeTypes) && settings.mimeTypes.includes(VIEW_MIME_TYPE),
  toolsWithout: (tools) =>
    tools.flatMap((tool) => {
      const { ui, "ui/resourceUri": _flat, ...meta } = (tool._meta ?? {}) as { ui?: { visibility?: string[] }; [key: string]: unknown };
      if (ui?.visibility && !ui.visibility.includes("model")) return [];
      const { _meta: _all, ...rest } = tool;
      return [Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest];
    }),
});

/** A view for `defineTool({ view })`: its `_meta.ui` goes on the tool, its HTML is served as `uri`. */
export function defineView(options: ViewOptions): View {
  const { uri, name, title, description, asset, csp, permissions, domain, chatgptDomain, prefersBorder, binding = "ASSETS" } = options;
  if (!uri.startsWith("ui://")) throw new Error(`View "${uri}": a view's URI must start with ui://`);
  if (!asset.startsWith("/")) throw new Error(`View "${uri}": asset must be a path under the assets directory, starting with /`);
  const ui: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ csp, permissions, domain, prefersBorder })) if (value !== undefined) ui[key] = value;
  // On the listing (hosts review it before any call) and on the contents, as the official SDK does.
  const all: Record<string, unknown> = Object.keys(ui).length > 0 ? { ui } : {};
  if (chatgptDomain) {
    all["openai/widgetDomain"] = chatgptDomain;
    all["openai/widgetCSP"] = {
      connect_domains: csp?.connectDomains ?? [],
      resource_domains: csp?.resourceDomains ?? [],
      ...(csp?.frameDomains ? { frame_domains: csp.frameDomains } : {}),
    };
  }
  const meta = Object.keys(all).length > 0 ? all : undefined;
  return {
    uri,
    extension,
    // Both the nested key and the flat one the official SDK still writes for older hosts.
    toolMeta: (own = {}) => ({ ...own, ui: { ...(own.ui as object | undefined), resourceUri: uri }, "ui/resourceUri": uri }),
    resource: {
      uri,
      name,
      title,
      description,
      mimeType: VIEW_MIME_TYPE,
      _meta: meta,
      read: async (ctx) => {
        const html = new TextDecoder().decode(await fetchAsset(ctx.env, binding, asset));
        return meta ? { uri, mimeType: VIEW_MIME_TYPE, text: html, _meta: meta } : { uri, mimeType: VIEW_MIME_TYPE, text: html };
      },
    },
  };
}
