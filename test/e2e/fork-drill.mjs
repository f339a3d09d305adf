// Why: the template's main use is a fork that replaces the example app. This drill does exactly
// that in a scratch copy of the project: src/server.ts becomes a one-tool app that imports only
// ./mcp and valibot, test/server.test.ts is deleted, and the copy must typecheck, pass the layering
// / README / types checks and the vitest suite, and serve its tool on both revisions under
// `wrangler dev`. A failure here means a fork would break at its first step.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT, atExit, run } from "./procs.mjs";
import { startWrangler } from "./server.mjs";

const ONE_TOOL_APP = `import * as v from "valibot";
import { defineApp, defineTool } from "./mcp";

export default defineApp({
  info: { name: "fork-drill", version: "1.0.0" },
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      input: v.object({ a: v.number(), b: v.number() }),
      handler: ({ a, b }) => String(a + b),
    }),
  ],
});
`;

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
}

async function callAdd(url) {
  const modern = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 }, _meta: MODERN_META } }),
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
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } }),
  });
  return { modern: await modern.json(), legacy: await legacy.json(), session };
}

export async function runForkDrill() {
  const { check, counts } = createChecks("fork drill");
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-fork-drill-"));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  try {
    copyProject(dir);
    writeFileSync(path.join(dir, "src", "server.ts"), ONE_TOOL_APP);
    rmSync(path.join(dir, "test", "server.test.ts"), { force: true });
    console.log(`  scratch fork at ${dir}`);

    const step = async (name, cmd, args, timeoutMs) =>
      check(name, async () => {
        const r = await run(cmd, args, { cwd: dir, timeoutMs, capture: true });
        if (r.code !== 0 || r.timedOut) throw new Error(`${cmd} ${args.join(" ")} ${r.timedOut ? "timed out" : `exited with ${r.code}`}:\n${r.out.slice(-3000)}`);
      }, timeoutMs + 5_000);
    await step("typecheck (tsc --noEmit)", "tsc", ["--noEmit"], 180_000);
    await step("layering, README snippets, fresh types", "node", ["scripts/checks/index.mjs"], 180_000);
    await step("vitest run (the engine's tests, without the example's)", "vitest", ["run"], 600_000);

    let server;
    const started = await check("wrangler dev serves the fork's app", async () => {
      server = await startWrangler({ config: path.join(dir, "wrangler.toml") });
    }, 90_000);
    if (started) {
      try {
        await check("its tool answers on 2026-07-28 and in a 2025-11-25 session", async () => {
          const { modern, legacy, session } = await callAdd(server.url);
          assertEqual(modern.result?.content, [{ type: "text", text: "5" }], "2026-07-28 tools/call content");
          assert(session.length > 0, "initialize gave no Mcp-Session-Id");
          assertEqual(legacy.result?.content, [{ type: "text", text: "5" }], "2025-11-25 tools/call content");
        });
      } finally {
        await server.stop();
      }
    }
  } catch (err) {
    await check("prepare the scratch fork", async () => {
      throw err;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unhook();
  }
  return counts();
}
