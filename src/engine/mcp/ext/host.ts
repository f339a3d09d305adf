/**
 * The extension host: what the core does for opt-in extensions (their capability entries, the
 * methods and resources they add, the tools a host without MCP Apps gets, the caching of a list that
 * varies by client). Every extension carries this installer (`defineExtension`), and the registry
 * calls it only when the app has an extension, so an app without any has none of this code in its
 * bundle: the core keeps only the optional `reg.ext` lookups.
 */
import type { AppDefinition, Extension, ResourceDefinition } from "../app";
import type { HandlerContext } from "../context";
import { RESOURCE_METHODS } from "../methods/resources";
import { legacyToolListOf, resourcesCapability, wireOf, type ExtensionHooks, type Registry } from "../registry";

/** The settings a client declared for an extension (2025: in `initialize`; 2026: in each request's `_meta`), if it did. */
function clientDeclares(ctx: Pick<HandlerContext<any>, "clientCapabilities">, id: string): object | undefined {
  const declared = ctx.clientCapabilities.extensions;
  return declared && Object.hasOwn(declared, id) ? declared[id] : undefined;
}

/** An extension the core can serve: the helpers that make extensions (`skills`, `defineView`) go through here. */
export const defineExtension = (ext: Omit<Extension, "install">): Extension => ({ ...ext, install: installExtensions });

/** Installs an app's extensions (its `extensions` and its tools' views) into its compiled registry. */
function installExtensions(reg: Registry, app: AppDefinition<any>, found: Extension[]): void {
  const extensions = new Map(found.map((ext) => [ext.id, ext]));
  const views = [...reg.tools.values()].flatMap((t) => (t.def.view ? [t.def.view] : []));
  for (const t of reg.tools.values()) if (t.def.view) t.wire._meta = t.def.view.toolMeta(t.def._meta);
  // A view brings its resource (one view may serve several tools), listed before the extensions' own.
  for (const r of [...views.map((view) => view.resource), ...[...extensions.values()].flatMap((e) => e.resources ?? [])]) {
    const known = reg.resources.get(r.uri);
    if (known === r) continue;
    if (known) throw new Error(`Resource "${r.uri}" is defined twice`);
    reg.resources.set(r.uri, r);
    reg.resourceList.push(wireOf(r, []));
  }
  const finders = [...extensions.values()].flatMap((e) => (e.resource ? [e.resource] : []));
  if (reg.resources.size > 0 || finders.length > 0) {
    reg.capabilities.resources ??= resourcesCapability(app);
    // The extensions' resources are served by the same methods as the app's own, which an app
    // without resources of its own did not bring. Methods already there stay: a mount's serve the
    // app's resources and then its own (src/engine/mount/methods.ts).
    for (const [name, method] of Object.entries(RESOURCE_METHODS)) reg.methods[name] ??= method;
  }
  for (const ext of extensions.values()) {
    reg.capabilities.extensions = { ...reg.capabilities.extensions, [ext.id]: ext.settings };
    if (ext.topLevelCapability) reg.capabilities[ext.topLevelCapability] = ext.settings;
  }

  const hooks: ExtensionHooks = { methods: new Map(), perClient: new Set() };
  hooks.guard = [...extensions.values()].find((e) => e.guard)?.guard;
  for (const ext of extensions.values()) for (const [name, method] of Object.entries(ext.methods ?? {})) hooks.methods.set(name, method);
  if (finders.length > 0)
    hooks.resource = (uri) => {
      for (const find of finders) {
        const found: ResourceDefinition<any> | undefined = find(uri);
        if (found) return found;
      }
      return undefined;
    };

  // The tool lists again, now that the views' _meta is on the tools.
  reg.toolList = [...reg.tools.values()].map((t) => t.wire);
  reg.legacyToolList = legacyToolListOf(reg.tools);
  const changer = [...extensions.values()].find((e) => e.toolsWithout);
  if (changer) {
    // Each revision's list has its text-only twin, made once.
    const textOnly = new Map([reg.toolList, reg.legacyToolList].map((all) => [all, changer.toolsWithout!(all)]));
    const isClient = (ctx: HandlerContext<any>) => {
      const settings = clientDeclares(ctx, changer.id);
      return settings !== undefined && (changer.clientOf?.(settings as Record<string, unknown>) ?? true);
    };
    // A host that did not declare the extension gets the text-only tools (negotiated per session or per request).
    hooks.tools = (ctx, all) => (isClient(ctx) ? undefined : textOnly.get(all));
    const kept = new Set(textOnly.get(reg.toolList)!.map((t) => t.name));
    hooks.hidden = (ctx, name) => !kept.has(name) && !isClient(ctx);
    // tools/list now depends on the client's declared capabilities, which travel in `_meta` and are
    // not part of a cache's key (the method and the params that shape the result: cursor, uri). The
    // revision's rule for results that depend on inputs outside the key is that they are not reused,
    // so both shapes go out immediately stale (ttlMs 0) and private: a cache, shared or not, cannot
    // hand one host's tools to another. `private` alone would not do it: it keys by authorization,
    // and two hosts can share one token, or none. An app without views keeps its `public` list.
    hooks.perClient.add("tools/list");
  }
  reg.ext = hooks;
}
