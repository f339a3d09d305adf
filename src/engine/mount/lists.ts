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

/** The spec's pattern for tool (and prompt) names. */
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether the upstream's `name`, served as `<prefix>_<name>`, is a name a client may be given. */
export const mountableName = (prefix: string, name: unknown): name is string => typeof name === "string" && NAME.test(`${prefix}_${name}`);

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
   * The upstream said lists changed, on the streams of a request this server made (a call's streamed
   * answer): the kept lists are stale at once, and this server's listeners are told once per list.
   */
  notified(ctx: HandlerContext<any>, methods: ReadonlySet<string>): void {
    for (const method of methods) {
      const stale = STALE[method];
      if (!stale) continue;
      for (const kind of stale) this.listed.delete(kind);
      void this.relayChange(ctx, stale[0]!);
    }
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
      this.log("mount_relay_failed", CHANGED[kind], String(err));
    });
  }

  /**
   * The entries whose name, with the prefix, keeps to the spec's pattern for names (1 to 128 of
   * `A-Z a-z 0-9 _ . -`): a name with a line break, a control character or 5,000 characters would reach
   * a model's context and this server's logs as it is. Each one left out is logged, escaped and cut short.
   */
  private named(kind: MountedList, items: Record<string, unknown>[]): Record<string, unknown>[] {
    if (kind !== "tools" && kind !== "prompts") return items;
    return items.filter((item) => {
      if (mountableName(this.prefix, item.name)) return true;
      this.log("mount_name_refused", LIST_METHOD[kind], `left out ${JSON.stringify(String(item.name)).slice(0, 80)}: not a valid name`);
      return false;
    });
  }

  private log(event: string, what: string, message: string): void {
    console.error(JSON.stringify({ mcp: event, mount: this.prefix, what, message }));
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

  /** The upstream's entries of `kind` (all its pages, up to MAX_PAGES) and its ttlMs; undefined when it has no such list. */
  private async fetch(
    ctx: HandlerContext<any>,
    kind: MountedList,
  ): Promise<{ items: Record<string, unknown>[]; ttlMs: unknown } | undefined> {
    return this.upstream.use(ctx, async (client) => {
      // An upstream without prompts or resources has none to list.
      if (kind !== "tools") {
        await client.connect();
        if (!client.capabilities[kind === "prompts" ? "prompts" : "resources"]) return undefined;
      }
      const items: Record<string, unknown>[] = [];
      let ttlMs: unknown;
      let cursor: string | undefined;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const page: Record<string, unknown> = await client.request(LIST_METHOD[kind], cursor ? { cursor } : {}, { signal: ctx.signal });
        items.push(...((page[kind] as Record<string, unknown>[] | undefined) ?? []));
        ttlMs ??= page.ttlMs;
        cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
        if (!cursor) break;
      }
      // An upstream with more pages than a mount follows is served in part: the operator reads why.
      if (cursor) this.log("mount_list_truncated", LIST_METHOD[kind], `the list stops after ${MAX_PAGES} pages; the upstream has more`);
      return { items, ttlMs };
    });
  }

  /** One of the upstream's lists, renamed with the prefix and kept a while. */
  async get(ctx: HandlerContext<any>, kind: MountedList): Promise<Record<string, unknown>[]> {
    const kept = this.listed.get(kind);
    if (kept && kept.until > Date.now()) return kept.items;
    try {
      const got = await this.fetch(ctx, kind);
      if (!got) return [];
      const ttl = typeof got.ttlMs === "number" && got.ttlMs >= 0 ? Math.min(got.ttlMs, this.ttlBound) : this.ttlBound;
      const renamed = this.named(kind, got.items).map(({ execution: _execution, ...item }) => this.renamed(kind, item));
      this.listed.set(kind, { items: renamed, until: Date.now() + ttl });
      // A list that differs from the one kept before is a change this server's listeners hear of.
      if (kept && JSON.stringify(kept.items) !== JSON.stringify(renamed)) await this.relayChange(ctx, kind);
      return renamed;
    } catch (err) {
      // A list this server cannot complete leaves the mount's entries out rather than failing the app's.
      this.log("mount_failed", LIST_METHOD[kind], err instanceof Error ? err.message : String(err));
      return kept?.items ?? [];
    }
  }
}
