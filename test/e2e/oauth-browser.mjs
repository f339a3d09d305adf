// Why: the consent page is the one part of the OAuth entry a person sees, and only a real
// browser shows that it renders, that its form posts back with the browser's own binding
// cookie, and that the redirect reaches the app. This drives headless Chromium (the system
// binary, through playwright-core) through what an MCP client starts and a user finishes:
// dynamic client registration → /authorize with prompt=consent → the consent page (saved as a
// screenshot) → Allow → the code on the client's redirect URI → token → MCP calls with that
// token on 2026-07-28 and on a 2025-11-25 session → refresh. The client sends no RFC 8707
// `resource` anywhere, as Claude Code does: the token must still be for this server's /mcp.
//
// Without Chromium this check cannot run. It then says so in capitals and counts as skipped,
// not passed; under CI (CI=true, where .ci/run installs Chromium) a missing browser fails.
import { existsSync, mkdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT } from "./procs.mjs";
import { freePort, startWrangler } from "./server.mjs";
import { legacyInit, modernInit, oauthClient, rpcBody } from "./oauth.mjs";

const CONFIG = "wrangler.oauth.toml";
export const SCREENSHOT = path.join(ROOT, "test", ".tmp", "oauth-consent.png"); // test/.tmp/ is git-ignored

/** The Chromium binary: CHROMIUM_PATH, or the usual system paths (Debian's `chromium` package). */
export function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  return candidates.find((p) => p && existsSync(p));
}

export async function runOAuthBrowser() {
  const { check, counts } = createChecks("oauth browser");
  const executablePath = findChromium();
  if (!executablePath) {
    const banner = "NO CHROMIUM: THE CONSENT PAGE WAS NOT TESTED IN A BROWSER";
    console.log(`\n  !!!!! ${banner} !!!!!\n  Install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.`);
    if (process.env.CI === "true") {
      await check("Chromium is installed (.ci/run installs it)", async () => { throw new Error(banner); });
      return counts();
    }
    return { ...counts(), skipped: banner };
  }
  const { chromium } = await import("playwright-core");

  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => { throw err; });
    return counts();
  }
  console.log(`  OAuth server (demo auto-approve) at ${server.origin}; Chromium ${executablePath}`);
  let browser, callback;
  try {
    await check("consent in Chromium, no resource sent: register → /authorize → consent page → Allow → code → token → MCP on both revisions → refresh", async () => {
      const t0 = Date.now();
      browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] }); // root in CI: no user namespace sandbox
      const launchedMs = Date.now() - t0;
      const page = await browser.newPage({ viewport: { width: 900, height: 520 } });

      // The client's redirect URI, a loopback server as a native MCP client runs: the browser
      // lands there with the code.
      let landed;
      const REDIRECT = `http://127.0.0.1:${await freePort()}/callback`;
      callback = http.createServer((req, res) => {
        if (!req.url.startsWith("/callback")) return res.writeHead(404).end(); // the browser also asks for /favicon.ico
        landed = new URL(req.url, REDIRECT).href;
        res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Signed in</title><p>Signed in.</p>");
      });
      await new Promise((resolve) => callback.listen(Number(new URL(REDIRECT).port), "127.0.0.1", resolve));
      const client = oauthClient(server.origin, fetch, REDIRECT);
      await client.discover();
      await client.register({ client_name: "Browser Test Client" });
      const a = client.authorizeUrl({ login_hint: "erin", prompt: "consent", resource: undefined });
      assertEqual(a.url.searchParams.get("resource"), null, "resource in the authorization request");

      const shown = await page.goto(a.url.href);
      assertEqual(shown.status(), 200, "consent page status");
      const heading = await page.locator("h1").innerText();
      assert(heading.includes("Browser Test Client") && heading.includes("demo-erin"), `heading: ${heading}`);
      assert(await page.getByRole("button", { name: "Allow" }).isVisible(), "no visible Allow button");
      assert(await page.getByRole("button", { name: "Deny" }).isVisible(), "no visible Deny button");
      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      console.log(`    screenshot of the consent page: ${SCREENSHOT}`);

      await Promise.all([page.waitForURL(`${REDIRECT}**`), page.getByRole("button", { name: "Allow" }).click()]);
      assert(landed, "the browser never reached the redirect URI");
      const code = new URL(landed).searchParams.get("code");
      assertEqual(new URL(landed).searchParams.get("state"), a.state, "state");
      assertEqual(new URL(landed).searchParams.get("iss"), server.origin, "iss");
      assert(code, `no code in ${landed}`);

      const t = await client.token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: a.verifier });
      assertEqual(t.status, 200, `token (${JSON.stringify(t.body)})`);
      assertEqual(t.body.resource, server.url, "the token's resource");
      const token = t.body.access_token;

      // 2026-07-28: stateless, headers mirror the body, _meta carries the envelope.
      const modern = modernInit("tools/list", token);
      const list = await fetch(server.url, modern);
      const tools = await rpcBody(list);
      assertEqual(list.status, 200, `2026-07-28 tools/list status (${JSON.stringify(tools)})`);
      assert(tools.result?.tools?.length > 0 && tools.result.resultType === "complete", `2026-07-28 tools/list: ${JSON.stringify(tools).slice(0, 200)}`);

      // 2025-11-25: initialize → session → a request in it.
      const init = await fetch(server.url, legacyInit({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e-browser", version: "0.0.0" } } }, token));
      const initBody = await rpcBody(init);
      assertEqual(init.status, 200, `2025-11-25 initialize (${JSON.stringify(initBody)})`);
      const session = init.headers.get("Mcp-Session-Id");
      assert(session, "no Mcp-Session-Id");
      assertEqual((await fetch(server.url, legacyInit({ method: "notifications/initialized" }, token, session))).status, 202, "initialized");
      const legacyList = await fetch(server.url, legacyInit({ id: 2, method: "tools/list" }, token, session));
      const legacyTools = await rpcBody(legacyList);
      assertEqual(legacyList.status, 200, "2025-11-25 tools/list status");
      assert(legacyTools.result?.tools?.length > 0 && !("resultType" in legacyTools.result), `2025-11-25 tools/list: ${JSON.stringify(legacyTools).slice(0, 200)}`);

      // Refresh, again without resource: the new token is for /mcp too.
      const r = await client.token({ grant_type: "refresh_token", refresh_token: t.body.refresh_token });
      assertEqual([r.status, r.body.resource], [200, server.url], `refresh (${JSON.stringify(r.body)})`);
      assertEqual((await fetch(server.url, modernInit("tools/list", r.body.access_token))).status, 200, "2026-07-28 tools/list with the refreshed token");
      console.log(`    Chromium launch ${launchedMs} ms; whole flow ${Date.now() - t0} ms`);
    }, 90_000);
  } finally {
    await browser?.close().catch(() => {});
    callback?.close();
    if (counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
    await server.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runOAuthBrowser();
  console.log(`oauth browser: ${r.passed} passed, ${r.failed} failed${r.skipped ? `; SKIPPED: ${r.skipped}` : ""}`);
  process.exit(r.failed ? 1 : 0);
}
