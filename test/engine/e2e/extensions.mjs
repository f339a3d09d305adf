// Why: a view (MCP Apps) only works if a real browser host can load the HTML the Worker serves and
// talk to it. This serves the example app (wrangler.toml, its view a Static Asset) under `wrangler dev`
// and checks, on both revisions, that a host declaring the extension sees `_meta.ui` and reads the
// `ui://` resource as text/html;profile=mcp-app while a host without it gets the text-only tool; then
// Chromium plays the host: the view's HTML, read through /mcp, runs in a sandboxed frame of a test
// page that answers ui/initialize, sends the tool's input and result, and forwards the view's own
// tools/call to the Worker. Skips the browser part (loudly) when Chromium is missing.
//
//   node test/engine/e2e/extensions.mjs
import { fileURLToPath } from "node:url";
import { buildModernRequest, legacyHeaders, openLegacySession, requestMessage, resultOf } from "../wire/index.ts";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { findChromium } from "./oauth-browser.mjs";
import { startWrangler } from "./server.mjs";

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const VIEW = "ui://temperature/convert.html";
const UI_HOST = { extensions: { [UI]: { mimeTypes: [MIME] } } };

/** The host page: a sandboxed frame for the view and the host side of the view's JSON-RPC. */
const HOST_PAGE = `<!doctype html><html><body>
<iframe id="view" sandbox="allow-scripts" style="width:400px;height:300px;border:0"></iframe>
<script>
  window.seen = [];
  const frame = document.getElementById("view");
  const toView = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.startView = (html, call) => {
    window.addEventListener("message", async (event) => {
      if (event.source !== frame.contentWindow) return;
      const m = event.data;
      window.seen.push(m);
      if (m.method === "ui/initialize") {
        toView({ id: m.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" },
          hostCapabilities: { serverTools: {} }, hostContext: { theme: "dark", displayMode: "inline" } } });
      } else if (m.method === "ui/notifications/initialized") {
        toView({ method: "ui/notifications/tool-input", params: { arguments: call.arguments } });
        toView({ method: "ui/notifications/tool-result", params: call.result });
      } else if (m.method === "tools/call") {
        // A host forwards the view's calls to the server (here through the test, which holds the connection).
        try { toView({ id: m.id, result: await window.callServer(m.params) }); }
        catch (error) { toView({ id: m.id, error: { code: -32000, message: String(error) } }); }
      }
    });
    frame.srcdoc = html;
  };
</script></body></html>`;

/** A fork's app with one view, as the fork drill writes it: src/server.ts and the view's file under assets/. */
export const VIEW_FORK_APP = `import * as v from "valibot";
import { defineApp, defineTool, defineView } from "./mcp";

const view = defineView({ uri: "ui://fork/total.html", name: "total_view", asset: "/views/total.html" });

export default defineApp({
  info: { name: "fork-with-view", version: "1.0.0" },
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers and shows the total.",
      input: v.object({ a: v.number(), b: v.number() }),
      output: v.object({ total: v.number() }),
      view,
      handler: ({ a, b }) => ({ total: a + b }),
    }),
  ],
});
`;
export const VIEW_FORK_FILE = {
  path: "assets/views/total.html",
  html: "<!doctype html><html><body><p id=total>fork view</p></body></html>\n",
};

/** The MCP calls a host makes, on each revision, against a server at `url`. */
export function hostOf(url) {
  const modern = async (method, params = {}, capabilities = {}) => {
    const { message, headers } = buildModernRequest(method, params, { capabilities });
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(20_000) });
    return resultOf(await res.json(), method);
  };
  const send = async ({ method, headers, body }) => {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(20_000) });
    return { status: res.status, header: (n) => res.headers.get(n), text: await res.text() };
  };
  const legacySession = async (capabilities) => {
    const session = await openLegacySession(send, { capabilities });
    const call = async (method, params = {}) => {
      const res = await send({ method: "POST", headers: legacyHeaders(session.id), body: JSON.stringify(requestMessage(method, params)) });
      return resultOf(JSON.parse(res.text), method);
    };
    return { init: session.init, call };
  };
  return { modern, legacySession };
}

/**
 * Throws unless the server at `url` serves `tool`'s view `uri` on both revisions: declared, named in
 * the tool's `_meta.ui` for a host with the extension and absent for one without, and read as
 * text/html;profile=mcp-app with `htmlIncludes` in it. (The fork drill calls it with VIEW_FORK_APP.)
 */
export async function assertViewServed(url, { tool, uri, htmlIncludes }) {
  const { modern, legacySession } = hostOf(url);
  const uiOf = (tools) => tools.find((t) => t.name === tool)?._meta?.ui;
  const { capabilities } = await modern("server/discover");
  assertEqual(capabilities.extensions?.[UI], {}, "2026-07-28: declared extension");
  assertEqual(uiOf((await modern("tools/list", {}, UI_HOST)).tools)?.resourceUri, uri, "2026-07-28: _meta.ui.resourceUri");
  assertEqual(uiOf((await modern("tools/list")).tools), undefined, "2026-07-28: no _meta.ui for a host without the extension");
  const [contents] = (await modern("resources/read", { uri }, UI_HOST)).contents;
  assertEqual(contents.mimeType, MIME, "2026-07-28: mime type");
  assert(contents.text.includes(htmlIncludes), `2026-07-28: the view's HTML (${contents.text.slice(0, 80)})`);
  const withUi = await legacySession(UI_HOST);
  assertEqual(withUi.init.capabilities.extensions?.[UI], {}, "2025-11-25: declared in the initialize result");
  assertEqual(uiOf((await withUi.call("tools/list")).tools)?.resourceUri, uri, "2025-11-25: _meta.ui.resourceUri");
  const legacyRead = (await withUi.call("resources/read", { uri })).contents[0];
  assert(legacyRead.mimeType === MIME && legacyRead.text.includes(htmlIncludes), "2025-11-25: the view read as text/html;profile=mcp-app");
  const plain = await legacySession({});
  assertEqual(uiOf((await plain.call("tools/list")).tools), undefined, "2025-11-25: no _meta.ui for a host without the extension");
}

export async function runExtensions({ config = "wrangler.toml" } = {}) {
  const { check, counts } = createChecks("extensions");
  const server = await startWrangler({ config });
  const url = server.url;
  const { modern } = hostOf(url);

  try {
    await check(
      "both revisions: a host with MCP Apps sees the view on the tool and reads it as text/html;profile=mcp-app; a host without it gets the text-only tool",
      () => assertViewServed(url, { tool: "convert_temperature", uri: VIEW, htmlIncludes: 'id="fahrenheit"' }),
    );

    const executablePath = findChromium();
    if (!executablePath) {
      console.log(
        "\n  !!!!! extensions: Chromium not found, the view was NOT run in a browser !!!!!\n  Install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.",
      );
      // Under CI (.ci/run installs it) a missing browser is a failure, never a pass.
      if (process.env.CI === "true") {
        await check("Chromium is installed (.ci/run installs it)", async () => {
          throw new Error("no Chromium: the view was not run in a browser");
        });
        return counts();
      }
      return { ...counts(), skipped: "Chromium not found" };
    }
    await check(
      "Chromium: the view's HTML from the Worker handshakes with the host, shows the result, and calls the tool through it",
      async () => {
        const { chromium } = await import("playwright-core");
        const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] }); // root in CI: no user namespace sandbox
        try {
          const page = await browser.newPage();
          const serverCalls = [];
          await page.exposeFunction("callServer", async (params) => {
            serverCalls.push(params);
            return modern("tools/call", params, UI_HOST);
          });
          await page.setContent(HOST_PAGE);
          const html = (await modern("resources/read", { uri: VIEW }, UI_HOST)).contents[0].text;
          const args = { value: 100, from: "celsius" };
          const result = await modern("tools/call", { name: "convert_temperature", arguments: args }, UI_HOST);
          await page.evaluate(([h, call]) => /** @type {any} */ (window).startView(h, call), [html, { arguments: args, result }]);
          const view = page.frameLocator("#view");
          await view.locator("#fahrenheit").filter({ hasText: "212" }).waitFor({ timeout: 10_000 });
          const seen = await page.evaluate(() => /** @type {any} */ (window).seen);
          const init = seen.find((m) => m.method === "ui/initialize");
          assert(init && typeof init.id === "number", "ui/initialize is a request");
          assertEqual(init.params.appInfo?.name, "temperature-view", "appInfo");
          assert(typeof init.params.protocolVersion === "string", "protocolVersion");
          assert(
            seen.some((m) => m.method === "ui/notifications/initialized"),
            "initialized notification",
          );
          assert(
            seen.some((m) => m.method === "ui/notifications/size-changed" && m.params.height > 0),
            "size-changed",
          );
          await view.locator("#warmer").click();
          await view.locator("#celsius").filter({ hasText: /^101$/ }).waitFor({ timeout: 10_000 });
          assertEqual(
            serverCalls,
            [{ name: "convert_temperature", arguments: { value: 101, from: "celsius" } }],
            "the view's tools/call reached the server",
          );
          assertEqual(await view.locator("#kelvin").textContent(), "374.15", "the server's answer shown");
        } finally {
          await browser.close();
        }
      },
      60_000,
    );
  } finally {
    await server.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runExtensions();
  console.log(`extensions: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
