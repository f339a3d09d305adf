// Why: the client blocks (docs/connect.md, linked from the README's "Connect a client") are what a
// new user copies first. This runs them as written against a real `wrangler dev` of the engine test
// app: each block is found in README.md or a docs/*.md page by the `<!-- e2e: NAME -->` comment in
// front of it (each name once across the pages), its
// http://localhost:8787/mcp is replaced by the test server's URL, and it runs with the
// real tool (curl, the Inspector CLI and web UI, mcp-remote over stdio, the two official
// TypeScript clients). If a block changes, this runs the new text; if one disappears,
// its check fails. It also holds the npm script contract: every script that starts
// wrangler takes wrangler's own flags after `--`, and default ports live in the wrangler
// config files ([dev] port), so `npm run dev -- --port P` serves on P.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { CHILD_ENV, ROOT, atExit, sleep, spawnGroup, stopGroup } from "../../../scripts/lib/procs.mjs";
import { freePort, withEngineApp } from "./server.mjs";
import { docFiles } from "../../../scripts/checks/readme-blocks.mjs";

/** The URL every README block uses; the test swaps in its own server's. */
export const LOCAL_URL = "http://localhost:8787/mcp";
/** What the engine test app (test/engine/app/app.ts) lists, sorted. */
const ENGINE_TOOLS = ["announce", "chatter", "convert_temperature", "countdown", "greet", "prepare_report", "quick_task", "roll_dice"];
const ENGINE_NAME = "engine-test-app";
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** The text of README.md and every docs/*.md page, with each page's name. */
function docPages(root = ROOT) {
  return docFiles(root).map((file) => ({ file, text: readFileSync(path.join(root, file), "utf8") }));
}

/** The blocks marked `<!-- e2e: NAME -->` in README.md and docs/*.md: name → { lang, code, file }. */
export function readmeBlocks(root = ROOT) {
  const blocks = new Map();
  for (const { file, text } of docPages(root)) {
    for (const m of text.matchAll(/<!-- e2e: ([\w-]+) -->\s*\n[ \t]*```(\w*)[^\n]*\n([\s\S]*?)\n[ \t]*```/g)) {
      assert(!blocks.has(m[1]), `${file} marks block "${m[1]}", which ${blocks.get(m[1])?.file} marks too`);
      blocks.set(m[1], { lang: m[2], code: m[3], file });
    }
  }
  return blocks;
}

/** The block's text pointed at `url`; it must use the documented local URL and nothing else on 8787. */
function localize(block, url) {
  assert(block.code.includes(LOCAL_URL), `block does not use ${LOCAL_URL}`);
  const code = block.code.replaceAll(LOCAL_URL, url);
  assert(!code.includes(":8787"), "block names port 8787 other than in the /mcp URL");
  return code;
}

/** JSON-RPC messages in curl output: plain JSON lines, or the data: lines of an SSE answer. */
function messagesIn(out) {
  const msgs = [];
  for (const line of out.split("\n")) {
    const t = line.startsWith("data:") ? line.slice(5).trim() : line.trim();
    if (t.startsWith("{")) msgs.push(JSON.parse(t));
  }
  return msgs;
}

const toolNames = (result) => result.tools.map((t) => t.name).sort();

/** Runs a shell block the way a user pastes it, but stopping at the first failing command. */
async function bash(code, env = {}, timeoutMs = 30_000) {
  const r = await capture("bash", ["-c", `set -eo pipefail\n${code}`], env, timeoutMs);
  assert(r.code === 0, `bash exited with ${r.code}: ${r.err.slice(-1000)}`);
  return r.out;
}

/** Like procs.run, but with stdout and stderr apart and extra environment. */
function capture(cmd, args, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...CHILD_ENV, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => {
      err += `\n(timed out after ${timeoutMs} ms)`;
      stopGroup(child, 1000);
    }, timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      resolve({ code: 127, out, err: `${err}\n${e.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, out, err });
    });
  });
}

/** A temp dir removed at the end (the Inspector and mcp-remote write their settings under it). */
function tempHome(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(remove);
  return { dir, done: () => (remove(), unhook()) };
}

/** POSTs one 2026-07-28 request with the headers the README documents. */
async function modernPost(url, method, params = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, body: await res.json() };
}

// ---------------------------------------------------------------- README blocks

async function curlChecks(url, blocks, check) {
  await check("curl 2026-07-28: server/discover and tools/list", async () => {
    const msgs = messagesIn(await bash(localize(blocks.get("curl-2026"), url)));
    assertEqual(msgs.length, 2, "answers");
    const [discover, list] = msgs;
    assert(discover.result, `server/discover failed: ${JSON.stringify(discover)}`);
    assert(discover.result.supportedVersions.includes(MODERN), `supportedVersions: ${discover.result.supportedVersions}`);
    assertEqual(discover.result._meta?.[SERVER_INFO]?.name, ENGINE_NAME, "server name");
    assertEqual(list.result?.resultType, "complete", "tools/list resultType");
    assertEqual(toolNames(list.result), ENGINE_TOOLS, "tool names");
  });

  await check("curl 2026-07-28: tools/call with Mcp-Name (your_tool = roll_dice)", async () => {
    const block = blocks.get("curl-2026-call");
    assert(block.code.includes("your_tool"), "the block has no your_tool placeholder");
    // roll_dice takes no required arguments, so the block's `{}` stays as written.
    const msgs = messagesIn(await bash(localize(block, url).replaceAll("your_tool", "roll_dice")));
    const answer = msgs.find((m) => m.id === 3);
    assert(answer?.result, `tools/call failed: ${JSON.stringify(msgs)}`);
    assertEqual(answer.result.resultType, "complete", "resultType");
    const text = answer.result.content.map((c) => c.text).join("");
    assert(/^Rolled 1d6: [1-6] \(total [1-6]\)$/.test(text), `text: ${JSON.stringify(text)}`);
  });

  await check("curl 2025-11-25: initialize, initialized, tools/list, DELETE ends the session", async () => {
    const out = (await bash(localize(blocks.get("curl-2025"), url))).trim().split("\n");
    // One line each: initialize result, the session line, tools/list result, DELETE status.
    // notifications/initialized prints nothing (202, empty body).
    assertEqual(out.length, 4, `output lines (${JSON.stringify(out)})`);
    const init = JSON.parse(out[0]);
    assertEqual(init.result?.protocolVersion, LEGACY, "negotiated version");
    assertEqual(init.result?.serverInfo?.name, ENGINE_NAME, "server name");
    const session = /^session: (\S+)$/.exec(out[1])?.[1];
    assert(session, `no session id printed: ${out[1]}`);
    const list = JSON.parse(out[2]);
    assertEqual(toolNames(list.result), ENGINE_TOOLS, "tool names");
    assert(/^2\d\d$/.test(out[3]), `DELETE status ${out[3]}`);
    const after = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": session,
        "MCP-Protocol-Version": LEGACY,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    assertEqual(after.status, 404, "status of the deleted session");
  });
}

async function inspectorCliChecks(
  url,
  blocks,
  check,
  name = "inspector-cli",
  pairs = ["legacy initialize", "legacy tools/list", "modern initialize", "modern tools/list"],
) {
  const lines = localize(blocks.get(name), url)
    .split("\n")
    .filter((l) => l.trim() && !l.trim().startsWith("#"));
  const seen = new Set();
  for (const line of lines) {
    const era = /--protocol-era (\w+)/.exec(line)?.[1];
    const method = /--method (\S+)/.exec(line)?.[1];
    seen.add(`${era} ${method}`);
    await check(
      `Inspector CLI 2.12.0 (${name}): --protocol-era ${era} --method ${method}`,
      async () => {
        const home = tempHome("mcp-e2e-inspector-");
        try {
          const out = await bash(line, { HOME: home.dir });
          const result = JSON.parse(out);
          if (method === "initialize") {
            assertEqual(result.protocolVersion, era === "modern" ? MODERN : LEGACY, "negotiated version");
            assertEqual(result.serverInfo?.name, ENGINE_NAME, "server name");
          } else {
            assertEqual(method, "tools/list", "method the test knows");
            assertEqual(toolNames(result), ENGINE_TOOLS, "tool names");
          }
        } finally {
          home.done();
        }
      },
      60_000,
    );
  }
  await check(`Inspector CLI block ${name} covers ${pairs.join(", ")}`, async () => {
    assertEqual([...seen].sort(), pairs, "era/method pairs");
  });
}

async function inspectorUiCheck(url, blocks, check) {
  await check(
    "Inspector web UI 2.12.0: starts on 127.0.0.1, preset to the server and era",
    async () => {
      const line = localize(blocks.get("inspector-ui"), url).trim();
      const era = /--protocol-era (\w+)/.exec(line)?.[1];
      const home = tempHome("mcp-e2e-inspector-ui-");
      const port = await freePort();
      // Its own ports: a free one for the page, OS-assigned for the sandboxes; no browser.
      const env = {
        HOME: home.dir,
        CLIENT_PORT: String(port),
        MCP_SANDBOX_PORT: "0",
        MCP_APP_ORIGIN_PORT: "0",
        MCP_AUTO_OPEN_ENABLED: "false",
      };
      const child = spawn("bash", ["-c", line], {
        cwd: ROOT,
        env: { ...CHILD_ENV, ...env },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      try {
        let token;
        for (let i = 0; i < 120 && !token; i++) {
          assert(child.exitCode === null, `exited with ${child.exitCode}: ${out.slice(-1000)}`);
          token = /Auth token: ([0-9a-f]+)/.exec(out)?.[1];
          if (!token) await sleep(250);
        }
        assert(token, `no start-up line: ${out.slice(-1000)}`);
        const page = await fetch(`http://127.0.0.1:${port}/`);
        assertEqual(page.status, 200, "page status");
        // The preset server as the UI will show it (the Inspector's server-list API, token-gated).
        const res = await fetch(`http://127.0.0.1:${port}/api/servers`, { headers: { "x-mcp-remote-auth": `Bearer ${token}` } });
        const servers = Object.values((await res.json()).mcpServers ?? {});
        assertEqual(servers.length, 1, "preset servers");
        assertEqual(servers[0].url, url, "preset URL");
        assertEqual(servers[0].protocolEra, era, "preset era");
      } finally {
        await stopGroup(child);
        home.done();
      }
    },
    40_000,
  );
}

async function mcpRemoteChecks(url, blocks, check) {
  const config = JSON.parse(localize(blocks.get("claude-desktop"), url));
  const [name, server] = Object.entries(config.mcpServers ?? {})[0] ?? [];
  const drive = async (extraArgs) => {
    assert(server?.command && Array.isArray(server.args), `mcpServers.${name} has no command/args`);
    const home = tempHome("mcp-e2e-mcp-remote-");
    const child = spawn(server.command, [...server.args, ...extraArgs], {
      cwd: ROOT,
      env: { ...CHILD_ENV, MCP_REMOTE_CONFIG_DIR: home.dir },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let buf = "";
    let err = "";
    const waiting = new Map();
    child.stdout.on("data", (d) => {
      buf += d;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        const msg = JSON.parse(line);
        waiting.get(msg.id)?.(msg);
      }
    });
    child.stderr.on("data", (d) => (err += d));
    const send = (msg) => {
      child.stdin.write(`${JSON.stringify(msg)}\n`);
      return msg.id === undefined ? undefined : new Promise((r) => waiting.set(msg.id, r));
    };
    try {
      const init = await send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "e2e", version: "0.0.1" } },
      });
      assertEqual(init.result?.serverInfo?.name, ENGINE_NAME, `server name (stderr: ${err.slice(-500)})`);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const list = await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
      assertEqual(toolNames(list.result), ENGINE_TOOLS, "tool names");
      return list.result;
    } finally {
      await stopGroup(child);
      home.done();
    }
  };
  await check(
    "Claude Desktop config: mcp-remote 0.15.1 as written (2025-11-25 session)",
    async () => {
      const result = await drive([]);
      // Only 2026-07-28 answers carry the server's identity in _meta.
      assert(!result._meta?.[SERVER_INFO], "answered on the 2026-07-28 lane");
    },
    40_000,
  );
  await check(
    'Claude Desktop config + "--protocol", "auto": mcp-remote speaks 2026-07-28',
    async () => {
      const result = await drive(["--protocol", "auto"]);
      assertEqual(result._meta?.[SERVER_INFO]?.name, ENGINE_NAME, "2026-07-28 serverInfo in _meta");
    },
    40_000,
  );
}

async function editorConfigCheck(url, blocks, check) {
  await check("Cursor and VS Code config files: valid JSON, the local URL over HTTP", async () => {
    const cursor = Object.values(JSON.parse(blocks.get("cursor").code).mcpServers);
    assertEqual(
      cursor.map((s) => s.url),
      [LOCAL_URL],
      "Cursor servers",
    );
    const vscode = Object.values(JSON.parse(blocks.get("vscode").code).servers);
    assertEqual(
      vscode.map((s) => [s.type, s.url]),
      [["http", LOCAL_URL]],
      "VS Code servers",
    );
  });
}

async function tsClientChecks(url, blocks, check) {
  // The scripts run from the project folder, so their imports resolve to its node_modules.
  const node = (code) => capture("node", ["--input-type=module", "-e", code], {}, 60_000);
  await check(
    "@modelcontextprotocol/client 2.4.0: auto, pin 2026-07-28, legacy",
    async () => {
      const r = await node(localize(blocks.get("client-v2"), url));
      assert(r.code === 0, `exit ${r.code}: ${r.err.slice(-1000)}`);
      const lines = r.out.trim().split("\n");
      const tools = ENGINE_TOOLS.join(" ");
      const got = lines.map((l) => l.split(" ")).map(([v, ...names]) => `${v} ${names.sort().join(" ")}`);
      assertEqual(got, [`${MODERN} ${tools}`, `${MODERN} ${tools}`, `${LEGACY} ${tools}`], "version and tools per mode");
    },
    60_000,
  );
  await check(
    "@modelcontextprotocol/sdk 1.32.2: a 2025-11-25 session",
    async () => {
      const r = await node(localize(blocks.get("sdk-v1"), url));
      assert(r.code === 0, `exit ${r.code}: ${r.err.slice(-1000)}`);
      const [v, ...names] = r.out.trim().split(" ");
      assertEqual(`${v} ${names.sort().join(" ")}`, `${LEGACY} ${ENGINE_TOOLS.join(" ")}`, "version and tools");
    },
    60_000,
  );
}

/** Every block the README promises; a missing one fails here rather than going untested. */
const BLOCKS = [
  "readme-inspector",
  "claude-desktop",
  "cursor",
  "vscode",
  "inspector-ui",
  "inspector-cli",
  "client-v2",
  "sdk-v1",
  "curl-2026",
  "curl-2026-call",
  "curl-2025",
];

export async function runReadmeSnippets(url, { check }) {
  let blocks;
  const ok = await check("README.md and docs/*.md have every marked block", async () => {
    blocks = readmeBlocks();
    const missing = BLOCKS.filter((b) => !blocks.has(b));
    assertEqual(missing, [], "missing blocks");
    const extra = [...blocks.keys()].filter((b) => !BLOCKS.includes(b));
    assertEqual(extra, [], "marked blocks this test does not run");
  });
  if (!ok) return;
  await check("README.md and docs/*.md name the versions package.json installs", async () => {
    // npx runs the installed copy only when the versions agree; otherwise it would fetch another.
    const text = docPages()
      .map((p) => p.text)
      .join("\n");
    const dev = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).devDependencies;
    const named = (re) => [...new Set([...text.matchAll(re)].map((m) => m[1]))];
    assertEqual(named(/mcp-remote@([\w.-]+)/g), [dev["mcp-remote"]], "mcp-remote");
    assertEqual(named(/@modelcontextprotocol\/inspector@([\w.-]+)/g), [dev["@modelcontextprotocol/inspector"]], "Inspector");
    assertEqual(named(/`@modelcontextprotocol\/client` (\d[\w.-]*)/g), [dev["@modelcontextprotocol/client"]], "client");
    assertEqual(named(/`@modelcontextprotocol\/sdk` (\d[\w.-]*)/g), [dev["@modelcontextprotocol/sdk"]], "sdk");
  });
  await curlChecks(url, blocks, check);
  await tsClientChecks(url, blocks, check);
  await inspectorCliChecks(url, blocks, check);
  await inspectorCliChecks(url, blocks, check, "readme-inspector", ["legacy tools/list", "modern tools/list"]);
  await inspectorUiCheck(url, blocks, check);
  await mcpRemoteChecks(url, blocks, check);
  await editorConfigCheck(url, blocks, check);
}

// ---------------------------------------------------------------- npm script contract

/** `[dev]` port of a wrangler config file (a flat key = value table). */
function devPort(configFile) {
  const text = readFileSync(path.join(ROOT, configFile), "utf8");
  const table = /^\[dev\]\s*\n((?:(?!\[).*\n?)*)/m.exec(text)?.[1] ?? "";
  return Number(/^port\s*=\s*(\d+)/m.exec(table)?.[1]);
}

/**
 * `npm run SCRIPT -- <wrangler flags>` must serve on the port given. Everything that could
 * clash with another wrangler on the machine (inspector port, state dir) is passed the
 * same way, which is what the contract promises a user.
 */
async function scriptServesOnPort(script, { check }, expectTool) {
  await check(
    `npm run ${script} -- --port P --ip 127.0.0.1 answers on P`,
    async () => {
      const [port, inspectorPort] = [await freePort(), await freePort()];
      const state = tempHome("mcp-e2e-script-");
      const child = spawnGroup("npm", [
        "run",
        script,
        "--",
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
        "--inspector-ip",
        "127.0.0.1",
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        state.dir,
        "--show-interactive-dev-session=false",
      ]);
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      try {
        const url = `http://127.0.0.1:${port}/mcp`;
        let answer;
        for (let i = 0; i < 240 && !answer; i++) {
          assert(child.exitCode === null, `npm run ${script} exited with ${child.exitCode}: ${out.slice(-1500)}`);
          answer = await modernPost(url, "server/discover").catch(() => undefined);
          if (!answer) await sleep(250);
        }
        assert(answer, `nothing answered on ${port}: ${out.slice(-1500)}`);
        assertEqual(answer.status, 200, "server/discover status");
        assert(answer.body.result?.supportedVersions?.includes(MODERN), `server/discover: ${JSON.stringify(answer.body)}`);
        if (expectTool) {
          const list = await modernPost(url, "tools/list");
          assert(
            list.body.result?.tools?.some((t) => t.name === expectTool),
            `${script} does not serve ${expectTool}`,
          );
        }
      } finally {
        await stopGroup(child);
        state.done();
      }
    },
    90_000,
  );
}

export async function runScriptContract({ check }) {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
  await check("wrangler scripts fix no port or ip; defaults are [dev] 8787 (dev, dev:oauth) and 8788 (dev:conformance)", async () => {
    const fixed = Object.entries(pkg.scripts).filter(([, s]) => /\bwrangler dev\b|scripts\/dev\.mjs/.test(s) && /--(port|ip)\b/.test(s));
    assertEqual(
      fixed.map(([n]) => n),
      [],
      "scripts that fix --port/--ip",
    );
    assertEqual(devPort("wrangler.toml"), 8787, "wrangler.toml [dev] port");
    assertEqual(devPort("wrangler.oauth.toml"), 8787, "wrangler.oauth.toml [dev] port");
    assertEqual(devPort("test/engine/conformance/wrangler.toml"), 8788, "test/engine/conformance/wrangler.toml [dev] port");
  });
  // The dev scripts create .dev.vars where it is missing; the test leaves none it made.
  const made = ["", "test/engine/conformance"].map((d) => path.join(ROOT, d, ".dev.vars")).filter((f) => !existsSync(f));
  try {
    await scriptServesOnPort("dev", { check });
    await scriptServesOnPort("dev:conformance", { check }, "test_simple_text");
  } finally {
    for (const f of made) rmSync(f, { force: true });
  }
}

/** The whole step: README blocks against the engine test app, then the script contract. */
export async function runConnect() {
  const checks = createChecks("connect");
  const started = await withEngineApp(async (url) => {
    await runReadmeSnippets(url, checks);
    return { passed: 0, failed: 0 };
  });
  if (started.failed) return started;
  await runScriptContract(checks);
  const { passed, failed } = checks.counts();
  return { passed, failed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runConnect();
  console.log(`\nconnect: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
