// Why: a fork is only worth making if it can take the template's later fixes. This drill makes a
// fork the way a user does, from an earlier template version (BASE: the last one before the engine
// moved under src/engine/, the largest move the template has made), with its own app, tests,
// binding, name and README, commits it, then runs docs/upgrade.md's upgrade block as written against
// this checkout's HEAD. The merge must have no conflict, keep every file the fork owns as the fork
// wrote it, bring the engine exactly as the template has it, and leave `npm test` green.
// `npm install` is the one line not run: the fork shares this checkout's node_modules (same lock).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { assert, createChecks } from "./checks.mjs";
import { ROOT, atExit, run } from "../../../scripts/lib/procs.mjs";
import { fencedBlocks } from "../../../scripts/checks/readme-blocks.mjs";

/** The template version the fork starts from. */
export const BASE = "bb1e2873ec766f778792a563960d82c20a886274";

const FORK_APP = `import * as v from "valibot";
import { defineApp, defineTool } from "./mcp";

export const saveNote = defineTool({
  name: "save_note",
  description: "Saves a note in KV.",
  input: v.object({ id: v.string(), text: v.string() }),
  handler: async ({ id, text }, ctx) => {
    await ctx.env.NOTES.put(id, text);
    return \`saved \${id}\`;
  },
});

export default defineApp({ info: { name: "upgrade-drill-notes", version: "1.0.0" }, tools: [saveNote] });
`;

const FORK_TEST = `import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { testClient } from "../src/mcp";
import app, { saveNote } from "../src/server";

it("save_note writes the note to KV", async () => {
  const result = await testClient(app, { env }).callTool(saveNote, { id: "a", text: "kept" });
  expect(result.content).toEqual([{ type: "text", text: "saved a" }]);
  expect(await env.NOTES.get("a")).toBe("kept");
});
`;

/** The files the fork writes, each of which the upgrade must leave exactly as the fork has it. */
const FORK_FILES = ["src/server.ts", "test/server.test.ts", "wrangler.toml", "README.md", "package.json"];

/** docs/upgrade.md's upgrade block: the one that merges template/main. */
function upgradeBlock() {
  const block = fencedBlocks(readFileSync(path.join(ROOT, "docs/upgrade.md"), "utf8")).find(
    (b) => b.code.includes("git merge") && b.code.includes("template/main"),
  );
  if (!block) throw new Error("docs/upgrade.md has no block that merges template/main: the upgrade drill runs that block");
  return block.code
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export async function runUpgradeDrill() {
  const { check, counts } = createChecks("upgrade drill");
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-upgrade-drill-"));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  const fork = path.join(dir, "fork");
  const exec = (line, timeoutMs) => run("sh", ["-c", line], { cwd: fork, timeoutMs, capture: true });
  try {
    const made = await check(
      `a fork made from ${BASE.slice(0, 7)} with its own app, test, KV binding, name and README`,
      async () => {
        git(dir, "clone", "--quiet", "--no-checkout", ROOT, "fork");
        git(fork, "checkout", "--quiet", "-b", "main-fork", BASE);
        git(fork, "config", "user.email", "fork@example.com");
        git(fork, "config", "user.name", "A fork");
        symlinkSync(path.join(ROOT, "node_modules"), path.join(fork, "node_modules"), "dir");
        writeFileSync(path.join(fork, "src/server.ts"), FORK_APP);
        writeFileSync(path.join(fork, "test/server.test.ts"), FORK_TEST);
        const toml = readFileSync(path.join(fork, "wrangler.toml"), "utf8").replace(/^name = ".*"$/m, 'name = "upgrade-drill-notes"');
        writeFileSync(
          path.join(fork, "wrangler.toml"),
          `${toml}\n[[kv_namespaces]]\nbinding = "NOTES"\nid = "00000000000000000000000000000000"\n`,
        );
        const readme = readFileSync(path.join(fork, "README.md"), "utf8").replace(/^# .*$/m, "# Notes: our team's MCP server");
        writeFileSync(path.join(fork, "README.md"), readme);
        const pkg = JSON.parse(readFileSync(path.join(fork, "package.json"), "utf8"));
        writeFileSync(path.join(fork, "package.json"), `${JSON.stringify({ ...pkg, name: "upgrade-drill-notes" }, null, 2)}\n`);
        const types = await exec("npm run types", 120_000);
        assert(types.code === 0, `npm run types in the fork failed:\n${types.out.slice(-2000)}`);
        const test = await exec("npm test", 240_000);
        assert(test.code === 0, `the fork's npm test failed before the upgrade:\n${test.out.slice(-3000)}`);
        git(fork, "add", "-A");
        git(fork, "commit", "--quiet", "-m", "our notes server");
      },
      400_000,
    );
    if (!made) return counts();

    const before = Object.fromEntries(FORK_FILES.map((f) => [f, readFileSync(path.join(fork, f), "utf8")]));
    // The template remote: this checkout, its HEAD as template/main.
    git(fork, "remote", "add", "template", ROOT);
    git(fork, "config", "remote.template.fetch", "+HEAD:refs/remotes/template/main");

    const merged = await check(
      "docs/upgrade.md's block runs as written: the merge has no conflict and npm test passes",
      async () => {
        for (const line of upgradeBlock()) {
          if (line.startsWith("npm install")) continue; // node_modules is this checkout's, already installed
          const r = await exec(line, 300_000);
          const unmerged = git(fork, "diff", "--name-only", "--diff-filter=U").trim();
          assert(
            r.code === 0 && !r.timedOut,
            `\`${line}\` ${r.timedOut ? "timed out" : `exited with ${r.code}`}${unmerged ? ` (conflicts: ${unmerged.replace(/\n/g, ", ")})` : ""}:\n${r.out.slice(-3000)}`,
          );
        }
      },
      700_000,
    );
    if (!merged) return counts();

    await check("every file the fork owns is as the fork wrote it", async () => {
      const changed = FORK_FILES.filter((f) => f !== "package.json" && readFileSync(path.join(fork, f), "utf8") !== before[f]);
      assert(changed.length === 0, `the upgrade changed the fork's own ${changed.join(", ")}`);
      assert(
        JSON.parse(readFileSync(path.join(fork, "package.json"), "utf8")).name === "upgrade-drill-notes",
        "the fork's package name did not survive the merge",
      );
    });
    await check("the engine, the doors and the engine's tests are the template's, byte for byte", async () => {
      const diff = git(
        fork,
        "diff",
        "--name-only",
        "template/main",
        "--",
        "src/engine",
        "src/mcp.ts",
        "src/client.ts",
        "test/engine",
        "scripts",
      ).trim();
      assert(diff === "", `the merged fork differs from the template in:\n${diff}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unhook();
  }
  return counts();
}
