/**
 * Canonical JSON (object keys sorted at every depth): a subscription's key compares its arguments
 * this way, so `{a, b}` and `{b, a}` are one subscription, and the same text feeds its derived id.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Whether an occurrence emitted with `match` reaches a subscription with these arguments: every key
 * the emit names must equal the subscription's value for it, and a subscription that leaves a key out
 * filters nothing on it (an event for `topic: "billing"` reaches subscriptions to "billing" and those
 * that named no topic).
 */
export function matches(args: Record<string, unknown>, match: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(match)) if (Object.hasOwn(args, k) && canonicalJson(args[k]) !== canonicalJson(v)) return false;
  return true;
}
