// Why: the consent page is the one part of the OAuth entry a person sees, and only a real
// browser shows that it renders, that its form posts back with the browser's own binding
// cookie, and that the redirect reaches the app. This drives headless Chromium (the system
// binary, through playwright-core) through what an MCP client starts and a user finishes:
// dynamic client registration → /authorize with prompt=consent → the consent page (saved as a
// screenshot) → Allow → the code on the client's redirect URI → token → MCP calls with that
// token on 2026-07-28 and on a 2025-11-25 session → refresh. The client sends no RFC 8707
// `resource` anywhere, as Claude Code does: the token must still be for this server's /mcp.
// Then step-up: the first grant has fewer scopes than delete_note needs, so the call gets the
// 403 insufficient_scope challenge; the same user authorizes again in the browser for the
// challenge's scopes (the consent page lists them), and the new token's call succeeds in the same
// 2025 session. The server is the scoped fixture app behind the OAuth entry (test/engine/scoped-app/).
//
// Without Chromium this check cannot run. It then says so in capitals and counts as skipped,
// not passed; under CI (CI=true, where .ci/run installs Chromium) a missing browser fails.
import { existsSync, mkdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { freePort, startWrangler } from "./server.mjs";
import { legacyInit, modernInit, oauthClient, rpcBody } from "./oauth.mjs";

const CONFIG = "test/engine/scoped-app/wrangler.oauth.toml";
export const SCREENSHOT = path.join(ROOT, "test", ".tmp", "oauth-consent.png"); // test/.tmp/ is git-ignored

/** The Chromium binary: CHROMIUM_PATH, or the usual system paths (Debian's `chromium` package). */
export function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  return candidates.find((p) => p && existsSync(p));
}

/** The scopes a 403 step-up challenge names (WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
const challengedScope = (res) => {
  const header = res.headers.get("WWW-Authenticate") ?? "";
  assert(res.status === 403 && header.includes('error="insufficient_scope"'), `not a step-up challenge: ${res.status} ${header}`);
  return /scope="([^"]*)"/.exec(header)?.[1];
};

/** ctx.auth as the whoami tool shows it, on 2026-07-28. */
async function whoami(url, token) {
  const res = await fetch(url, modernInit("tools/call", token, { name: "whoami", arguments: {} }));
  const body = await rpcBody(res);
  assertEqual(res.status, 200, `whoami (${JSON.stringify(body)})`);
  return JSON.parse(body.result.content[0].text);
}

export async function runOAuthBrowser() {
  const { check, counts } = createChecks("oauth browser");
  const executablePath = findChromium();
  if (!executablePath) {
    const banner = "NO CHROMIUM: THE CONSENT PAGE WAS NOT TESTED IN A BROWSER";
    console.log(`\n  !!!!! ${banner} !!!!!\n  Install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.`);
    if (process.env.CI === "true") {
      await check("Chromium is installed (.ci/run installs it)", async () => {
        throw new Error(banner);
      });
      return counts();
    }
    return { ...counts(), skipped: banner };
  }
  const { chromium } = await import("playwright-core");

  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => {
      throw err;
    });
    return counts();
  }
  console.log(`  OAuth server (demo auto-approve) at ${server.origin}; Chromium ${executablePath}`);
  /** @type {import("playwright-core").Browser | undefined} */
  let browser;
  /** @type {import("node:http").Server | undefined} */
  let callback;
  try {
    await check(
      "consent in Chromium, no resource sent: register → /authorize → consent page → Allow → code → token → MCP on both revisions → refresh → 403 step-up → consent for the challenge's scopes → the call succeeds in the same session",
      async () => {
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
        await /** @type {Promise<void>} */ (
          new Promise((resolve) => callback.listen(Number(new URL(REDIRECT).port), "127.0.0.1", resolve))
        );
        const client = oauthClient(server.origin, fetch, REDIRECT);
        await client.discover();
        await client.register({ client_name: "Browser Test Client" });
        /** The user authorizes `scope` in the browser, through the consent page: the token response. */
        const consent = async (scope, screenshot) => {
          landed = undefined;
          const a = client.authorizeUrl({ login_hint: "erin", prompt: "consent", resource: undefined, scope });
          assertEqual(a.url.searchParams.get("resource"), null, "resource in the authorization request");
          const shown = await page.goto(a.url.href);
          assertEqual(shown.status(), 200, "consent page status");
          const heading = await page.locator("h1").innerText();
          assert(heading.includes("Browser Test Client") && heading.includes("demo-erin"), `heading: ${heading}`);
          // Each scope asked for is a ticked box (the page also offers the others, unticked).
          for (const s of scope.split(" "))
            assert(await page.getByRole("checkbox", { name: s, exact: true }).isChecked(), `the consent page does not tick ${s}`);
          assert(await page.getByRole("button", { name: "Allow" }).isVisible(), "no visible Allow button");
          assert(await page.getByRole("button", { name: "Deny" }).isVisible(), "no visible Deny button");
          if (screenshot) {
            mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
            await page.screenshot({ path: SCREENSHOT, fullPage: true });
            console.log(`    screenshot of the consent page: ${SCREENSHOT}`);
          }
          await Promise.all([page.waitForURL(`${REDIRECT}**`), page.getByRole("button", { name: "Allow" }).click()]);
          assert(landed, "the browser never reached the redirect URI");
          const code = new URL(landed).searchParams.get("code");
          assertEqual(new URL(landed).searchParams.get("state"), a.state, "state");
          assertEqual(new URL(landed).searchParams.get("iss"), server.origin, "iss");
          assert(code, `no code in ${landed}`);
          const t = await client.token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: a.verifier });
          assertEqual(t.status, 200, `token (${JSON.stringify(t.body)})`);
          assertEqual(t.body.resource, server.url, "the token's resource");
          return t;
        };

        // First authorization: reading only (the app's default scope).
        const t = await consent("notes:read", true);
        const token = t.body.access_token;

        // 2026-07-28: stateless, headers mirror the body, _meta carries the envelope.
        const modern = modernInit("tools/list", token);
        const list = await fetch(server.url, modern);
        const tools = await rpcBody(list);
        assertEqual(list.status, 200, `2026-07-28 tools/list status (${JSON.stringify(tools)})`);
        assert(
          tools.result?.tools?.length > 0 && tools.result.resultType === "complete",
          `2026-07-28 tools/list: ${JSON.stringify(tools).slice(0, 200)}`,
        );

        // 2025-11-25: initialize → session → a request in it.
        const init = await fetch(
          server.url,
          legacyInit(
            {
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e-browser", version: "0.0.0" } },
            },
            token,
          ),
        );
        const initBody = await rpcBody(init);
        assertEqual(init.status, 200, `2025-11-25 initialize (${JSON.stringify(initBody)})`);
        const session = init.headers.get("Mcp-Session-Id");
        assert(session, "no Mcp-Session-Id");
        assertEqual(
          (await fetch(server.url, legacyInit({ method: "notifications/initialized" }, token, session))).status,
          202,
          "initialized",
        );
        const legacyList = await fetch(server.url, legacyInit({ id: 2, method: "tools/list" }, token, session));
        const legacyTools = await rpcBody(legacyList);
        assertEqual(legacyList.status, 200, "2025-11-25 tools/list status");
        assert(
          legacyTools.result?.tools?.length > 0 && !("resultType" in legacyTools.result),
          `2025-11-25 tools/list: ${JSON.stringify(legacyTools).slice(0, 200)}`,
        );

        // Refresh, again without resource: the new token is for /mcp too.
        const r = await client.token({ grant_type: "refresh_token", refresh_token: t.body.refresh_token });
        assertEqual([r.status, r.body.resource], [200, server.url], `refresh (${JSON.stringify(r.body)})`);
        assertEqual(
          (await fetch(server.url, modernInit("tools/list", r.body.access_token))).status,
          200,
          "2026-07-28 tools/list with the refreshed token",
        );

        // Step-up: delete_note needs notes:write, which the first grant lacks.
        const before = await whoami(server.url, r.body.access_token);
        const deleteNote = (id, bearer) =>
          fetch(
            server.url,
            legacyInit({ id, method: "tools/call", params: { name: "delete_note", arguments: { id: "n1" } } }, bearer, session),
          );
        const refused = await deleteNote(3, token);
        const wanted = challengedScope(refused);
        assertEqual(wanted, "notes:write", "the challenge's scope");
        const refusal = await rpcBody(refused);
        assertEqual([refusal.id, refusal.error?.code], [3, -32003], `the refusal (${JSON.stringify(refusal)})`);
        challengedScope(await fetch(server.url, modernInit("tools/call", token, { name: "delete_note", arguments: { id: "n1" } })));
        // The same user authorizes again, through the consent page, for what the challenge named.
        const stepped = await consent(wanted);
        assert(stepped.body.scope?.split(" ").includes("notes:write"), `the second grant's scope: ${stepped.body.scope}`);
        const after = await whoami(server.url, stepped.body.access_token);
        assertEqual([before.principal, after.principal], ["demo-erin", "demo-erin"], "the principal before and after the step-up");
        const retried = await deleteNote(4, stepped.body.access_token);
        const done = await rpcBody(retried);
        assertEqual(retried.status, 200, `the retry in the same 2025 session (${JSON.stringify(done)})`);
        assertEqual(done.result?.content?.[0]?.text, "deleted n1", "the retried call's result");
        console.log(`    Chromium launch ${launchedMs} ms; whole flow ${Date.now() - t0} ms`);
      },
      90_000,
    );
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
