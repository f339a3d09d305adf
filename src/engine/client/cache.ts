/**
 * An optional cache for the results 2026-07-28 marks cacheable (`ttlMs`,
 * `cacheScope`): discover, the lists and `resources/read`. `public` entries
 * may be shared by every client using the cache; `private` ones only by the
 * same authorization context (the client's partition). A list-changed
 * notification drops the entries of that list at once.
 */
import { CACHEABLE_METHODS } from "../mcp/rules";

export interface ResultCache {
  get(key: string): Promise<unknown | undefined> | unknown | undefined;
  set(key: string, value: unknown, ttlMs: number): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

/** The default cache: a Map in this isolate's memory, entries dropped when they expire. */
export class MemoryCache implements ResultCache {
  private readonly entries = new Map<string, { value: unknown; expires: number }>();
  constructor(private readonly maxEntries = 1000) {}
  get(key: string): unknown | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: unknown, ttlMs: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
  }
  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** Which cached methods a notification makes stale. */
function staleMethods(notification: string): string[] {
  switch (notification) {
    case "notifications/tools/list_changed":
      return ["tools/list"];
    case "notifications/prompts/list_changed":
      return ["prompts/list"];
    case "notifications/resources/list_changed":
      return ["resources/list", "resources/templates/list"];
    case "notifications/resources/updated":
      return ["resources/read"];
    default:
      return [];
  }
}

/** A cache front for one client: builds the keys and honours ttlMs and cacheScope. */
export class CacheFront {
  private readonly keys = new Map<string, Set<string>>();
  constructor(
    private readonly cache: ResultCache,
    private readonly url: string,
    private readonly partition: string,
  ) {}

  private key(scope: "public" | "private", method: string, params: Record<string, unknown>): string {
    return JSON.stringify([this.url, scope === "private" ? this.partition : "", method, params]);
  }

  async get(method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    if (!CACHEABLE_METHODS.has(method)) return undefined;
    return ((await this.cache.get(this.key("private", method, params))) ?? (await this.cache.get(this.key("public", method, params)))) as
      | Record<string, unknown>
      | undefined;
  }

  async put(method: string, params: Record<string, unknown>, result: Record<string, unknown>): Promise<void> {
    const ttl = result.ttlMs;
    // Absent or non-positive ttlMs means stale at once; an input-required result is never cacheable.
    if (!CACHEABLE_METHODS.has(method) || typeof ttl !== "number" || ttl <= 0 || result.resultType === "input_required") return;
    const scope = result.cacheScope === "public" ? "public" : "private";
    const key = this.key(scope, method, params);
    await this.cache.set(key, result, ttl);
    let set = this.keys.get(method);
    if (!set) this.keys.set(method, (set = new Set()));
    set.add(key);
  }

  async invalidate(notification: string): Promise<void> {
    for (const method of staleMethods(notification)) {
      for (const key of this.keys.get(method) ?? []) await this.cache.delete(key);
      this.keys.delete(method);
    }
  }
}
