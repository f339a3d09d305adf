/**
 * `npm run token -- --sub alice --scope "..."` (scripts/token.mjs) prints a token that the engine
 * accepts under `npm run dev` as the caller `mcp-dev#alice` with those scopes and claims: signed with
 * the project's dev key (.wrangler/dev-token-key, made on first use and kept), the one scripts/dev.mjs
 * hands wrangler dev as MCP_DEV_TOKEN_KEY.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { devTokens } from "../../../src/engine/http/dev-tokens";

// vitest runs from the project root.
const SCRIPT = path.resolve("scripts/token.mjs");
const project = mkdtempSync(path.join(tmpdir(), "dev-token-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const token = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: project, encoding: "utf8" });

describe("npm run token", () => {
  it("mints a token the engine's dev check accepts as mcp-dev#<sub>, with its scopes and claims", async () => {
    const r = token("--sub", "alice", "--scope", "tickets:read  tickets:write", "--claim", "email=alice@example.test");
    expect(r.status, r.stderr).toBe(0);
    const key = readFileSync(path.join(project, ".wrangler", "dev-token-key"), "utf8").trim();
    const who = await devTokens(key, undefined, [])(r.stdout.trim(), "http://localhost:8787/mcp");
    expect(who).toMatchObject({ id: "mcp-dev#alice", scopes: ["tickets:read", "tickets:write"], claims: { email: "alice@example.test" } });
  });

  it("keeps one key: a second token is signed with the same one", async () => {
    const key = readFileSync(path.join(project, ".wrangler", "dev-token-key"), "utf8").trim();
    const r = token("--sub", "bob");
    expect((await devTokens(key, undefined, [])(r.stdout.trim(), "")).id).toBe("mcp-dev#bob");
    await expect(devTokens("another key", undefined, [])(r.stdout.trim(), "")).rejects.toThrow(/not valid/);
  });

  it("says how to use it when --sub is missing", () => {
    const r = token("--scope", "x");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--sub <user>");
  });
});
