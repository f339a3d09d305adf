/**
 * `npm run deploy`'s preconditions (scripts/deploy-checks.mjs): each missing step of a first deploy
 * is named, with the exact command that does it, and a fork that has done them all is let through.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { deployProblems, provisioned, unchecked } from "../../../scripts/deploy-checks.mjs";
// @ts-expect-error: a plain .mjs script without type declarations
import { missingBindings } from "../../../scripts/lib/entry-bindings.mjs";

type Problem = { problem: string; fix: string };

const ready = {
  configFile: "wrangler.toml",
  config: {
    name: "bookmarks-mcp",
    compatibility_flags: ["enable_request_signal", "global_fetch_strictly_public"],
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
      config: {
        ...ready.config,
        name: "mcp-worker-template",
        ratelimits: [{ name: "MCP_RATE_LIMIT", namespace_id: "1001" }],
        kv_namespaces: [{ binding: "NOTES", id: "kv-gone" }],
        r2_buckets: [{ binding: "FILES", bucket_name: "pics" }],
      },
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

  it("names a used feature's unbound object and a missing engine flag, with the lines to add (a fork's config, which no upgrade reaches)", () => {
    const problems = deployProblems({
      ...ready,
      config: {
        ...ready.config,
        compatibility_flags: ["enable_request_signal"],
        durable_objects: { bindings: [{ name: "MCP_TASK", class_name: "McpTask" }] },
      },
      features: { tasks: true, events: true, userState: false },
    }) as Problem[];
    expect(problems.map((p) => p.problem)).toEqual([
      "the app serves events([...]), but wrangler.toml binds no MCP_EVENTS: its calls would fail.",
      `wrangler.toml's compatibility_flags lack "global_fetch_strictly_public": without it an outbound fetch to this Worker's own zone bypasses the front door (mounts, OAuth client metadata, webhooks).`,
    ]);
    expect(problems[0]!.fix).toMatch(
      /name = "MCP_EVENTS" class_name = "McpEvents".*new_sqlite_classes = \["McpEvents"\].*export McpEvents/,
    );
    // A feature the app does not use asks for nothing.
    expect(deployProblems({ ...ready, features: { tasks: false, events: false, userState: false } })).toEqual([]);
  });

  it("names a mount whose URL a deployed Worker would refuse (plain http, a private address), with what to mount instead", () => {
    const problems = deployProblems({
      ...ready,
      mountRefusals: ['mount "up": The URL of the mounted server "up" http://127.0.0.1:8788/mcp is plain http; the client will not use it'],
    }) as Problem[];
    expect(problems).toHaveLength(1);
    expect(problems[0]!.problem).toMatch(/^mount "up": .*plain http.*A deployed Worker refuses it/);
    expect(problems[0]!.fix).toMatch(/https URL of a public host, or by a service binding/);
  });

  it("asks for the secret when the Worker has others but not it", () => {
    expect(fixes({ secrets: ["OTHER"] })).toEqual([
      "openssl rand -hex 32 | npx wrangler secret put MCP_STATE_SECRET --config wrangler.toml",
    ]);
  });

  it("does not judge what it could not learn (offline: no login state, secrets or remote lists)", () => {
    expect(
      deployProblems({
        ...ready,
        loggedIn: undefined,
        secrets: undefined,
        remote: undefined,
        d1: [{ binding: "DB", id: "any", files: [] }],
      }),
    ).toEqual([]);
  });

  it("says which storage wrangler deploy creates itself: KV and R2 declared without an id", () => {
    expect(
      provisioned({ kv_namespaces: [{ binding: "CACHE" }, { binding: "NOTES", id: "kv-1" }], r2_buckets: [{ binding: "FILES" }] }),
    ).toEqual(["KV namespace for CACHE", "R2 bucket for FILES"]);
  });

  it("names the environment in the secret's command when deploying one", () => {
    expect(fixes({ env: "staging", secrets: [] })).toEqual([
      "openssl rand -hex 32 | npx wrangler secret put MCP_STATE_SECRET --config wrangler.toml --env staging",
    ]);
  });
});

describe("npm run deploy: an app that declares scopes needs authentication", () => {
  const scoped = { scoped: true, allowUnauthenticated: false };
  const problems = (facts: object) => (deployProblems({ ...ready, ...facts }) as Problem[]).map((p) => p.problem);

  it("refuses a scoped app with no authentication configured, naming the setting", () => {
    const [problem, ...rest] = deployProblems({ ...ready, app: scoped }) as Problem[];
    expect(rest).toEqual([]);
    expect(problem!.problem).toContain('AUTH_MODE is "none"');
    expect(problem!.fix).toContain('AUTH_MODE = "jwt"');
    expect(problem!.fix).toContain("allowUnauthenticated: true");
  });

  it("lets it through with AUTH_MODE jwt or token, AUTH_MODE as a secret, the OAuth entry, or the app's explicit opt-out", () => {
    expect(problems({ app: scoped, config: { ...ready.config, vars: { AUTH_MODE: "jwt" } } })).toEqual([]);
    expect(problems({ app: scoped, config: { ...ready.config, vars: { AUTH_MODE: "Token" } } })).toEqual([]);
    expect(problems({ app: scoped, secrets: ["MCP_STATE_SECRET", "AUTH_MODE"] })).toEqual([]);
    expect(problems({ app: scoped, config: { ...ready.config, main: "src/oauth.ts" } })).toEqual([]);
    expect(problems({ app: { scoped: true, allowUnauthenticated: true } })).toEqual([]);
    expect(problems({ app: { scoped: false, allowUnauthenticated: false } })).toEqual([]);
  });

  it("refuses AUTH_MODE none written out", () => {
    expect(problems({ app: scoped, config: { ...ready.config, vars: { AUTH_MODE: "none" } } })).toHaveLength(1);
  });
});

describe("npm run deploy never sends a dev-only setting out", () => {
  it("refuses MCP_DEV_TOKEN_KEY in [vars] or as a secret, and MCP_DEV", () => {
    expect(fixes({ config: { ...ready.config, vars: { MCP_DEV_TOKEN_KEY: "k" } } })).toEqual([
      "remove MCP_DEV_TOKEN_KEY from wrangler.toml's [vars]",
    ]);
    expect(fixes({ secrets: ["MCP_STATE_SECRET", "MCP_DEV_TOKEN_KEY"] })).toEqual([
      "npx wrangler secret delete MCP_DEV_TOKEN_KEY --config wrangler.toml",
    ]);
    expect(fixes({ config: { ...ready.config, vars: { MCP_DEV: "on" } } })).toEqual(["remove MCP_DEV from wrangler.toml's [vars]"]);
  });
});

describe("npm run deploy --dry-run says what it could not check", () => {
  it("login, the secret, and whether each database, namespace and bucket exists", () => {
    expect(
      unchecked({
        ...ready,
        loggedIn: undefined,
        secrets: undefined,
        remote: undefined,
        app: { scoped: false, allowUnauthenticated: false },
      }),
    ).toEqual([
      "whether wrangler is logged in (npx wrangler whoami)",
      "whether the Worker has its MCP_STATE_SECRET secret (npx wrangler secret list)",
      "whether D1 database d1-1 (DB) exists in your account, and which migrations it has",
      "whether KV namespace kv-1 (NOTES) exists in your account",
      "whether R2 bucket files (FILES) exists in your account",
    ]);
  });

  it("the app, when it did not load in Node", () => {
    expect(unchecked({ ...ready, app: undefined })).toEqual([
      "the app's definitions and scopes (src/server.ts did not load in Node; npm test checks it in workerd)",
    ]);
  });

  it("nothing, when everything was learned", () => {
    expect(unchecked({ ...ready, app: { scoped: false, allowUnauthenticated: false } })).toEqual([]);
  });
});

describe("the OAuth entry's config holds the fork's bindings", () => {
  const base = {
    d1_databases: [{ binding: "DB" }],
    r2_buckets: [{ binding: "FILES" }],
    ratelimits: [{ name: "MCP_RATE_LIMIT" }, { name: "TICKETS_LIMIT" }],
    durable_objects: { bindings: [{ name: "MCP_HUB" }] },
    vars: { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp", DESK_NAME: "Support" },
  };
  it("names each binding and var of wrangler.toml the entry lacks (not the default entry's auth settings)", () => {
    const entry = {
      ratelimits: [{ name: "MCP_RATE_LIMIT" }],
      kv_namespaces: [{ binding: "OAUTH_KV" }],
      durable_objects: { bindings: [{ name: "MCP_HUB" }] },
      vars: {},
    };
    expect(missingBindings(base, entry)).toEqual([
      '[[d1_databases]] binding = "DB": in wrangler.toml, not in wrangler.oauth.toml; copy its block there',
      '[[r2_buckets]] binding = "FILES": in wrangler.toml, not in wrangler.oauth.toml; copy its block there',
      '[[ratelimits]] name = "TICKETS_LIMIT": in wrangler.toml, not in wrangler.oauth.toml; copy its block there',
      '[vars] DESK_NAME = "Support": in wrangler.toml, not in wrangler.oauth.toml; copy it there',
    ]);
  });
  it("is satisfied by an entry with all of them", () => {
    expect(missingBindings(base, { ...base, vars: { DESK_NAME: "Support" } })).toEqual([]);
  });
});
