/**
 * The checks `npm test` runs on whatever app src/server.ts defines, so a fork gets them without
 * writing them: its definitions have no mistakes, its Worker (src/index.ts, with the bindings of
 * wrangler.toml) serves it on both revisions, and every view its tools name has its HTML among the
 * Static Assets. It only lists and reads; it calls none of the app's tools.
 * Part of the template: a fork keeps this folder as it is.
 */
import { SELF, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/server";
import { checkApp } from "../../src/engine/mcp/check-app";
import { callerHeaders, whyRefused } from "./caller";

const URL = "http://localhost/mcp";
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** The lists the app has something in, each with the key its result holds. */
const LISTS: [method: string, key: string, has: boolean][] = [
  ["tools/list", "tools", (app.tools?.length ?? 0) > 0],
  ["resources/list", "resources", (app.resources?.length ?? 0) > 0],
  ["resources/templates/list", "resourceTemplates", (app.resourceTemplates?.length ?? 0) > 0],
  ["prompts/list", "prompts", (app.prompts?.length ?? 0) > 0],
];
const served = LISTS.filter(([, , has]) => has);

// The caller the configured authentication admits (AUTH_MODE in .dev.vars or wrangler.toml: ./caller.ts).
let caller: Record<string, string> = {};
beforeAll(async () => {
  caller = await callerHeaders(app, env);
});

async function post(headers: Record<string, string>, message: Record<string, unknown>) {
  const res = await SELF.fetch(URL, { method: "POST", headers: { ...JSON_HEADERS, ...caller, ...headers }, body: JSON.stringify(message) });
  const text = await res.text();
  let body: Record<string, any> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, any>) : undefined;
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body, why: () => whyRefused(res.status, body, env) };
}

/** The `ui://` views the app's tools name (MCP Apps); each one's HTML must be among the Static Assets. */
const views = [...new Set((app.tools ?? []).flatMap((t: { view?: { uri: string } }) => (t.view ? [t.view.uri] : [])))];
const UI_HOST = {
  ...MODERN_META,
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
  },
};

describe("src/server.ts", () => {
  it("has no definition mistakes (names, URI templates, schemas)", () => {
    expect(checkApp(app), "fix these in src/server.ts").toEqual([]);
  });

  it("is served on 2026-07-28: discover and every list it has", async () => {
    const discover = await post(
      { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" },
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: MODERN_META } },
    );
    expect(discover.status, discover.why()).toBe(200);
    expect(discover.body?.result?.supportedVersions).toContain("2026-07-28");
    for (const [method, key] of served) {
      const r = await post(
        { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method },
        { jsonrpc: "2.0", id: 2, method, params: { _meta: MODERN_META } },
      );
      expect(r.status, `${method}: ${r.why()}`).toBe(200);
      expect(r.body?.result?.[key]?.length, `${method} lists nothing`).toBeGreaterThan(0);
    }
  });

  it.skipIf(views.length === 0)("serves the HTML of every view its tools name (a file under assets/)", async () => {
    for (const uri of views) {
      const r = await post(
        { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": uri },
        { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri, _meta: UI_HOST } },
      );
      expect(r.body?.error, `${uri}: ${r.why()}`).toBeUndefined();
      expect(r.body?.result?.contents?.[0]?.text?.length, `${uri} has no HTML`).toBeGreaterThan(0);
    }
  });

  it("is served in a 2025-11-25 session: initialize, every list it has, DELETE", async () => {
    const init = await post(
      {},
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "app-check", version: "0" } },
      },
    );
    expect(init.status, init.why()).toBe(200);
    expect(init.body?.result?.serverInfo?.name).toBe(app.info.name);
    const session = init.headers.get("Mcp-Session-Id");
    expect(session, "initialize gave no Mcp-Session-Id").toBeTruthy();
    const inSession = { "Mcp-Session-Id": session!, "MCP-Protocol-Version": "2025-11-25" };
    expect((await post(inSession, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    for (const [method, key] of served) {
      const r = await post(inSession, { jsonrpc: "2.0", id: 2, method, params: {} });
      expect(r.status, `${method}: ${r.why()}`).toBe(200);
      expect(r.body?.result?.[key]?.length, `${method} lists nothing`).toBeGreaterThan(0);
    }
    const closed = await SELF.fetch(URL, { method: "DELETE", headers: { ...caller, ...inSession } });
    expect(closed.status).toBe(200);
    await closed.arrayBuffer();
  });
});
