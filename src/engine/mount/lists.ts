/**
 * A mount's copies of the upstream's lists (tools, prompts, resources, templates), renamed with the
 * prefix and kept a while, and the relay that tells this server's listeners when one changed.
 */
import type { HandlerContext } from "../mcp/context";
import type { MountedList } from "../mcp/mounts";
import { CHANGED, LIST_METHOD, STALE } from "./options";
import type { Upstream } from "./upstream";

/** Pages of one list followed, at most. */
const MAX_PAGES = 20;

export class MountLists {
  /** The upstream's lists, renamed, by kind ("tools", "prompts"), each kept until its `until`. */
  private readonly listed = new Map<MountedList, { items: Record<string, unknown>[]; until: number }>();

  constructor(
    private readonly prefix: string,
    private readonly upstream: Upstream<any>,
    /** The longest a list is kept (the upstream's ttlMs when shorter). */
    private readonly ttlBound: number,
  ) {}

  /** Whether the last list of `kind` held `name` (as listed here). */
  holds(kind: MountedList, name: string): boolean {
    return this.listed.get(kind)?.items.some((item) => item.name === name) ?? false;
  }

  /**
   * The upstream said a list changed, on a stream of a request this server made (a 2025 call's SSE
   * answer): the kept list is stale at once, and this server's listeners are told.
   */
  upstreamNotified(ctx: HandlerContext<any>, method: string): void {
    const stale = STALE[method];
    if (!stale) return;
    for (const kind of stale) this.listed.delete(kind);
    void this.relayChange(ctx, stale[0]!);
  }

  /**
   * Tells this server's listeners (2026 listen streams, 2025 GET streams, through the hub as `ctx.notify`
   * does) that a mounted list changed. Each isolate that sees the change says so once: a listener may
   * hear it more than once, which costs it one list.
   */
  private relayChange(ctx: HandlerContext<any>, kind: MountedList): Promise<void> {
    // What calls kept of the upstream's lists is stale too.
    this.upstream.forgetAnswers();
    const n = ctx.notify;
    const sent = kind === "tools" ? n.toolsListChanged() : kind === "prompts" ? n.promptsListChanged() : n.resourcesListChanged();
    return sent.catch((err: unknown) => {
      console.error(JSON.stringify({ mcp: "mount_relay_failed", mount: this.prefix, what: CHANGED[kind], message: String(err) }));
    });
  }

  /** An upstream entry as listed here: a name with the prefix and `_`, a URI (or template) with the prefix and `+`. */
  private renamed(kind: MountedList, item: Record<string, unknown>): Record<string, unknown> {
    const { prefix } = this;
    return kind === "resources"
      ? { ...item, uri: `${prefix}+${item.uri as string}` }
      : kind === "resourceTemplates"
        ? { ...item, uriTemplate: `${prefix}+${item.uriTemplate as string}` }
        : { ...item, name: `${prefix}_${item.name as string}` };
  }

  /** One of the upstream's lists (all its pages, up to MAX_PAGES), renamed with the prefix and kept a while. */
  async get(ctx: HandlerContext<any>, kind: MountedList): Promise<Record<string, unknown>[]> {
    const kept = this.listed.get(kind);
    if (kept && kept.until > Date.now()) return kept.items;
    try {
      const got = await this.upstream.use(ctx, async (client) => {
        // An upstream without prompts or resources has none to list.
        if (kind !== "tools") {
          await client.connect();
          if (!client.capabilities[kind === "prompts" ? "prompts" : "resources"]) return undefined;
        }
        const items: Record<string, unknown>[] = [];
        let ttlMs: unknown;
        let cursor: string | undefined;
        for (let pages = 0; pages < MAX_PAGES; pages++) {
          const page = (await client.request(LIST_METHOD[kind], cursor ? { cursor } : {}, { signal: ctx.signal })) as Record<
            string,
            unknown
          >;
          items.push(...((page[kind] as Record<string, unknown>[] | undefined) ?? []));
          ttlMs ??= page.ttlMs;
          cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
          if (!cursor) break;
        }
        return { items, ttlMs };
      });
      if (!got) return [];
      const { items, ttlMs } = got;
      const ttl = typeof ttlMs === "number" && ttlMs >= 0 ? Math.min(ttlMs, this.ttlBound) : this.ttlBound;
      const renamed = items.map(({ execution: _execution, ...item }) => this.renamed(kind, item));
      this.listed.set(kind, { items: renamed, until: Date.now() + ttl });
      // A list that differs from the one kept before is a change this server's listeners hear of.
      if (kept && JSON.stringify(kept.items) !== JSON.stringify(renamed)) await this.relayChange(ctx, kind);
      return renamed;
    } catch (err) {
      // A list this server cannot complete leaves the mount's entries out rather than failing the app's.
      console.error(
        JSON.stringify({
          mcp: "mount_failed",
          mount: this.prefix,
          what: LIST_METHOD[kind],
          message: err instanceof Error ? err.message : String(err),
        }),
      );
      return kept?.items ?? [];
    }
  }
}
