/**
 * Webhook deliveries and verifications (src/engine/events/webhook.ts) go to URLs a caller chose. The
 * engine checks the host's name; on Cloudflare, `global_fetch_strictly_public` makes the runtime's
 * fetch() route them as from the public internet, so a callback on the Worker's own zone cannot reach
 * its origin past Cloudflare's front door (docs/events.md, "What keeps callbacks off private networks").
 * Both Worker configs the template deploys must keep the flag (read from the project root, where vitest runs).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const flagsOf = (file: string): string[] => {
  const line = readFileSync(file, "utf8").match(/^compatibility_flags\s*=\s*\[([^\]]*)\]/m);
  return line ? [...line[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) : [];
};

describe("the Worker's outbound fetch for callbacks", () => {
  it.each(["wrangler.toml", "wrangler.oauth.toml"])("%s sets global_fetch_strictly_public", (file) => {
    expect(flagsOf(file)).toContain("global_fetch_strictly_public");
  });
});
