// Why: the template's main use is a fork that replaces the example app. This drill does exactly
// that in a scratch copy of the project: src/server.ts becomes a one-tool app that imports only
// ./mcp and valibot, test/server.test.ts is deleted, and the copy must typecheck, pass the layering
// / README / types checks and the vitest suite, and serve its tool on both revisions under
// `wrangler dev`. A failure here means a fork would break at its first step. The notes fork also has a
// D1 database with a migration: its tests use the table with no setup of their own, `npm run dev`
// creates it, and `npm run deploy -- --dry-run` says it would apply it remotely first; under
// `npm run dev` a tool's stack names src/server.ts, and a SIGTERM to npm's PID frees the port.
import { execFileSync } from "node:child_process";
import net from "node:net";
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT, atExit, run, sleep, spawnGroup, stopGroup } from "../../../scripts/lib/procs.mjs";
import { freePort, startWrangler } from "./server.mjs";
import { devTokenKey, mintDevToken } from "../../../scripts/lib/dev-token.mjs";
import { APP_CHECKS_FOLDER, ENGINE_TEST_FOLDERS } from "../../../scripts/test-folders.mjs";
import { VIEW_FORK_APP, VIEW_FORK_FILE, assertViewServed } from "./extensions.mjs";
import { fencedBlocks } from "../../../scripts/checks/readme-blocks.mjs";

/**
 * docs/storage.md's test of a D1 table, as a fork writes it (the page indents it in a list). It
 * names a binding and a tool only a fork has, so the snippet check cannot compile it beside the
 * example app: the drill runs it in its fork instead, and that is how the page's block is checked.
 */
function storagePageTest() {
  const block = fencedBlocks(readFileSync(path.join(ROOT, "docs/storage.md"), "utf8")).find(
    (b) => b.code.includes('"cloudflare:test"') && b.code.includes("bookmarks"),
  );
  if (!block) throw new Error("docs/storage.md has no test of the bookmarks table: the fork drill runs that block");
  const indent = Math.min(
    ...block.code
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => l.match(/^ */)[0].length),
  );
  return `${block.code
    .split("\n")
    .map((l) => l.slice(indent))
    .join("\n")}\n`;
}

const NOTES_APP = `import * as v from "valibot";
import { defineApp, defineTool, discovery, mountServer, userState } from "./mcp";

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

export const addBookmark = defineTool({
  name: "add_bookmark",
  description: "Saves a bookmark in the D1 table of migrations/.",
  input: v.object({ url: v.string() }),
  handler: async ({ url }, ctx) => {
    await ctx.env.DB.prepare("INSERT INTO bookmarks (url) VALUES (?)").bind(url).run();
    const { n } = (await ctx.env.DB.prepare("SELECT count(*) AS n FROM bookmarks").first<{ n: number }>())!;
    return \`\${n} bookmarks\`;
  },
});

export const explode = defineTool({
  name: "explode",
  description: "Fails, so that the server log shows where.",
  handler: () => {
    throw new Error("exploded on purpose");
  },
});

export const remember = defineTool({
  name: "remember",
  description: "Keeps a text in the caller's own state and answers the one kept before.",
  input: v.object({ text: v.string() }),
  handler: async ({ text }, ctx) => {
    const before = await ctx.user.get("last");
    await ctx.user.put("last", text);
    return \`before: \${String(before ?? "nothing")}\`;
  },
});

export default defineApp({
  info: {
    name: "fork-drill-notes",
    title: "Fork Drill Notes",
    version: "1.0.0",
    description: "Notes and bookmarks kept for a fork drill.",
  },
  discovery: discovery({ name: "io.github.fork-drill/notes" }),
  tools: [saveNote, readNote, addBookmark, explode, remember],
  userState: userState(),
  // Another local server, its URL given by npm run dev's --var (nothing listens on the fallback).
  mounts: [mountServer({ prefix: "up", url: (env: { UPSTREAM_MCP?: string }) => env.UPSTREAM_MCP ?? "http://127.0.0.1:9/mcp" })],
});
`;

/** The line of NOTES_APP that throws: a stack under \`npm run dev\` must name it. */
const EXPLODE_LINE = NOTES_APP.split("\n").findIndex((l) => l.includes('throw new Error("exploded on purpose")')) + 1;

/** The fork's bindings, added to wrangler.toml as a fork would, and its D1 migration. */
const NOTES_BINDING = `
[[kv_namespaces]]
binding = "NOTES"
id = "fork-drill-notes"

[[d1_databases]]
binding = "DB"
database_name = "fork-drill-bookmarks"
database_id = "00000000-0000-4000-8000-000000000000"

[[durable_objects.bindings]]
name = "MCP_USER"
class_name = "McpUser"

[[migrations]]
tag = "v-user-state"
new_sqlite_classes = ["McpUser"]
`;
/** The Worker entry's line that exports the Durable Object classes, and the same with userState's (docs/state.md). */
const ENTRY_CLASSES = [
  "export const { McpHub, McpSession, McpTask } = mcp;",
  "export const { McpHub, McpSession, McpTask, McpUser } = mcp;",
];
const MIGRATION = {
  file: "migrations/0001_bookmarks.sql",
  sql: "CREATE TABLE bookmarks (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL);\n",
};

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
  // No setup of its own: the template's vitest config applies migrations/ to DB.
  "test/bookmarks.test.ts": storagePageTest(),
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
  const list = (args) =>
    execFileSync("git", ["ls-files", "-z", ...args], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
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
async function callBoth(url, first, second, extra = {}) {
  const base = { ...JSON_HEADERS, ...extra };
  const modern = await fetch(url, {
    method: "POST",
    headers: { ...base, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": first.name },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...first, _meta: MODERN_META } }),
  });
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fork-drill", version: "0" } },
    }),
  });
  const session = init.headers.get("Mcp-Session-Id") ?? "";
  const inSession = { ...base, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" };
  await fetch(url, { method: "POST", headers: inSession, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  const legacy = await fetch(url, {
    method: "POST",
    headers: inSession,
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: second }),
  });
  return { modern: await bodyOf(modern), legacy: await bodyOf(legacy), session };
}

/** A JSON-RPC answer, sent as JSON or as SSE (its last message with an id). */
async function bodyOf(res) {
  const text = await res.text();
  if (!res.headers.get("Content-Type")?.includes("text/event-stream")) return JSON.parse(text);
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.includes('"id"'))
    .pop();
  return JSON.parse(data?.slice(6) ?? "{}");
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
    check(
      label,
      async () => {
        const r = await exec(cmd, args, timeoutMs);
        if (r.code !== 0 || r.timedOut)
          throw new Error(`${cmd} ${args.join(" ")} ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-3000)}`);
        return r;
      },
      timeoutMs + 5_000,
    );
  /** Serves the fork under `wrangler dev` and runs the check `label` against its URL. */
  const served = async (label, fn) => {
    /** @type {Awaited<ReturnType<typeof startWrangler>>} */
    let server;
    const started = await check(
      `wrangler dev serves the fork (${name})`,
      async () => {
        server = await startWrangler({ config: path.join(dir, "wrangler.toml") });
      },
      90_000,
    );
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
  await inScratchFork(check, "notes", async (dir, { exec, mustPass }) => {
    writeFileSync(path.join(dir, "src", "server.ts"), NOTES_APP);
    appendFileSync(path.join(dir, "wrangler.toml"), NOTES_BINDING);
    const entry = path.join(dir, "src", "index.ts");
    assert(readFileSync(entry, "utf8").includes(ENTRY_CLASSES[0]), `src/index.ts lacks the line docs/state.md tells a fork to change`);
    writeFileSync(entry, readFileSync(entry, "utf8").replace(ENTRY_CLASSES[0], ENTRY_CLASSES[1]));
    mkdirSync(path.join(dir, "migrations"));
    writeFileSync(path.join(dir, MIGRATION.file), MIGRATION.sql);
    for (const [file, text] of Object.entries(NOTES_TESTS)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    await mustPass("npm run types (the fork's NOTES binding typed in Env)", "npm", ["run", "types"], 120_000);
    await check(
      "npm test runs the fork's own test files, with its KV binding, and passes",
      async () => {
        const r = await exec("npm", ["test"], 240_000);
        if (r.code !== 0 || r.timedOut)
          throw new Error(`npm test ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-4000)}`);
        for (const file of [...Object.keys(NOTES_TESTS), "test/app-checks/app.test.ts"])
          assert(new RegExp(`✓ ${file.replace(/[./]/g, "\\$&")}`).test(r.out), `npm test did not run ${file}:\n${r.out.slice(-3000)}`);
      },
      245_000,
    );
    await check(
      "npm test runs the fork's tests when a file's formatting differs, then fails at Biome's check naming npm run format",
      async () => {
        const [file, text] = Object.entries(NOTES_TESTS)[0];
        writeFileSync(path.join(dir, file), text.replace("\n", "   \n")); // trailing spaces: a formatting difference only
        try {
          const r = await exec("npm", ["test"], 240_000);
          assert(r.code !== 0 && !r.timedOut, `npm test passed with a formatting difference:\n${r.out.slice(-3000)}`);
          assert(
            new RegExp(`✓ ${file.replace(/[./]/g, "\\$&")}`).test(r.out),
            `npm test did not run ${file} first:\n${r.out.slice(-3000)}`,
          );
          assert(r.out.includes("npm run format"), `npm test's failure does not name npm run format:\n${r.out.slice(-3000)}`);
        } finally {
          writeFileSync(path.join(dir, file), text);
        }
      },
      245_000,
    );

    await check(
      "npm run deploy -- --dry-run says it would apply the D1 migration remotely before the Worker",
      async () => {
        const r = await exec("npm", ["run", "deploy", "--", "--dry-run", "--outdir", path.join(dir, "dist")], 120_000);
        assert(
          r.code === 0 && !r.timedOut,
          `npm run deploy -- --dry-run ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-3000)}`,
        );
        assert(
          r.out.includes("wrangler d1 migrations apply DB --remote") && r.out.includes("0001_bookmarks.sql"),
          `the dry run did not name the remote migration:\n${r.out.slice(-3000)}`,
        );
        // The fork mounts http://127.0.0.1:9/mcp unless UPSTREAM_MCP is set: fine under npm run dev, refused deployed.
        assert(
          /mount "up": .*plain http.*A deployed Worker refuses it/.test(r.out),
          `the dry run did not name the mount a deployed Worker would refuse:\n${r.out.slice(-3000)}`,
        );
      },
      125_000,
    );

    await check("npm run server-json prints the fork's own registry entry (its name, title and version)", async () => {
      const r = await exec("npm", ["run", "--silent", "server-json", "--", "--url", "https://notes.example.com/mcp"], 60_000);
      assert(r.code === 0 && !r.timedOut, `npm run server-json exited with ${r.code}:\n${r.out.slice(-2000)}`);
      const doc = JSON.parse(r.out.slice(r.out.indexOf("{"), r.out.lastIndexOf("}") + 1));
      assertEqual([doc.name, doc.title, doc.version], ["io.github.fork-drill/notes", "Fork Drill Notes", "1.0.0"], "server.json identity");
      assertEqual(doc.remotes, [{ type: "streamable-http", url: "https://notes.example.com/mcp" }], "server.json remotes");
    });

    // The server the fork mounts: the engine's test app under a wrangler dev of its own.
    /** @type {{ server?: Awaited<ReturnType<typeof startWrangler>> }} */
    const upstream = {};
    await check(
      "wrangler dev serves the upstream the fork mounts (the engine test app)",
      async () => {
        upstream.server = await startWrangler({ config: "test/engine/app/wrangler.toml" });
      },
      90_000,
    );
    const upstreamVar = upstream.server ? ["--var", `UPSTREAM_MCP:${upstream.server.url}`] : [];
    try {
      await npmRunDev(check, dir, (url, log) => notesUnderDev(check, dir, url, log, upstream.server !== undefined), upstreamVar);
    } finally {
      await upstream.server?.stop();
    }
  });
}

/** The notes fork's checks under `npm run dev`: its KV, D1, stacks, ctx.user and its mount. */
async function notesUnderDev(check, dir, url, log, upstreamStarted) {
  await check("under npm run dev its tools answer on 2026-07-28 and in a 2025-11-25 session, through its KV", async () => {
    const { modern, legacy, session } = await callBoth(
      url,
      { name: "save_note", arguments: { id: "n", text: "kept in KV" } },
      { name: "read_note", arguments: { id: "n" } },
    );
    assertEqual(modern.result?.content, [{ type: "text", text: "saved n" }], "2026-07-28 save_note content");
    assert(session.length > 0, "initialize gave no Mcp-Session-Id");
    assertEqual(legacy.result?.content, [{ type: "text", text: "kept in KV" }], "2025-11-25 read_note content");
  });
  await check("npm run dev applied the D1 migration: add_bookmark writes to its table on both revisions", async () => {
    const { modern, legacy } = await callBoth(
      url,
      { name: "add_bookmark", arguments: { url: "https://a.example" } },
      { name: "add_bookmark", arguments: { url: "https://b.example" } },
    );
    assertEqual(modern.result?.content, [{ type: "text", text: "1 bookmarks" }], `2026-07-28 add_bookmark (log: ${log().slice(-1500)})`);
    assertEqual(legacy.result?.content, [{ type: "text", text: "2 bookmarks" }], "2025-11-25 add_bookmark");
  });
  await check("under npm run dev the fork serves a Server Card with its own identity, and the page on /mcp", async () => {
    const card = await (await fetch(`${url}/server-card`)).json();
    assertEqual([card.name, card.title, card.version], ["io.github.fork-drill/notes", "Fork Drill Notes", "1.0.0"], "the card's identity");
    assertEqual(card.remotes?.[0]?.url, url, "the card's remote");
    const page = await fetch(url, { headers: { Accept: "text/html" } });
    assert((await page.text()).includes("<h1>Fork Drill Notes</h1>"), `the page on /mcp (${page.status})`);
  });
  await check("under npm run dev a tool's exception is logged with a stack that names src/server.ts", async () => {
    const { modern } = await callBoth(url, { name: "explode", arguments: {} }, { name: "read_note", arguments: { id: "n" } });
    assert(modern.result?.isError === true, `explode did not fail: ${JSON.stringify(modern)}`);
    const where = `src/server.ts:${EXPLODE_LINE}:`;
    for (let waited = 0; !log().includes(where) && waited < 5_000; waited += 250) await sleep(250);
    assert(log().includes(where), `no stack frame at ${where} in the dev server's output:\n${log().slice(-3000)}`);
  });
  await check("under npm run dev ctx.user keeps a caller's state across revisions, and another caller's apart", async () => {
    const key = devTokenKey(dir);
    const as = async (sub) => ({ Authorization: `Bearer ${await mintDevToken(key, { sub })}` });
    const alice = await callBoth(
      url,
      { name: "remember", arguments: { text: "first" } },
      { name: "remember", arguments: { text: "second" } },
      await as("alice"),
    );
    assertEqual(
      alice.modern.result?.content,
      [{ type: "text", text: "before: nothing" }],
      `alice's first write (2026-07-28): ${JSON.stringify(alice.modern)}`,
    );
    assertEqual(alice.legacy.result?.content, [{ type: "text", text: "before: first" }], "alice's second, in a 2025-11-25 session");
    const bob = await callBoth(
      url,
      { name: "remember", arguments: { text: "bob's" } },
      { name: "remember", arguments: { text: "bob's again" } },
      await as("bob"),
    );
    assertEqual(bob.modern.result?.content, [{ type: "text", text: "before: nothing" }], "bob's first write sees none of alice's");
  });
  await check(
    "under npm run dev the fork's mount of a local wrangler dev (http://127.0.0.1:<port>/mcp) lists and calls its tools on both revisions",
    async () => {
      assert(upstreamStarted, "the upstream did not start");
      const listed = await bodyOf(
        await fetch(url, {
          method: "POST",
          headers: { ...JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } }),
        }),
      );
      const names = (listed.result?.tools ?? []).map((t) => t.name);
      assert(
        names.includes("up_convert_temperature") && names.includes("remember"),
        `tools/list: ${names.join(", ")}\n${log().slice(-2000)}`,
      );
      const call = { name: "up_convert_temperature", arguments: { value: 100, from: "celsius" } };
      const { modern, legacy } = await callBoth(url, call, call);
      for (const [revision, answer] of [
        ["2026-07-28", modern],
        ["2025-11-25", legacy],
      ]) {
        const text = answer.result?.content?.[0]?.text ?? "";
        assert(answer.result?.isError !== true && text.includes("212"), `${revision} up_convert_temperature: ${JSON.stringify(answer)}`);
      }
    },
  );
}

/** Whether something accepts connections on 127.0.0.1:port. */
const listening = (port) =>
  new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/**
 * Starts \`npm run dev\` in the fork on a free port, as a user would (flags after \`--\`), runs \`fn(url,
 * log)\` against it, then stops it by SIGTERM to npm's PID alone (not its group): the port must be
 * free within 10 s. Before scripts/dev.mjs, npm's \`sh -c\` died and wrangler and workerd kept it.
 */
async function npmRunDev(check, dir, fn, extraArgs = []) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const state = mkdtempSync(path.join(os.tmpdir(), "mcp-fork-drill-state-"));
  const npm = spawnGroup(
    "npm",
    [
      "run",
      "dev",
      "--",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      ...extraArgs,
    ],
    { cwd: dir },
  );
  let out = "";
  const append = (d) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  npm.stdout.on("data", append);
  npm.stderr.on("data", append);
  try {
    const up = await check(
      "npm run dev -- --port P serves the fork (its D1 migration applied first)",
      async () => {
        for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(250)) {
          assert(npm.exitCode === null, `npm run dev exited with ${npm.exitCode}:\n${out.slice(-3000)}`);
          if (await listening(port)) return;
        }
        throw new Error(`npm run dev not serving after 90 s:\n${out.slice(-3000)}`);
      },
      95_000,
    );
    if (!up) return;
    await fn(`http://127.0.0.1:${port}/mcp`, () => out);
    await check(
      "SIGTERM to npm run dev's PID stops the whole tree: the port is free within 10 s",
      async () => {
        process.kill(npm.pid, "SIGTERM");
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) if (!(await listening(port))) return;
        throw new Error(`port ${port} still served 10 s after SIGTERM to npm (pid ${npm.pid})`);
      },
      15_000,
    );
  } finally {
    await stopGroup(npm);
    rmSync(state, { recursive: true, force: true });
  }
}

async function mistakesFork(check) {
  await inScratchFork(check, "mistakes", async (dir, { exec }) => {
    writeFileSync(path.join(dir, "src", "server.ts"), MISTAKES_APP);
    const failsNaming = (label, cmd, args, timeoutMs) =>
      check(
        label,
        async () => {
          const r = await exec(cmd, args, timeoutMs);
          assert(!r.timedOut, `${cmd} ${args.join(" ")} timed out`);
          assert(r.code !== 0, `${cmd} ${args.join(" ")} passed with definition mistakes:\n${r.out.slice(-3000)}`);
          const missing = MISTAKES_SAID.filter((said) => !r.out.includes(said));
          assert(missing.length === 0, `${cmd} ${args.join(" ")} did not name: ${missing.join(" | ")}\n${r.out.slice(-3000)}`);
        },
        timeoutMs + 5_000,
      );
    await failsNaming("npm test fails, naming each definition mistake", "npm", ["test"], 240_000);
    await check(
      "npm test names them before it typechecks (the cheapest step first)",
      async () => {
        const r = await exec("npm", ["test"], 240_000);
        assert(
          r.code !== 0 && r.out.includes('Tool "note" is defined twice'),
          `npm test did not fail naming the mistakes:\n${r.out.slice(-2000)}`,
        );
        assert(!r.out.includes("typecheck (tsc"), `npm test ran the typecheck before the app check:\n${r.out.slice(-2000)}`);
      },
      245_000,
    );
    // Flags after \`--\` as a user passes them; a server that started would keep running until the timeout.
    const port = await freePort();
    await failsNaming(
      "npm run dev refuses to start, naming each mistake",
      "npm",
      ["run", "dev", "--", "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(await freePort())],
      60_000,
    );
    await failsNaming(
      "npm run deploy fails before wrangler, naming each mistake",
      "npm",
      ["run", "deploy", "--", "--dry-run", "--outdir", path.join(dir, "dist")],
      60_000,
    );
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
