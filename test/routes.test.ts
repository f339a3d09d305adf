/**
 * The example Worker's routes (src/index.ts): its own route beside /mcp, the MCP endpoint through
 * the router, and a 404 for anything else. A fork that changes its routes changes this file.
 */
import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../src/server";
import { callerHeaders, whyRefused } from "./app-checks/caller";

const BASE = "http://localhost";

describe("src/index.ts routes", () => {
  it("GET /health answers without the MCP engine", async () => {
    const res = await SELF.fetch(`${BASE}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("/mcp is the MCP endpoint behind the router", async () => {
    const res = await SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      // As the caller the configured authentication admits (AUTH_MODE in .dev.vars: test/app-checks/caller.ts).
      headers: {
        ...(await callerHeaders(app, env)),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "server/discover",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });
    const body = await res.json();
    expect(res.status, whyRefused(res.status, body, env)).toBe(200);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) } });
  });

  it("any other path is a 404 that names the MCP endpoint", async () => {
    const res = await SELF.fetch(`${BASE}/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("/mcp");
  });
});
