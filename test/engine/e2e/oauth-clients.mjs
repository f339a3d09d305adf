// Why: what a user of a real MCP client sees against the OAuth entry, with the client packages
// themselves (their own OAuth code, not ours), each driven headlessly through the entry's real
// consent page (a user who reads the form, ticks boxes and submits it with the page's cookie).
// The server is the scoped fixture app behind the OAuth entry (test/engine/scoped-app/): delete_note
// needs notes:write, the baseline is notes:read.
//
// - The official SDK 1.x client (@modelcontextprotocol/sdk 1.32) cannot step up: on a 403 it
//   refreshes the token, which cannot widen scope, and gives up. Least scope first would leave its
//   users without write tools for good. The consent page lets the user grant more than the client
//   asked for, so a user who consents once, ticking notes:write, calls delete_note.
// - The same client when the user grants only what it asked for: it cannot reach delete_note (what
//   its users see; docs/authorization.md).
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startWrangler } from "./server.mjs";

const CONFIG = "test/engine/scoped-app/wrangler.oauth.toml";

const unescape = (s) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

/**
 * A user at the consent page for `authorizationUrl`: opens it (prompt=consent, so the demo sign-in
 * shows the page), ticks what `choose(boxes)` returns, submits, and returns the URL the browser is
 * sent back to. `boxes` is the page's scope boxes, value → ticked. Records what it saw in `seen`.
 */
export async function consentAs(authorizationUrl, choose, seen = {}) {
  const url = new URL(authorizationUrl);
  url.searchParams.set("prompt", "consent");
  const page = await fetch(url, { redirect: "manual" });
  const html = await page.text();
  assertEqual(page.status, 200, `consent page (${html.slice(0, 200)})`);
  const boxes = new Map([...html.matchAll(/<input type="checkbox" name="scope" value="([^"]*)"( checked)?>/g)].map((m) => [unescape(m[1]), m[2] !== undefined]));
  seen.asked = url.searchParams.get("scope");
  seen.boxes = Object.fromEntries(boxes);
  const handle = unescape(/name="handle" value="([^"]*)"/.exec(html)?.[1] ?? "");
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const form = new URLSearchParams({ handle, decision: "approve" });
  for (const s of choose(boxes)) form.append("scope", s);
  const back = await fetch(new URL("/authorize", url), {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: url.origin },
    body: form,
    redirect: "manual",
  });
  const location = back.headers.get("Location");
  assert(location, `the consent form answered ${back.status} without a redirect`);
  return new URL(location);
}

/** What the page ticked, plus `more`. */
export const ticked = (more = []) => (boxes) => [...new Set([...[...boxes].filter(([, on]) => on).map(([s]) => s), ...more])];

/** An OAuthClientProvider (SDK 1.x) whose "browser" is `consentAs` with `choose`; in memory. */
function sdk1Provider(redirect, choose, seen) {
  let client, tokens, verifier;
  return {
    code: undefined,
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return { client_name: "SDK 1.x e2e", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    clientInformation: () => client,
    saveClientInformation: (c) => void (client = c),
    tokens: () => tokens,
    saveTokens: (t) => void (tokens = t),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
    async redirectToAuthorization(authorizationUrl) {
      const back = await consentAs(authorizationUrl, choose, seen);
      this.code = back.searchParams.get("code");
      assert(this.code, `no code in ${back}`);
    },
  };
}

/** The official SDK 1.x client signs in once (the user choosing with `choose`) and calls delete_note: its result, or the error. */
async function sdk1SignInAndDelete(server, choose, seen) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const provider = sdk1Provider("http://127.0.0.1:9/callback", choose, seen);
  const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
  const signIn = new Client({ name: "sdk1-e2e", version: "0.0.0" });
  const refused = await signIn.connect(first).then(() => undefined, (e) => e);
  assert(refused instanceof UnauthorizedError, `the first connect should need sign-in: ${refused}`);
  await first.finishAuth(provider.code);
  seen.granted = provider.tokens()?.scope;
  const client = new Client({ name: "sdk1-e2e", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
  seen.protocol = client.getServerVersion() && "2025-11-25";
  try {
    return await client.callTool({ name: "delete_note", arguments: { id: "n1" } });
  } catch (err) {
    return { error: String(err?.message ?? err) };
  } finally {
    await client.close();
  }
}

export async function runOAuthClients() {
  const { check, counts } = createChecks("oauth clients");
  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => { throw err; });
    return counts();
  }
  try {
    await check("official SDK 1.x client (1.32): one consent where the user also ticks notes:write, then delete_note succeeds", async () => {
      const seen = {};
      const result = await sdk1SignInAndDelete(server, ticked(["notes:write"]), seen);
      console.log(`    SDK 1.x asked for "${seen.asked}"; the page offered ${JSON.stringify(seen.boxes)}; granted "${seen.granted}"`);
      // Least scope first: the client asked for the baseline only; the user granted the write scope.
      assertEqual(seen.asked, "notes:read", "the scope the SDK asked for at first consent");
      assertEqual(seen.boxes, { "notes:read": true, "notes:write": false, "notes:admin": false }, "the consent page's boxes");
      assert(seen.granted?.split(" ").includes("notes:write"), `granted: ${seen.granted}`);
      assertEqual(result.content?.[0]?.text, "deleted n1", `delete_note (${JSON.stringify(result)})`);
    }, 60_000);

    await check("official SDK 1.x client (1.32): the user grants only what it asked for; a write tool then fails (it cannot step up)", async () => {
      const seen = {};
      const result = await sdk1SignInAndDelete(server, (boxes) => [...boxes].filter(([s, on]) => on && s !== "notes:write" && s !== "notes:admin").map(([s]) => s), seen);
      console.log(`    without notes:write: ${JSON.stringify(result).slice(0, 200)}`);
      assert(result.error || result.isError, `delete_note should fail without notes:write: ${JSON.stringify(result)}`);
    }, 60_000);
  } finally {
    if (counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
    await server.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runOAuthClients();
  console.log(`oauth clients: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
