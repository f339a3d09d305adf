// Why: the opt-in OAuth entry (src/engine/oauth/, wrangler.oauth.toml) makes the Worker its own
// authorization server with @cloudflare/workers-oauth-provider. Only a real `wrangler dev`
// (workerd, KV, Durable Objects, real redirects) shows that the pieces fit: this walks the
// discovery a MCP client does (401 → RFC 9728 → RFC 8414), dynamic client registration, the
// authorization-code flow with PKCE (redirects followed by hand), the token on both MCP
// revisions, session binding to the OAuth user, the consent page, CIMD, and that nothing is
// approved without OAUTH_DEMO_AUTO_APPROVE. It also builds both entries (wrangler deploy
// --dry-run) to check that the default bundle does not contain the provider.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { atExit, run } from "../../../scripts/lib/procs.mjs";
import { startWrangler } from "./server.mjs";

const CONFIG = "wrangler.oauth.toml";
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const REDIRECT = "http://127.0.0.1:9/callback"; // never fetched: the flow stops at the redirect
const MARKER = "workers-oauth-provider"; // in the provider's outbound User-Agent string

const b64url = (buf) => Buffer.from(buf).toString("base64url");
const pkce = () => {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash("sha256").update(verifier).digest()) };
};

/** Builds one entry like `wrangler deploy` (no upload): gzip size and whether the provider is inside. */
async function buildEntry(config) {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "mcp-oauth-bundle-"));
  const unhook = atExit(() => rmSync(outdir, { recursive: true, force: true }));
  try {
    const r = await run("wrangler", ["deploy", "--dry-run", "--config", config, "--outdir", outdir], { timeoutMs: 120_000, capture: true });
    if (r.code !== 0) throw new Error(`wrangler deploy --dry-run --config ${config} failed:\n${r.out.slice(-2000)}`);
    const files = readdirSync(outdir, { recursive: true, encoding: "utf8" }).filter((f) => /\.m?js$/.test(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(path.join(outdir, f))));
    return { raw: bytes.length, gzip: gzipSync(bytes).length, hasProvider: bytes.includes(MARKER) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
    unhook();
  }
}

/** A raw GET/OPTIONS with any Host header (fetch will not send a foreign one): the status. */
function rawStatus(origin, pathname, { method = "GET", headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${pathname}`, { method, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/**
 * A fetch that connects to `server` (the wrangler dev origin) whatever host the URL names, and
 * sends that host as the Host header: how a second hostname of the same Worker is reached
 * without DNS. `headers` may add more (e.g. CF-Connecting-IP). Never follows redirects.
 */
export function fetchVia(server, extraHeaders = {}) {
  const { hostname, port } = new URL(server);
  return (input, init = {}) =>
    new Promise((resolve, reject) => {
      const url = new URL(input);
      const headers = { ...Object.fromEntries(new Headers(init.headers ?? {})), Host: url.host, ...extraHeaders };
      const req = http.request(
        { host: hostname, port, path: `${url.pathname}${url.search}`, method: init.method ?? "GET", headers },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            const h = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
            const body = [204, 304].includes(res.statusCode) ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status: res.statusCode, headers: h }));
          });
        },
      );
      req.on("error", reject);
      if (init.body !== undefined) req.write(typeof init.body === "string" ? init.body : String(init.body));
      req.end();
    });
}

/**
 * The isolate's live heap (bytes, after a full collection) through the `wrangler dev` inspector:
 * how a test sees memory a Worker keeps. startWrangler gives the inspector a free port; it is
 * read from the wrangler process's command line.
 */
async function heapProbe(origin) {
  const port = new URL(origin).port;
  let inspector;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const i = args.indexOf("--port");
      if (i > 0 && args[i + 1] === port && args.includes("--inspector-port")) inspector = args[args.indexOf("--inspector-port") + 1];
    } catch {
      /* gone, or not ours */
    }
  }
  assert(inspector, "could not find the wrangler dev inspector port (Linux /proc)");
  const ws = new WebSocket(`ws://127.0.0.1:${inspector}/ws`, /** @type {any} */ ({ headers: { Origin: "http://localhost" } }));
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = () => reject(new Error("inspector connection failed")))));
  let next = 0;
  const waiting = new Map();
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (waiting.has(m.id)) waiting.get(m.id)(m), waiting.delete(m.id);
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("HeapProfiler.enable");
  return {
    /** A heap snapshot runs a full GC first (this inspector has no collectGarbage); its chunks are dropped. */
    async used() {
      await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      return (await send("Runtime.getHeapUsage")).result.usedSize;
    },
    close: () => ws.close(),
  };
}

/** A 2026-07-28 request: the headers mirror the body (Mcp-Name a tool's name), and `_meta` carries the envelope. */
export function modernInit(method, token, params = {}) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "e2e-oauth", version: "0.0.0" },
      },
    },
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
  };
  if (typeof params.name === "string") headers["Mcp-Name"] = params.name;
  if (token) headers.Authorization = `Bearer ${token}`;
  return { method: "POST", headers, body: JSON.stringify(body) };
}

/** A 2025-11-25 request, in a session when `session` is given. */
export function legacyInit(message, token, session) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (session) Object.assign(headers, { "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY });
  if (token) headers.Authorization = `Bearer ${token}`;
  return { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", ...message }) };
}

/** The JSON-RPC message of a JSON or single-event SSE answer. */
export async function rpcBody(res) {
  const text = await res.text();
  if (!(res.headers.get("Content-Type") ?? "").startsWith("text/event-stream")) return JSON.parse(text);
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data:") && l.length > 5)
    .map((l) => l.slice(5).trim());
  return JSON.parse(data.at(-1));
}

/** The OAuth client side: discovery, registration, authorize (by hand), token; `fetch` may be fetchVia(…). */
export function oauthClient(origin, fetch = globalThis.fetch, redirect = REDIRECT) {
  const state = { meta: undefined, clientId: undefined };
  const discover = async () => {
    const res = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    assertEqual(res.status, 200, "authorization-server metadata status");
    return (state.meta = await res.json());
  };
  const register = async (extra = {}) => {
    const res = await fetch(state.meta.registration_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "e2e OAuth client", redirect_uris: [redirect], token_endpoint_auth_method: "none", ...extra }),
    });
    const body = await res.json();
    assertEqual(res.status, 201, `registration status (${JSON.stringify(body)})`);
    return (state.clientId = body.client_id);
  };
  /** The /authorize URL for a fresh PKCE pair; `params` adds or overrides query parameters (undefined leaves one out). */
  const authorizeUrl = (params = {}) => {
    const p = pkce();
    const url = new URL(state.meta.authorization_endpoint);
    const q = {
      response_type: "code",
      client_id: state.clientId,
      redirect_uri: redirect,
      code_challenge: p.challenge,
      code_challenge_method: "S256",
      state: b64url(randomBytes(12)),
      resource: `${origin}/mcp`,
      ...params,
    };
    for (const [k, v] of Object.entries(q)) if (v !== undefined) url.searchParams.set(k, v);
    return { url, verifier: p.verifier, state: q.state };
  };
  /** The code from a 302 to the client's redirect URI (state and iss checked). */
  const codeFrom = (res, expectedState) => {
    assertEqual(res.status, 302, "authorize status");
    const loc = new URL(res.headers.get("Location"));
    assertEqual(`${loc.origin}${loc.pathname}`, redirect, "redirect target");
    assertEqual(loc.searchParams.get("state"), expectedState, "state echoed");
    assertEqual(loc.searchParams.get("iss"), state.meta.issuer, "RFC 9207 iss");
    const code = loc.searchParams.get("code");
    assert(code, `no code in ${loc}`);
    return code;
  };
  const token = async (form) => {
    const res = await fetch(state.meta.token_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: state.clientId, ...form }),
    });
    return { status: res.status, body: await res.json() };
  };
  /**
   * Auto-approved authorization (demo) as `user`, then the code exchange: the token response.
   * `withResource: false` sends no RFC 8707 `resource` on either request, as Claude Code does.
   */
  const login = async (user, { withResource = true } = {}) => {
    const resource = withResource ? `${origin}/mcp` : undefined;
    const a = authorizeUrl({ login_hint: user, resource });
    const code = codeFrom(await fetch(a.url, { redirect: "manual" }), a.state);
    const t = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirect,
      code_verifier: a.verifier,
      ...(resource ? { resource } : {}),
    });
    assertEqual(t.status, 200, `token status (${JSON.stringify(t.body)})`);
    assertEqual(t.body.token_type.toLowerCase(), "bearer", "token_type");
    return t.body;
  };
  return { state, discover, register, authorizeUrl, codeFrom, token, login };
}

export async function runOAuth() {
  const { check, counts } = createChecks("oauth");

  await check(
    "bundles: the default entry has no OAuth provider; the OAuth entry has it",
    async () => {
      const [def, oauth] = [await buildEntry("wrangler.toml"), await buildEntry(CONFIG)];
      console.log(
        `    default (wrangler.toml): ${kib(def.raw)} raw, ${kib(def.gzip)} gzip; OAuth (${CONFIG}): ${kib(oauth.raw)} raw, ${kib(oauth.gzip)} gzip`,
      );
      assert(!def.hasProvider, "the default bundle contains workers-oauth-provider");
      assert(oauth.hasProvider, "the OAuth bundle does not contain workers-oauth-provider");
    },
    240_000,
  );

  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check("start wrangler dev --config wrangler.oauth.toml", async () => {
      throw err;
    });
    return counts();
  }
  console.log(`  OAuth server (demo auto-approve) at ${server.url}`);
  const { origin, url: mcp } = server;
  const client = oauthClient(origin);
  let alice, bob, session;
  try {
    await check("unauthenticated /mcp: 401 with a challenge naming the RFC 9728 metadata", async () => {
      const res = await fetch(mcp, modernInit("server/discover"));
      assertEqual(res.status, 401, "status");
      const www = res.headers.get("WWW-Authenticate") ?? "";
      assert(www.includes(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`), `challenge: ${www}`);
    });

    await check("Host and Origin gates: a foreign Host gets 403 everywhere; /mcp preflight keeps ALLOWED_ORIGINS", async () => {
      for (const p of ["/mcp", "/authorize", "/.well-known/oauth-authorization-server", "/oauth/token"]) {
        assertEqual((await rawStatus(origin, p, { headers: { Host: "rebound.example" } })).status, 403, `foreign Host on ${p}`);
      }
      const evil = await rawStatus(origin, "/mcp", {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
      });
      assertEqual(evil.status, 403, "preflight from a foreign origin");
      const own = await rawStatus(origin, "/mcp", {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization" },
      });
      assert(own.status === 204 || own.status === 200, `preflight from this origin: ${own.status}`);
      assert(/authorization/i.test(own.headers["access-control-allow-headers"] ?? ""), "preflight does not allow Authorization");
    });

    await check("protected-resource metadata names this Worker as the authorization server", async () => {
      const res = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`);
      assertEqual(res.status, 200, "status");
      const meta = await res.json();
      assertEqual(meta.resource, `${origin}/mcp`, "resource");
      assertEqual(meta.authorization_servers, [origin], "authorization_servers");
    });

    await check("authorization-server metadata: endpoints, S256, DCR and CIMD advertised", async () => {
      const meta = await client.discover();
      assertEqual(meta.issuer, origin, "issuer");
      assertEqual(meta.authorization_endpoint, `${origin}/authorize`, "authorization_endpoint");
      assertEqual(meta.token_endpoint, `${origin}/oauth/token`, "token_endpoint");
      assertEqual(meta.registration_endpoint, `${origin}/oauth/register`, "registration_endpoint");
      assertEqual(meta.code_challenge_methods_supported, ["S256"], "PKCE methods");
      assertEqual(meta.client_id_metadata_document_supported, true, "client_id_metadata_document_supported");
    });

    await check("dynamic client registration: a public client gets a client_id", () => client.register());

    await check("authorization code + PKCE for demo user alice: token issued", async () => {
      alice = await client.login("alice");
      assert(alice.access_token && alice.refresh_token, "no access or refresh token");
    });

    await check("PKCE is required; a code works once, and only with its verifier", async () => {
      const a = client.authorizeUrl({ login_hint: "alice" });
      const code = client.codeFrom(await fetch(a.url, { redirect: "manual" }), a.state);
      const wrong = await client.token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
      assertEqual([wrong.status, wrong.body.error], [400, "invalid_grant"], "wrong verifier");
      const b = client.authorizeUrl({ login_hint: "alice" });
      const form = {
        grant_type: "authorization_code",
        code: client.codeFrom(await fetch(b.url, { redirect: "manual" }), b.state),
        redirect_uri: REDIRECT,
        code_verifier: b.verifier,
      };
      assertEqual((await client.token(form)).status, 200, "first exchange");
      const reuse = await client.token(form);
      assertEqual([reuse.status, reuse.body.error], [400, "invalid_grant"], "second exchange of the same code");
      const missing = await fetch(client.authorizeUrl({ code_challenge: "" }).url, { redirect: "manual" });
      assert(missing.status === 302 || missing.status === 400, `no PKCE challenge: status ${missing.status}`);
      if (missing.status === 302)
        assertEqual(new URL(missing.headers.get("Location")).searchParams.get("error"), "invalid_request", "no PKCE challenge");
      alice = await client.login("alice"); // a new grant for alice revokes her earlier one: use the newest token
    });

    await check("2026-07-28 server/discover with the token: 200", async () => {
      const res = await fetch(mcp, modernInit("server/discover", alice.access_token));
      const body = await rpcBody(res);
      assertEqual(res.status, 200, `status (${JSON.stringify(body)})`);
      assert(body.result?.serverInfo || body.result?._meta, `no result: ${JSON.stringify(body)}`);
      assertEqual(body.result.cacheScope, "private", "cacheScope of a per-user answer");
    });

    await check("2025-11-25 initialize with the token: 200 and a session; tools/list in it", async () => {
      const init = {
        id: 1,
        method: "initialize",
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "e2e-oauth", version: "0.0.0" } },
      };
      const res = await fetch(mcp, legacyInit(init, alice.access_token));
      const body = await rpcBody(res);
      assertEqual(res.status, 200, `initialize status (${JSON.stringify(body)})`);
      assertEqual(body.result?.protocolVersion, LEGACY, "negotiated version");
      session = res.headers.get("Mcp-Session-Id");
      assert(session, "no Mcp-Session-Id");
      const note = await fetch(mcp, legacyInit({ method: "notifications/initialized" }, alice.access_token, session));
      assertEqual(note.status, 202, "notifications/initialized status");
      const list = await fetch(mcp, legacyInit({ id: 2, method: "tools/list" }, alice.access_token, session));
      const tools = await rpcBody(list);
      assertEqual(list.status, 200, "tools/list status");
      assert(tools.result?.tools?.length > 0, `no tools: ${JSON.stringify(tools)}`);
    });

    await check("a second user's token cannot use the first user's session (404)", async () => {
      bob = await client.login("bob");
      const res = await fetch(mcp, legacyInit({ id: 3, method: "tools/list" }, bob.access_token, session));
      assertEqual(res.status, 404, "bob on alice's session");
      const own = await fetch(mcp, legacyInit({ id: 4, method: "tools/list" }, alice.access_token, session));
      assertEqual(own.status, 200, "alice on her session");
    });

    await check("a forged token gets 401 invalid_token; the refresh token rotates to a working one", async () => {
      const forged = await fetch(mcp, modernInit("server/discover", "demo-alice:x:y"));
      assertEqual(forged.status, 401, "forged token");
      assert((forged.headers.get("WWW-Authenticate") ?? "").includes('error="invalid_token"'), "no invalid_token challenge");
      const r = await client.token({ grant_type: "refresh_token", refresh_token: alice.refresh_token });
      assertEqual(r.status, 200, `refresh (${JSON.stringify(r.body)})`);
      const res = await fetch(mcp, modernInit("server/discover", r.body.access_token));
      assertEqual(res.status, 200, "refreshed token on /mcp");
    });

    await check(
      "a client that sends no resource (Claude Code): code and refresh tokens are for /mcp, served on both revisions; another resource is invalid_target",
      async () => {
        const t = await client.login("frank", { withResource: false });
        assertEqual(t.resource, mcp, "resource of the code exchange");
        const r = await client.token({ grant_type: "refresh_token", refresh_token: t.refresh_token });
        assertEqual([r.status, r.body.resource], [200, mcp], `refresh without resource (${JSON.stringify(r.body)})`);
        for (const [name, accessToken] of [
          ["code", t.access_token],
          ["refresh", r.body.access_token],
        ]) {
          const modern = await fetch(mcp, modernInit("tools/list", accessToken));
          assertEqual(modern.status, 200, `2026-07-28 tools/list with the ${name} token`);
          const init = {
            id: 1,
            method: "initialize",
            params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "e2e-oauth", version: "0.0.0" } },
          };
          const res = await fetch(mcp, legacyInit(init, accessToken));
          assertEqual(res.status, 200, `2025-11-25 initialize with the ${name} token`);
          const list = await fetch(mcp, legacyInit({ id: 2, method: "tools/list" }, accessToken, res.headers.get("Mcp-Session-Id")));
          assertEqual(list.status, 200, `2025-11-25 tools/list with the ${name} token`);
        }
        const other = await client.token({
          grant_type: "refresh_token",
          refresh_token: r.body.refresh_token,
          resource: "https://other.example/mcp",
        });
        assertEqual([other.status, other.body.error], [400, "invalid_target"], "refresh naming another resource");
      },
    );

    await check(
      "consent page (prompt=consent): framing forbidden, bound to this browser; Allow gives a code, Deny access_denied",
      async () => {
        const a = client.authorizeUrl({ login_hint: "carol", prompt: "consent" });
        const page = await fetch(a.url, { redirect: "manual" });
        const html = await page.text();
        assertEqual(page.status, 200, "page status");
        assertEqual(page.headers.get("X-Frame-Options"), "DENY", "X-Frame-Options");
        assert(html.includes("e2e OAuth client") && html.includes("demo-carol"), "page lacks the client or the user");
        const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
        assert(handle, "no handle in the form");
        const cookies = page.headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ");
        assert(cookies, "no binding cookie");
        const post = (decision) =>
          fetch(a.url, {
            method: "POST",
            redirect: "manual",
            headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies },
            body: new URLSearchParams({ handle, decision }),
          });
        const code = client.codeFrom(await post("approve"), a.state);
        const t = await client.token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: a.verifier });
        assertEqual(t.status, 200, `token (${JSON.stringify(t.body)})`);
        const again = await post("approve");
        assertEqual(again.status, 400, "a used consent handle");
        const d = client.authorizeUrl({ login_hint: "carol", prompt: "consent" });
        const page2 = await fetch(d.url, { redirect: "manual" });
        const handle2 = /name="handle" value="([^"]+)"/.exec(await page2.text())?.[1];
        const cookie2 = page2.headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ");
        const deny = await fetch(d.url, {
          method: "POST",
          redirect: "manual",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie2 },
          body: new URLSearchParams({ handle: handle2, decision: "deny" }),
        });
        assertEqual(deny.status, 302, "deny status");
        assertEqual(new URL(deny.headers.get("Location")).searchParams.get("error"), "access_denied", "deny error");
      },
    );

    await check(
      "CIMD: an https client_id is looked up (needs outbound network); unresolvable → local error, no redirect",
      async () => {
        const a = client.authorizeUrl({
          client_id: "https://client.invalid/oauth/client-metadata.json",
          redirect_uri: "https://client.invalid/callback",
        });
        const res = await fetch(a.url, { redirect: "manual" });
        const html = await res.text();
        assertEqual(res.status, 400, "status");
        assertEqual(res.headers.get("Location"), null, "Location");
        assert(html.includes("could not be verified"), `page: ${html.slice(0, 200)}`);
      },
      30_000,
    );

    // Red-team regressions. Each name says the behaviour; the defect it guards is in the comment.

    // The provider keeps its helpers in env.OAUTH_PROVIDER from the first request on and env is
    // one object per isolate: the second host's /authorize used the first host's issuer.
    await check("two allowed hosts in one isolate: each authorizes for its own origin, in either order", async () => {
      const port = new URL(origin).port;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `localhost:${port}`]) {
        const other = `http://${host}`;
        const c = oauthClient(other, fetchVia(origin));
        const meta = await c.discover();
        assertEqual(meta.issuer, other, `issuer on ${host}`);
        await c.register();
        const t = await c.login("dora"); // codeFrom checks iss = this origin's issuer
        const res = await fetchVia(origin)(`${other}/mcp`, modernInit("server/discover", t.access_token));
        assertEqual(res.status, 200, `token on ${host}/mcp`);
      }
    });

    // The demo decided "this machine" from the Host header, which the client writes.
    await check("demo auto-approve: a browser not on this machine is never approved, whatever Host it sends", async () => {
      const port = new URL(origin).port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
        const remote = fetchVia(origin, { "CF-Connecting-IP": "203.0.113.7" }); // what Cloudflare sets for a remote client
        const a = client.authorizeUrl({ login_hint: "mallory", resource: `http://${host}/mcp` });
        const url = new URL(a.url);
        url.host = host;
        const res = await remote(url);
        assertEqual(res.status, 403, `remote client on Host ${host}`);
        assertEqual(res.headers.get("Location"), null, `Location on Host ${host}`);
      }
      const local = client.authorizeUrl({ login_hint: "mallory" });
      assertEqual(
        (await fetchVia(origin, { "CF-Connecting-IP": "127.0.0.1" })(local.url)).status,
        302,
        "a browser on this machine is still approved",
      );
    });

    // One provider was kept per Host:port, for ever: a client cycling ports grew the isolate.
    await check(
      "provider cache is bounded: 1,500 Host ports leave the isolate heap within 1 MiB",
      async () => {
        const probe = await heapProbe(origin);
        try {
          const meta = (port) => rawStatus(origin, "/.well-known/oauth-authorization-server", { headers: { Host: `127.0.0.1:${port}` } });
          for (let p = 30_000; p < 30_050; p++) await meta(p); // warm up: fill the cache once
          const before = await probe.used();
          for (let p = 40_000; p < 41_500; p += 10) {
            const statuses = await Promise.all(Array.from({ length: 10 }, (_, k) => meta(p + k)));
            assert(
              statuses.every((r) => r.status === 200),
              `metadata on port ${p}: ${statuses.map((r) => r.status)}`,
            );
          }
          const after = await probe.used();
          console.log(`    heap ${kib(before)} → ${kib(after)} after 1,500 ports`);
          assert(after - before < 1024 * 1024, `heap grew by ${kib(after - before)}`);
        } finally {
          probe.close();
        }
      },
      120_000,
    );
  } finally {
    if (counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
    await server.stop();
  }

  // The same config without the demo switch: nobody is signed in, so nothing is approved.
  let plain;
  try {
    plain = await startWrangler({ config: CONFIG, vars: { ALLOWED_HOSTS: "localhost,127.0.0.1,[::1],lan.example" } });
  } catch (err) {
    await check("start wrangler dev --config wrangler.oauth.toml (no demo)", async () => {
      throw err;
    });
    return counts();
  }
  try {
    await check("without OAUTH_DEMO_AUTO_APPROVE nobody is approved: /authorize answers 403, no redirect", async () => {
      const c = oauthClient(plain.origin);
      await c.discover();
      await c.register();
      const res = await fetch(c.authorizeUrl().url, { redirect: "manual" });
      assertEqual(res.status, 403, "status");
      assertEqual(res.headers.get("Location"), null, "Location");
      assert((await res.text()).includes("signedInUser()"), "the page does not say where to plug in login");
    });
    // A plain-http request to an allowed non-loopback host failed to build an issuer: 500.
    await check("plain http on an allowed non-loopback host: 403 that says to use https, never 500", async () => {
      for (const p of ["/.well-known/oauth-authorization-server", "/authorize", "/oauth/token", "/oauth/register", "/mcp"]) {
        const res = await fetchVia(plain.origin)(`http://lan.example${p}`, p === "/mcp" ? modernInit("server/discover") : {});
        const text = await res.text();
        assertEqual(res.status, 403, `status on ${p} (${text.slice(0, 200)})`);
        assert(text.includes("https://lan.example"), `the answer on ${p} does not name the https URL: ${text.slice(0, 200)}`);
      }
    });
  } finally {
    await plain.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runOAuth();
  console.log(`oauth: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
