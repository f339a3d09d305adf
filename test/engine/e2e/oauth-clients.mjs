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
// - The clients that step up (the official client 2.x, 2.4, app-assisted; this template's own
//   client; mcp-remote 0.15, a stdio proxy): a session signed in for notes:read calls delete_note, gets the 403, the user consents
//   once more, and the call succeeds, on 2026-07-28 and in a 2025-11-25 session (the same session);
//   a second write call then needs no consent.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { freePort, startWrangler } from "./server.mjs";

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
  const boxes = new Map(
    [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]*)"( checked)?>/g)].map((m) => [unescape(m[1]), m[2] !== undefined]),
  );
  seen.asked = url.searchParams.get("scope");
  seen.boxes = Object.fromEntries(boxes);
  const handle = unescape(/name="handle" value="([^"]*)"/.exec(html)?.[1] ?? "");
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
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
export const ticked =
  (more = []) =>
  (boxes) => [...new Set([...[...boxes].filter(([, on]) => on).map(([s]) => s), ...more])];

/** An OAuthClientProvider (SDK 1.x and 2.x share its shape) whose "browser" is `consentAs` with `choose`; in memory. */
function sdk1Provider(redirect, choose, seen) {
  let client, tokens, verifier, discovery;
  return {
    code: undefined,
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return {
        client_name: "SDK 1.x e2e",
        redirect_uris: [redirect],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => client,
    saveClientInformation: (c) => void (client = c),
    tokens: () => tokens,
    saveTokens: (t) => void (tokens = t),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
    // 2.x binds the callback to the authorization server it discovered (SEP-2352).
    saveDiscoveryState: (d) => void (discovery = d),
    discoveryState: () => discovery,
    async redirectToAuthorization(authorizationUrl) {
      seen.consents = [...(seen.consents ?? []), new URL(authorizationUrl).searchParams.get("scope")];
      const back = await consentAs(authorizationUrl, choose, seen);
      this.code = back.searchParams.get("code");
      this.iss = back.searchParams.get("iss") ?? undefined; // RFC 9207: the 2.x client checks it
      assert(this.code, `no code in ${back}`);
    },
  };
}

/**
 * The official SDK 1.x client signs in once (the user choosing with `choose`) and calls delete_note: its result, or the error.
 * @returns {Promise<any>}
 */
async function sdk1SignInAndDelete(server, choose, seen) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const provider = sdk1Provider(REDIRECT, choose, seen);
  const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
  const signIn = new Client({ name: "sdk1-e2e", version: "0.0.0" });
  const refused = await signIn.connect(first).then(
    () => undefined,
    (e) => e,
  );
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

const REDIRECT = "http://127.0.0.1:9/callback";

/**
 * The official client 2.x (2.4) steps up as an app drives it: on the 403 its transport starts the
 * authorization (our headless user consents), the call rejects with UnauthorizedError, the app
 * finishes the authorization on the same transport and calls again.
 */
async function v2StepUp(server, versionNegotiation) {
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import("@modelcontextprotocol/client");
  const seen = {};
  const provider = sdk1Provider(REDIRECT, ticked(), seen);
  const open = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    const client = new Client({ name: "v2-step-up-e2e", version: "0.0.0" }, { versionNegotiation });
    return {
      transport,
      client,
      connected: await client.connect(transport).then(
        () => true,
        (e) => {
          if (!(e instanceof UnauthorizedError)) throw e;
          return false;
        },
      ),
    };
  };
  let { transport, client, connected } = await open();
  if (!connected) {
    await transport.finishAuth(provider.code, provider.iss);
    ({ transport, client, connected } = await open());
  }
  assert(connected, "not connected after the first sign-in");
  const session = transport.sessionId;
  const call = () => client.callTool({ name: "delete_note", arguments: { id: "n1" } });
  /** @type {any} */
  let result = await call().catch((e) => e);
  if (result instanceof UnauthorizedError) {
    await transport.finishAuth(provider.code, provider.iss);
    result = await call();
  }
  assertEqual(
    result?.content?.[0]?.text,
    "deleted n1",
    `delete_note after the step-up (${String(result?.message ?? JSON.stringify(result))})`,
  );
  assertEqual(transport.sessionId, session, "the session across the step-up");
  /** @type {any} */
  const again = await call();
  assertEqual(again?.content?.[0]?.text, "deleted n1", "a second write call");
  await client.close();
  return { consents: seen.consents, session };
}

/** The template's own client (src/engine/client), bundled for Node as client-own.mjs does. */
async function loadOwnClient() {
  const dir = path.join(ROOT, "test/.tmp/oauth-clients");
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `client-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, "src/engine/client/index.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}

/** The template's client steps up by itself: the 403 → one more consent → the retried call, inside callTool. */
async function ownStepUp(server, protocol) {
  const { McpClient, OAuthClient } = await loadOwnClient();
  const consents = [];
  const auth = new OAuthClient({
    redirectUri: REDIRECT,
    clientName: "template client e2e",
    authorize: async (url) => {
      consents.push(url.searchParams.get("scope"));
      return consentAs(url, ticked());
    },
  });
  const client = await McpClient.connect(server.url, { auth, protocol });
  const result = await client.callTool("delete_note", { id: "n1" });
  assertEqual(result.content?.[0]?.text, "deleted n1", `delete_note (${JSON.stringify(result)})`);
  const again = await client.callTool("delete_note", { id: "n2" });
  assertEqual(again.content?.[0]?.text, "deleted n2", "a second write call");
  await client.close();
  return { consents };
}

/**
 * mcp-remote 0.15 (a stdio proxy a desktop client starts): it prints the authorization URL and waits on
 * its loopback callback; our headless user consents and the "browser" lands on that callback. A stdio
 * client initializes (2025-11-25 on its side), then calls delete_note twice.
 */
async function mcpRemoteStepUp(server) {
  const consents = [];
  const configDir = mkdtempSync(path.join(os.tmpdir(), "mcp-remote-e2e-"));
  const port = await freePort();
  // BROWSER=true: its opener "succeeds" without starting a real browser; the user is the code below.
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/mcp-remote/dist/proxy.js"), server.url, String(port), "--allow-http"],
    {
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "true", DISPLAY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let err = "";
  let out = "";
  const waiting = new Map();
  const failures = [];
  child.stderr.on("data", (d) => {
    err += d;
    for (const [, url] of err.matchAll(/Please authorize this client by visiting:\s*(\S+)/g)) {
      if (consents.some((c) => c.url === url)) continue;
      consents.push({ url, scope: new URL(url).searchParams.get("scope") });
      (async () => {
        const back = await consentAs(url, ticked());
        // Its callback server may start a moment after it prints the URL.
        for (let i = 0; i < 40; i++) {
          const res = await fetch(back).catch(() => undefined);
          if (res) return void (await res.body?.cancel());
          await new Promise((r) => setTimeout(r, 250));
        }
        throw new Error(`mcp-remote's callback ${back.origin} never answered`);
      })().catch((e) => failures.push(e));
    }
  });
  child.stdout.on("data", (d) => {
    out += d;
    for (let i = out.indexOf("\n"); i >= 0; i = out.indexOf("\n")) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      try {
        const m = JSON.parse(line);
        waiting.get(m.id)?.(m);
      } catch {}
    }
  });
  const rpc = (id, method, params) =>
    new Promise((resolve, reject) => {
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      setTimeout(() => reject(new Error(`mcp-remote: no answer to ${method} in 30 s (${failures.join("; ")})`)), 30_000).unref();
    });
  try {
    await rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdio-e2e", version: "0.0.0" } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const first = await rpc(2, "tools/call", { name: "delete_note", arguments: { id: "n1" } });
    assertEqual(first.result?.content?.[0]?.text, "deleted n1", `delete_note through mcp-remote (${JSON.stringify(first)})`);
    const second = await rpc(3, "tools/call", { name: "delete_note", arguments: { id: "n2" } });
    assertEqual(second.result?.content?.[0]?.text, "deleted n2", "a second write call");
    return { consents: consents.map((c) => c.scope) };
  } finally {
    child.kill();
    rmSync(configDir, { recursive: true, force: true });
  }
}

/** Two consents: the baseline at sign-in, then the step-up for what delete_note needs (with what was held). */
function assertStepUp(consents, who) {
  console.log(`    ${who}: consents asked for ${JSON.stringify(consents)}`);
  assertEqual(consents.length, 2, `${who}: consents (sign-in, one step-up)`);
  assertEqual(consents[0], "notes:read", `${who}: the first consent's scope`);
  const second = (consents[1] ?? "").split(" ");
  assert(
    second.includes("notes:write") && second.includes("notes:read"),
    `${who}: the step-up asks for notes:write and keeps notes:read: ${consents[1]}`,
  );
}

export async function runOAuthClients() {
  const { check, counts } = createChecks("oauth clients");
  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => {
      throw err;
    });
    return counts();
  }
  try {
    await check(
      "official SDK 1.x client (1.32): one consent where the user also ticks notes:write, then delete_note succeeds",
      async () => {
        const seen = {};
        const result = await sdk1SignInAndDelete(server, ticked(["notes:write"]), seen);
        console.log(`    SDK 1.x asked for "${seen.asked}"; the page offered ${JSON.stringify(seen.boxes)}; granted "${seen.granted}"`);
        // Least scope first: the client asked for the baseline only; the user granted the write scope.
        assertEqual(seen.asked, "notes:read", "the scope the SDK asked for at first consent");
        assertEqual(seen.boxes, { "notes:read": true, "notes:write": false, "notes:admin": false }, "the consent page's boxes");
        assert(seen.granted?.split(" ").includes("notes:write"), `granted: ${seen.granted}`);
        assertEqual(result.content?.[0]?.text, "deleted n1", `delete_note (${JSON.stringify(result)})`);
      },
      60_000,
    );

    await check(
      "official SDK 1.x client (1.32): the user grants only what it asked for; a write tool then fails (it cannot step up)",
      async () => {
        const seen = {};
        const result = await sdk1SignInAndDelete(
          server,
          (boxes) => [...boxes].filter(([s, on]) => on && s !== "notes:write" && s !== "notes:admin").map(([s]) => s),
          seen,
        );
        console.log(`    without notes:write: ${JSON.stringify(result).slice(0, 200)}`);
        assert(result.error || result.isError, `delete_note should fail without notes:write: ${JSON.stringify(result)}`);
      },
      60_000,
    );

    for (const [label, mode] of [
      ["2026-07-28", { pin: "2026-07-28" }],
      ["2025-11-25", { mode: "legacy" }],
    ]) {
      await check(
        `official client 2.x (2.4), ${label}: signed in for notes:read, delete_note steps up once (the app finishes the authorization) and succeeds; a second write needs no consent`,
        async () => {
          const { consents } = await v2StepUp(server, mode);
          assertStepUp(consents, `client 2.4 ${label}`);
        },
        60_000,
      );
    }

    for (const protocol of ["2026-07-28", "2025-11-25"]) {
      await check(
        `this template's client, ${protocol}: signed in for notes:read, delete_note steps up once by itself and succeeds; a second write needs no consent`,
        async () => {
          const { consents } = await ownStepUp(server, protocol);
          assertStepUp(consents, `template client ${protocol}`);
        },
        60_000,
      );
    }

    await check(
      "mcp-remote 0.15: signed in for notes:read, delete_note steps up once and succeeds; a second write needs no consent",
      async () => {
        const { consents } = await mcpRemoteStepUp(server);
        assertStepUp(consents, "mcp-remote 0.15");
      },
      90_000,
    );
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
