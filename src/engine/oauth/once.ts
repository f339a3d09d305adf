/**
 * Single use under concurrency, for the OAuth entry: a Durable Object per marked value (an ID-JAG
 * assertion's issuer and `jti`), whose first `claim` wins and every later one, concurrent or not,
 * loses. The provider's own replay mark is a KV read then a write, and two exchanges of one
 * assertion that arrive together both pass it; one object per value runs its claims one at a
 * time, so exactly one passes here. The mark deletes itself when the value expires (an alarm),
 * so the objects keep nothing past the assertion's lifetime.
 *
 * Bound as OAUTH_ONCE (wrangler.oauth.toml) and exported by the entry (./worker.ts).
 */
import { DurableObject } from "cloudflare:workers";

export interface OnceEnv {
  /** The single-use marks (this class); ID-JAG stays off without it (./id-jag.ts). */
  OAUTH_ONCE?: DurableObjectNamespace<OAuthOnce>;
}

export class OAuthOnce extends DurableObject {
  /** True for the first claim only. `expiresAt` (Unix seconds) is when the mark may go. */
  async claim(expiresAt: number): Promise<boolean> {
    // Synchronous storage calls between no awaits: nothing else runs in this object in between.
    const kv = this.ctx.storage.kv;
    if (kv.get("used") !== undefined) return false;
    kv.put("used", expiresAt);
    // A minute past the expiry, so clock skew at the checks never outlives the mark.
    await this.ctx.storage.setAlarm((Math.max(expiresAt, Date.now() / 1000) + 60) * 1000);
    return true;
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}

/** Marks `key` used, once; false when it already was (or is being marked by another request now). */
export async function claimOnce(namespace: DurableObjectNamespace<OAuthOnce>, key: string, expiresAt: number): Promise<boolean> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const name = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return namespace.get(namespace.idFromName(name)).claim(expiresAt);
}
