/**
 * The OAuth entry's /mcp edge (src/engine/oauth/worker.ts): every path the entry serves as MCP
 * (`/mcp`, `/mcp/`, `/mcp//`, and the provider's whole `/mcp/…` API prefix) passes the Host and
 * Origin gate before the provider checks a token, and its CORS preflight is the MCP Worker's, which
 * echoes no origin it does not allow.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OAuthEnv } from "../../../src/engine/oauth/authorize";
import { createOAuthWorker } from "../../../src/engine/oauth/worker";
import scopedApp from "../app/scoped-engine-app";
import { buildModernRequest } from "../helpers/mcp";

const entry = createOAuthWorker(scopedApp);
const oauthEnv = { ...env } as unknown as OAuthEnv;
const EVIL = "https://evil.example";

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await entry.fetch(new Request(`http://localhost${path}`, init), oauthEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const PATHS = ["/mcp", "/mcp/", "/mcp//", "/mcp/x"];

describe("OAuth entry: one gate for every path served as MCP", () => {
  it("a preflight from a foreign origin is refused on each path, its origin never echoed", async () => {
    for (const path of PATHS) {
      const res = await send(path, {
        method: "OPTIONS",
        headers: { Origin: EVIL, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
      });
      expect(res.headers.get("Access-Control-Allow-Origin"), path).not.toBe(EVIL);
      expect(res.headers.get("Access-Control-Allow-Origin"), path).not.toBe("*");
      expect(res.status, path).toBe(403);
    }
  });

  it("a POST from a foreign origin, or to a Host not allowed, gets the gate's 403 before any token check", async () => {
    const { message, headers } = buildModernRequest("tools/list", {}, {});
    for (const path of PATHS) {
      for (const extra of [{ Origin: EVIL }, { Host: "rebound.example" }] as Record<string, string>[]) {
        const res = await send(path, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(message) });
        expect(res.status, `${path} ${JSON.stringify(extra)}`).toBe(403);
        expect(res.headers.get("WWW-Authenticate"), path).toBeNull();
        expect(res.headers.get("Access-Control-Allow-Origin"), path).toBeNull();
      }
    }
  });

  it("from an allowed origin, /mcp/ is /mcp: the token check's 401 with the challenge", async () => {
    const { message, headers } = buildModernRequest("tools/list", {}, {});
    for (const path of ["/mcp", "/mcp/"]) {
      const res = await send(path, { method: "POST", headers: { ...headers, Origin: "http://localhost" }, body: JSON.stringify(message) });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate"), path).toContain("Bearer");
    }
  });
});
