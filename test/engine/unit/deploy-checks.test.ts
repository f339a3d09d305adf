/**
 * `npm run deploy`'s preconditions (scripts/deploy-checks.mjs): each missing step of a first deploy
 * is named, with the exact command that does it, and a fork that has done them all is let through.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { deployProblems, provisioned } from "../../../scripts/deploy-checks.mjs";

type Problem = { problem: string; fix: string };

const ready = {
  configFile: "wrangler.toml",
  config: {
    name: "bookmarks-mcp",
    ratelimits: [{ name: "MCP_RATE_LIMIT", namespace_id: "48213" }],
    kv_namespaces: [{ binding: "NOTES", id: "kv-1" }],
    r2_buckets: [{ binding: "FILES", bucket_name: "files" }],
  },
  d1: [{ binding: "DB", name: "bookmarks", id: "d1-1", files: ["0001_bookmarks.sql"] }],
  loggedIn: true,
  secrets: ["MCP_STATE_SECRET"],
  remote: { d1: [{ name: "bookmarks", uuid: "d1-1" }], kv: [{ id: "kv-1" }], r2: ["files"] },
  randomId: () => 777,
};

const fixes = (facts: object) => (deployProblems({ ...ready, ...facts }) as Problem[]).map((p) => p.fix);

describe("npm run deploy's preconditions", () => {
  it("lets a fork through that has done every step", () => {
    expect(deployProblems(ready)).toEqual([]);
  });

  it("names every missing step of a first deploy at once, each with its command", () => {
    const fresh = {
      config: { ...ready.config, name: "mcp-worker-template", ratelimits: [{ name: "MCP_RATE_LIMIT", namespace_id: "1001" }], kv_namespaces: [{ binding: "NOTES", id: "kv-gone" }], r2_buckets: [{ binding: "FILES", bucket_name: "pics" }] },
      d1: [{ binding: "DB", name: "bookmarks", files: ["0001_bookmarks.sql"] }],
      loggedIn: false,
      secrets: "no-worker",
    };
    expect(fixes(fresh)).toEqual([
      "npx wrangler login        (or set CLOUDFLARE_API_TOKEN)",
      'In wrangler.toml set your Worker\'s name, e.g.  name = "my-mcp-server"   (its URL is https://<name>.<your subdomain>.workers.dev/mcp)',
      'In wrangler.toml pick your own, e.g. these random ones: MCP_RATE_LIMIT: namespace_id = "777"',
      "openssl rand -hex 32 | npx wrangler secret put MCP_STATE_SECRET --config wrangler.toml",
      `npx wrangler d1 create bookmarks   then put the database_id it prints in wrangler.toml's [[d1_databases]] binding = "DB"`,
      `npx wrangler kv namespace create NOTES   then put the id it prints in wrangler.toml's [[kv_namespaces]] binding = "NOTES"`,
      "npx wrangler r2 bucket create pics",
    ]);
  });

  it("asks for the secret when the Worker has others but not it", () => {
    expect(fixes({ secrets: ["OTHER"] })).toEqual(["openssl rand -hex 32 | npx wrangler secret put MCP_STATE_SECRET --config wrangler.toml"]);
  });

  it("does not judge what it could not learn (offline: no login state, secrets or remote lists)", () => {
    expect(deployProblems({ ...ready, loggedIn: undefined, secrets: undefined, remote: undefined, d1: [{ binding: "DB", id: "any", files: [] }] })).toEqual([]);
  });

  it("says which storage wrangler deploy creates itself: KV and R2 declared without an id", () => {
    expect(provisioned({ kv_namespaces: [{ binding: "CACHE" }, { binding: "NOTES", id: "kv-1" }], r2_buckets: [{ binding: "FILES" }] })).toEqual(["KV namespace for CACHE", "R2 bucket for FILES"]);
  });
});
