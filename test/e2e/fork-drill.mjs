// Why: the template's main use is a fork that replaces the example app. This drill does exactly
// that in a scratch copy of the project: src/server.ts becomes a one-tool app that imports only
// ./mcp and valibot, test/server.test.ts is deleted, and the copy must typecheck, pass the layering
// / README / types checks and the vitest suite, and serve its tool on both revisions under
// `wrangler dev`. A failure here means a fork would break at its first step.
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT, atExit, run } from "./procs.mjs";
import { startWrangler } from "./server.mjs";
import { APP_CHECKS_FOLDER, ENGINE_TEST_FOLDERS } from "../../scripts/test-folders.mjs";
import { VIEW_FORK_APP, VIEW_FORK_FILE, assertViewServed } from "./extensions.mjs";

const NOTES_APP = `import * as v from "valibot";
import { defineApp, defineTool } from "./mcp";

export const saveNote = defineTool({
  name: "save_note",
  description: "Saves a note.",
  input: v.object({ id: v.string(), text: v.string() }),
  handler: async ({ id, text }, ctx) => {
    await ctx.env.NOTES.put(id, text);
    return \`saved \${id}\`;
  },
});

export const readNote = defineTool({
  name: "read_note",
  description: "Reads a note.",
  input: v.object({ id: v.string() }),
  handler: async ({ id }, ctx) => (await ctx.env.NOTES.get(id)) ?? \`no note \${id}\`,
});

export default defineApp({ info: { name: "fork-drill-notes", version: "1.0.0" }, tools: [saveNote, readNote] });
`;

/** The fork's binding, added to wrangler.toml as a fork would. */
const NOTES_BINDING = `
[[kv_namespaces]]
binding = "NOTES"
id = "fork-drill-notes"
`;

/** The fork's own tests: not named server.test.ts, one in a subfolder, both reading the real local KV. */
const NOTES_TESTS = {
  "test/notes.test.ts": `import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { testClient } from "../src/mcp";
import app from "../src/server";

it("save_note writes to the NOTES namespace of wrangler.toml", async () => {
  const c = testClient(app, { env });
  await c.callTool("save_note", { id: "n1", text: "hello" });
  expect(await env.NOTES.get("n1")).toBe("hello");
});
`,
  "test/notes/read.test.ts": `import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { testClient } from "../../src/mcp";
import app from "../../src/server";

it("read_note reads what is in the NOTES namespace", async () => {
  await env.NOTES.put("n2", "from the test");
  const result = await testClient(app, { env }).callTool("read_note", { id: "n2" });
  expect(result.content).toEqual([{ type: "text", text: "from the test" }]);
});
`,
};

/** One of each definition mistake, and what the checks must say of each. */
const MISTAKES_APP = `import * as v from "valibot";
import { defineApp, defineResourceTemplate, defineTool } from "./mcp";

const note = defineTool({ name: "note", handler: () => "ok" });
export default defineApp({
  info: { name: "fork-drill-mistakes", version: "1.0.0" },
  tools: [
    note,
    note,
    defineTool({ name: "save note", handler: () => "ok" }),
    defineTool({ name: "remind", input: v.object({ when: v.date(), tags: v.array(v.custom<string>((x) => typeof x === "string")) }), handler: () => "ok" }),
    // A task declared without durableTask, as an app in plain JS (or written before it) would.
    defineTool({ name: "slow", task: "optional" as never, handler: () => "ok" }),
  ],
  resourceTemplates: [
    defineResourceTemplate({ uriTemplate: "notes://{id}/{id}", name: "twice", read: () => "" }),
    defineResourceTemplate({ uriTemplate: "notes://id", name: "fixed", read: () => "" }),
  ],
});
`;
const MISTAKES_SAID = [
  'Tool "note" is defined twice',
  'Tool "save note": a name is 1-128 characters',
  'Tool "remind" input field when: The "date" schema cannot be converted to JSON Schema',
  'Tool "remind" input field tags[]: The "custom" schema cannot be converted to JSON Schema',
  'Tool "slow": declare its task as `task: durableTask("optional")`',
  'Resource template "notes://{id}/{id}": variable {id} appears twice',
  'Resource template "notes://id": has no {variable}',
];

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** The project's files as git sees them (tracked, and new files not ignored), copied to `dir`. */
function copyProject(dir) {
  const list = (args) => execFileSync("git", ["ls-files", "-z", ...args], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of new Set([...list([]), ...list(["--others", "--exclude-standard"])])) {
    const to = path.join(dir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      copyFileSync(path.join(ROOT, file), to);
    } catch {
      // a tracked file deleted in the working tree
    }
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  removeForkTests(dir);
}

/** Every test file outside the engine's folders belongs to the app being replaced. */
function removeForkTests(dir) {
  const keep = new Set([...ENGINE_TEST_FOLDERS, APP_CHECKS_FOLDER]);
  for (const entry of readdirSync(path.join(dir, "test"), { recursive: true })) {
    const file = String(entry).split(path.sep).join("/");
    if (file.endsWith(".test.ts") && !keep.has(file.split("/")[0])) rmSync(path.join(dir, "test", file));
  }
}

/** A tool call on 2026-07-28, and one in a 2025-11-25 session. */
async function callBoth(url, first, second) {
  const modern = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": first.name },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...first, _meta: MODERN_META } }),
  });
  const init = await fetch(url, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fork-drill", version: "0" } } }),
  });
  const session = init.headers.get("Mcp-Session-Id") ?? "";
  const inSession = { ...JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" };
  await fetch(url, { method: "POST", headers: inSession, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  const legacy = await fetch(url, {
    method: "POST",
    headers: inSession,
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: second }),
  });
  return { modern: await modern.json(), legacy: await legacy.json(), session };
}

export async function runForkDrill() {
  const { check, counts } = createChecks("fork drill");
  await notesFork(check);
  await mistakesFork(check);
  await viewFork(check);
  return counts();
}

/** A scratch copy of the project for one fork; `fn` gets its folder and a step runner. */
async function inScratchFork(check, name, fn) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `mcp-fork-drill-${name}-`));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  /** Runs a command in the fork; resolves with its exit code and output. */
  const exec = (cmd, args, timeoutMs) => run(cmd, args, { cwd: dir, timeoutMs, capture: true });
  const mustPass = (label, cmd, args, timeoutMs) =>
    check(label, async () => {
      const r = await exec(cmd, args, timeoutMs);
      if (r.code !== 0 || r.timedOut) throw new Error(`${cmd} ${args.join(" ")} ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-3000)}`);
      return r;
    }, timeoutMs + 5_000);
  /** Serves the fork under `wrangler dev` and runs the check `label` against its URL. */
  const served = async (label, fn) => {
    let server;
    const started = await check(`wrangler dev serves the fork (${name})`, async () => {
      server = await startWrangler({ config: path.join(dir, "wrangler.toml") });
    }, 90_000);
    if (!started) return;
    try {
      await check(label, () => fn(server.url));
    } finally {
      await server.stop();
    }
  };
  try {
    copyProject(dir);
    console.log(`  scratch fork (${name}) at ${dir}`);
    await fn(dir, { exec, mustPass, served });
  } catch (err) {
    await check(`prepare the scratch fork (${name})`, async () => {
      throw err;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unhook();
  }
}

async function notesFork(check) {
  await inScratchFork(check, "notes", async (dir, { exec, mustPass, served }) => {
    writeFileSync(path.join(dir, "src", "server.ts"), NOTES_APP);
    appendFileSync(path.join(dir, "wrangler.toml"), NOTES_BINDING);
    for (const [file, text] of Object.entries(NOTES_TESTS)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    await mustPass("npm run types (the fork's NOTES binding typed in Env)", "npm", ["run", "types"], 120_000);
    await check("npm test runs the fork's own test files, with its KV binding, and passes", async () => {
      const r = await exec("npm", ["test"], 240_000);
      if (r.code !== 0 || r.timedOut) throw new Error(`npm test ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-4000)}`);
      for (const file of [...Object.keys(NOTES_TESTS), "test/app-checks/app.test.ts"])
        assert(new RegExp(`✓ ${file.replace(/[./]/g, "\\$&")}`).test(r.out), `npm test did not run ${file}:\n${r.out.slice(-3000)}`);
    }, 245_000);
    await mustPass("the engine's integration tests pass in the fork (vitest -c vitest.engine.config.ts)", "vitest", ["run", "-c", "vitest.engine.config.ts"], 600_000);

    await served("its tools answer on 2026-07-28 and in a 2025-11-25 session, through its KV", async (url) => {
      const { modern, legacy, session } = await callBoth(url, { name: "save_note", arguments: { id: "n", text: "kept in KV" } }, { name: "read_note", arguments: { id: "n" } });
      assertEqual(modern.result?.content, [{ type: "text", text: "saved n" }], "2026-07-28 save_note content");
      assert(session.length > 0, "initialize gave no Mcp-Session-Id");
      assertEqual(legacy.result?.content, [{ type: "text", text: "kept in KV" }], "2025-11-25 read_note content");
    });
  });
}

async function mistakesFork(check) {
  await inScratchFork(check, "mistakes", async (dir, { exec }) => {
    writeFileSync(path.join(dir, "src", "server.ts"), MISTAKES_APP);
    const failsNaming = (label, cmd, args, timeoutMs) =>
      check(label, async () => {
        const r = await exec(cmd, args, timeoutMs);
        assert(!r.timedOut, `${cmd} ${args.join(" ")} timed out`);
        assert(r.code !== 0, `${cmd} ${args.join(" ")} passed with definition mistakes:\n${r.out.slice(-3000)}`);
        const missing = MISTAKES_SAID.filter((said) => !r.out.includes(said));
        assert(missing.length === 0, `${cmd} ${args.join(" ")} did not name: ${missing.join(" | ")}\n${r.out.slice(-3000)}`);
      }, timeoutMs + 5_000);
    await failsNaming("npm test fails, naming each definition mistake", "npm", ["test"], 240_000);
    await failsNaming("npm run deploy fails before wrangler, naming each mistake", "npm", ["run", "deploy", "--", "--dry-run", "--outdir", path.join(dir, "dist")], 60_000);
  });
}

async function viewFork(check) {
  await inScratchFork(check, "view", async (dir, { mustPass, served }) => {
    writeFileSync(path.join(dir, "src", "server.ts"), VIEW_FORK_APP);
    mkdirSync(path.dirname(path.join(dir, VIEW_FORK_FILE.path)), { recursive: true });
    writeFileSync(path.join(dir, VIEW_FORK_FILE.path), VIEW_FORK_FILE.html);
    await mustPass("npm test passes for an app with a view", "npm", ["test"], 240_000);
    await served("its view is declared, named on the tool and read on both revisions", (url) =>
      assertViewServed(url, { tool: "add", uri: "ui://fork/total.html", htmlIncludes: "fork view" }),
    );
  });
}
