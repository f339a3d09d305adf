/**
 * `npm run dev` and `npm run deploy` check and migrate the config wrangler will use
 * (scripts/lib/wrangler-config.mjs, scripts/d1-migrations.mjs): the file named by `--config`,
 * `--config=` or `-c`, else the one wrangler finds (wrangler.json, wrangler.jsonc, wrangler.toml);
 * `--env`/`-e`'s environment applied, D1 declared inline in it included; TOML, JSON and JSONC alike.
 * A config they missed would send the Worker out against an unmigrated database.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { d1Databases, migrationsCommand } from "../../../scripts/d1-migrations.mjs";
// @ts-expect-error: a plain .mjs script without type declarations
import { wranglerTarget } from "../../../scripts/lib/wrangler-config.mjs";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A project folder holding these files (and a migrations/ folder with one .sql file). */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "wrangler-config-"));
  roots.push(root);
  mkdirSync(path.join(root, "migrations"));
  writeFileSync(path.join(root, "migrations", "0001_tickets.sql"), "CREATE TABLE tickets (id TEXT);\n");
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "src", "index.ts"), "export default {};\n");
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, name), text);
  return root;
}

const TOML_TOP = `name = "desk"\nmain = "src/index.ts"\ncompatibility_date = "2026-11-01"\n`;

describe("which config and environment wrangler uses", () => {
  const root = project({ "wrangler.toml": TOML_TOP });
  it.each([
    [["--dry-run"], { configFile: "wrangler.toml" }],
    [["--config", "other.toml"], { configFile: "other.toml" }],
    [["--config=other.toml"], { configFile: "other.toml" }],
    [["-c", "other.toml"], { configFile: "other.toml" }],
    [["--env", "staging"], { configFile: "wrangler.toml", env: "staging" }],
    [["--env=staging", "-c", "x.jsonc"], { configFile: "x.jsonc", env: "staging" }],
    [["-e", "prod"], { configFile: "wrangler.toml", env: "prod" }],
  ])("%j", (argv, expected) => {
    expect(wranglerTarget(root, argv)).toEqual(expected);
  });

  it("finds wrangler.json, then wrangler.jsonc, before wrangler.toml, as wrangler does", () => {
    expect(wranglerTarget(project({ "wrangler.toml": TOML_TOP, "wrangler.jsonc": "{}" }), [])).toEqual({ configFile: "wrangler.jsonc" });
    expect(wranglerTarget(project({ "wrangler.jsonc": "{}", "wrangler.json": "{}" }), [])).toEqual({ configFile: "wrangler.json" });
  });

  it("points the migrations at the same config and environment", () => {
    expect(migrationsCommand("DB", { configFile: "w.jsonc", env: "staging" }, "--remote")).toEqual([
      "wrangler",
      "d1",
      "migrations",
      "apply",
      "DB",
      "--remote",
      "--config",
      "w.jsonc",
      "--env",
      "staging",
    ]);
  });
});

describe("the D1 databases of the config wrangler deploys", () => {
  const d1 = (root: string, target: object) =>
    d1Databases(root, target).then((list: { binding: string; id: string; files: string[] }[]) =>
      list.map((d) => [d.binding, d.id, d.files]),
    );

  it("a D1 database declared inline in an environment, for that environment only", async () => {
    const root = project({
      "wrangler.toml": `${TOML_TOP}\n[env.staging]\nd1_databases = [{ binding = "DB", database_name = "desk-staging", database_id = "d1-staging" }]\n`,
    });
    expect(await d1(root, { configFile: "wrangler.toml", env: "staging" })).toEqual([["DB", "d1-staging", ["0001_tickets.sql"]]]);
    expect(await d1(root, { configFile: "wrangler.toml" })).toEqual([]);
  }, 20_000);

  it("an environment's own D1 database, not the top level's", async () => {
    const root = project({
      "wrangler.toml": `${TOML_TOP}[[d1_databases]]\nbinding = "DB"\ndatabase_name = "desk"\ndatabase_id = "d1-top"\n\n[[env.prod.d1_databases]]\nbinding = "DB"\ndatabase_name = "desk-prod"\ndatabase_id = "d1-prod"\n`,
    });
    expect(await d1(root, { configFile: "wrangler.toml", env: "prod" })).toEqual([["DB", "d1-prod", ["0001_tickets.sql"]]]);
  }, 20_000);

  it("a JSON config and a JSONC config (with comments)", async () => {
    const json = {
      name: "desk",
      main: "src/index.ts",
      compatibility_date: "2026-11-01",
      d1_databases: [{ binding: "DB", database_name: "desk", database_id: "d1-json" }],
    };
    const root = project({
      "wrangler.json": JSON.stringify(json),
      "other.jsonc": `// the desk\n{\n  "name": "desk", "main": "src/index.ts", "compatibility_date": "2026-11-01",\n  /* its tickets */ "d1_databases": [{ "binding": "DB", "database_name": "desk", "database_id": "d1-jsonc" }],\n}\n`,
    });
    expect(await d1(root, wranglerTarget(root, []))).toEqual([["DB", "d1-json", ["0001_tickets.sql"]]]);
    expect(await d1(root, wranglerTarget(root, ["-c", "other.jsonc"]))).toEqual([["DB", "d1-jsonc", ["0001_tickets.sql"]]]);
  }, 20_000);
});
