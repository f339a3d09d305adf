/**
 * What `npm run deploy` reads of the app's authorization (scripts/check-app.mjs loads src/server.ts
 * in Node): whether it declares scopes, and whether it opted into serving them without
 * authentication (`defineAuthorization({ allowUnauthenticated: true })`). A scratch project whose
 * src/server.ts is the app under test, beside this project's engine.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { checkAppDefinitions } from "../../../scripts/check-app.mjs";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

async function authOf(server: string) {
  const root = mkdtempSync(path.join(tmpdir(), "check-app-auth-"));
  roots.push(root);
  mkdirSync(path.join(root, "src"));
  symlinkSync(path.resolve("src/engine"), path.join(root, "src", "engine"));
  symlinkSync(path.resolve("src/mcp.ts"), path.join(root, "src", "mcp.ts"));
  writeFileSync(path.join(root, "src", "server.ts"), `import { defineApp, defineAuthorization, defineTool } from "./mcp";\n${server}\n`);
  const r = await checkAppDefinitions(root);
  expect(r.loaded, r.why).toBe(true);
  return r.auth;
}

const TOOLS = `const close = defineTool({ name: "close_ticket", scopes: ["tickets:admin"], handler: () => "closed" });`;

describe("check-app: the app's authorization, as npm run deploy judges it", () => {
  it("a scoped app without the opt-out", async () => {
    expect(
      await authOf(
        `${TOOLS}\nexport default defineApp({ info: { name: "d", version: "1" }, tools: [close], authorization: defineAuthorization({}) });`,
      ),
    ).toEqual({ scoped: true, allowUnauthenticated: false });
  }, 30_000);

  it("a scoped app that sets allowUnauthenticated: true", async () => {
    expect(
      await authOf(
        `${TOOLS}\nexport default defineApp({ info: { name: "d", version: "1" }, tools: [close], authorization: defineAuthorization({ allowUnauthenticated: true } as never) });`,
      ),
    ).toEqual({ scoped: true, allowUnauthenticated: true });
  }, 30_000);

  it("an app that declares no scope", async () => {
    expect(
      await authOf(
        `export default defineApp({ info: { name: "d", version: "1" }, tools: [defineTool({ name: "t", handler: () => "x" })] });`,
      ),
    ).toEqual({ scoped: false, allowUnauthenticated: false });
  }, 30_000);
});
