/**
 * The app checks run with whatever authentication the developer turned on in .dev.vars (which
 * `npm test` loads): ./caller.ts calls as the caller that setting admits, and a refusal names the
 * setting. Shown on the Worker itself (src/index.ts) under each AUTH_MODE.
 * Part of the template: a fork keeps this folder as it is.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import app from "../../src/server";
import { callerHeaders, devTokenHeaders, whyRefused } from "./caller";

const DISCOVER = {
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
};

async function discover(vars: Record<string, string>, headers: Record<string, string>) {
  const ctx = createExecutionContext();
  const req = new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "server/discover",
      ...headers,
    },
    body: JSON.stringify(DISCOVER),
  });
  const res = await worker.fetch(req, { ...env, ...vars } as never, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json() };
}

describe("the app checks under the authentication .dev.vars turns on", () => {
  it.each([
    [
      "AUTH_MODE=jwt",
      { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp.example.test", AUTH_JWKS_URL: "https://idp.example.test/jwks", AUTH_SCOPES: "mcp:use" },
    ],
    ["AUTH_MODE=token", { AUTH_MODE: "token", MCP_AUTH_TOKEN: "a-static-token" }],
    ["AUTH_MODE=none", { AUTH_MODE: "none" }],
  ])("%s: they call as the caller it admits, and are served", async (_, vars) => {
    const all = { ...env, ...vars };
    const r = await discover(vars, await callerHeaders(app, all));
    expect(r.status, whyRefused(r.status, r.body, all)).toBe(200);
  });

  it("a refusal names the setting that changed the outcome", async () => {
    const vars = { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp.example.test", AUTH_JWKS_URL: "https://idp.example.test/jwks" };
    const r = await discover(vars, {});
    expect(r.status).toBe(401);
    expect(whyRefused(r.status, r.body, vars)).toMatch(
      /^401 with AUTH_MODE=jwt \(from \.dev\.vars or wrangler\.toml \[vars\], which npm test loads\)/,
    );
  });
});

describe("devTokenHeaders, for your own SELF.fetch tests", () => {
  it("mints a dev token the Worker accepts under npm test, and one signed with another key is refused", async () => {
    const good = await devTokenHeaders(env as never, { sub: "alice", scopes: ["notes:read"] });
    expect((await discover({}, good)).status).toBe(200);
    const forged = await devTokenHeaders({ MCP_DEV_TOKEN_KEY: "another-key" }, { sub: "alice" });
    expect((await discover({}, forged)).status).toBe(401);
  });
});
