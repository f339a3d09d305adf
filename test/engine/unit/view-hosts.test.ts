/**
 * The app check's view warnings (src/engine/mcp/view-hosts.ts): a view whose CSP names something
 * other than an origin, whose permissions are not `{}`, whose `domain` is not Claude's form, or
 * whose ChatGPT domain is not an https origin is named with the host it would not render in; a
 * view written as the hosts document passes. `chatgptDomain` puts ChatGPT's own keys on the view.
 */
import { describe, expect, it } from "vitest";
import { checkAppWarnings } from "../../../src/engine/mcp/check-app";
import { defineApp, defineTool } from "../../../src/engine/mcp/app";
import { defineView, type ViewOptions } from "../../../src/engine/mcp/ext/apps";
import { claudeViewDomain, viewMetaWarnings } from "../../../src/engine/mcp/view-hosts";

const CLAUDE = "c3d80a4ed901ee05b21755a88273b4a4.claudemcpcontent.com";
const appWith = (view: Partial<ViewOptions>) =>
  defineApp({
    info: { name: "views", version: "1.0.0" },
    tools: [
      defineTool({
        name: "show",
        title: "Show",
        annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
        view: defineView({ uri: "ui://v/show.html", name: "show", asset: "/views/show.html", ...view }),
        handler: () => "ok",
      }),
    ],
  });

describe("views in every host", () => {
  it("a view written as the hosts document draws no warning", () => {
    const view = {
      csp: { connectDomains: ["https://api.example.com", "wss://live.example.com"], resourceDomains: ["https://*.cdn.example.com"] },
      permissions: { clipboardWrite: {} },
      domain: CLAUDE,
      chatgptDomain: "https://views.example.com",
    };
    expect(checkAppWarnings(appWith(view))).toEqual([]);
  });

  it("names each thing a host would not render, and the host", () => {
    const warnings = checkAppWarnings(
      appWith({
        csp: { connectDomains: ["api.example.com", "https://api.example.com/v1"] },
        permissions: { camera: true as never },
        domain: "https://views.example.com",
        chatgptDomain: "views.example.com",
      }),
    );
    expect(warnings).toHaveLength(5);
    expect(warnings[0]).toMatch(/^View ui:\/\/v\/show\.html \(tool "show"\): csp\.connectDomains "api\.example\.com" is not an origin/);
    expect(warnings[1]).toMatch(/"https:\/\/api\.example\.com\/v1" is not an origin/);
    expect(warnings[2]).toMatch(/permissions\.camera must be \{\}/);
    expect(warnings[3]).toMatch(/Claude refuses the view \("Invalid ui\.domain format"\)/);
    expect(warnings[4]).toMatch(/chatgptDomain "views\.example\.com" is not an https origin: ChatGPT/);
  });

  it("a served view's _meta is judged by the same rules (what the doctor reads from a deployed server)", () => {
    const served = {
      ui: { csp: { connectDomains: ["api.example.com"] }, domain: "views.example.com" },
      "openai/widgetDomain": "https://v.example.com",
    };
    const warnings = viewMetaWarnings(served, "view ui://v/show.html");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^view ui:\/\/v\/show\.html: csp\.connectDomains "api\.example\.com" is not an origin/);
    expect(warnings[1]).toMatch(/domain "views\.example\.com" is not Claude's form/);
    expect(viewMetaWarnings({ ui: { csp: { connectDomains: ["https://api.example.com"] } } }, "view")).toEqual([]);
  });

  it("Claude's domain is the SHA-256 of the server's URL, as its docs compute it", async () => {
    expect(await claudeViewDomain("https://example.com/mcp")).toBe(CLAUDE);
  });

  it("chatgptDomain gives the view ChatGPT's own keys, the CSP under its names", () => {
    const view = defineView({
      uri: "ui://v/show.html",
      name: "show",
      asset: "/views/show.html",
      csp: { connectDomains: ["https://api.example.com"] },
      chatgptDomain: "https://views.example.com",
    });
    expect(view.resource._meta).toEqual({
      ui: { csp: { connectDomains: ["https://api.example.com"] } },
      "openai/widgetDomain": "https://views.example.com",
      "openai/widgetCSP": { connect_domains: ["https://api.example.com"], resource_domains: [] },
    });
    expect(defineView({ uri: "ui://v/a.html", name: "a", asset: "/a.html" }).resource._meta).toBeUndefined();
  });
});
