/**
 * Cut tool results kept whole (docs/results.md): one object per result, named `result:<id>` in the
 * task namespace (MCP_TASK, which every fork binds), so a result needs no binding of its own. It
 * keeps the result's JSON and its owner, answers only that owner (or anyone with the link, for an
 * anonymous caller's), and deletes everything at its expiry by an alarm. `resultBudget()` makes the
 * app's McpTask class (its task class, or an empty one) keep results too, so an app without it
 * carries none of this.
 */
import type { DurableObject } from "./durable-object";
import type { Env } from "../env";
import type { KeptResultMethods } from "./contracts";

/** The largest result kept, in characters (a larger one is cut with no link): under an RPC message's bound. */
export const MAX_KEPT_CHARS = 8_000_000;
/** Characters a stored value holds: at 3 bytes a character, under a Durable Object value's 2 MB. */
const PART = 500_000;

interface Kept {
  owner: string;
  expiresAt: number;
  parts: number;
}

type ObjectClass = new (ctx: DurableObjectState, env: Env) => DurableObject<Env>;

/** `Base` (the app's task class, or an empty object class) that also keeps cut results. */
export function keepingResults(Base: ObjectClass): ObjectClass {
  return class KeepingResults extends Base implements KeptResultMethods {
    async keepResult(owner: string, whole: string, expiresAt: number): Promise<void> {
      const entries: Record<string, unknown> = {};
      let parts = 0;
      for (; parts * PART < whole.length; parts++) entries[parts] = whole.slice(parts * PART, (parts + 1) * PART);
      entries.kept = { owner, expiresAt, parts } satisfies Kept;
      await this.ctx.storage.put(entries);
      await this.ctx.storage.setAlarm(expiresAt);
    }

    async readKeptResult(principal: string): Promise<string | undefined> {
      const kept = await this.ctx.storage.get<Kept>("kept");
      if (!kept || Date.now() >= kept.expiresAt || (kept.owner && kept.owner !== principal)) return undefined;
      const parts = await this.ctx.storage.get<string>(Array.from({ length: kept.parts }, (_, n) => String(n)));
      return [...parts.values()].join("");
    }

    /** At its expiry a kept result goes whole; any other object's alarm (a task's) is its own. */
    async alarm(): Promise<void> {
      const kept = await this.ctx.storage.get<Kept>("kept");
      if (kept) return Date.now() >= kept.expiresAt ? this.ctx.storage.deleteAll() : undefined;
      return (Base.prototype as { alarm?: () => Promise<void> }).alarm?.call(this);
    }
  };
}
