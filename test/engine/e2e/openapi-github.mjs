// Why: `fromOpenApi` must hold on a real API's document, not only on one we wrote. This compacts
// GitHub's (from @octokit/openapi, 1,223 operations) with `npm run openapi`, serves it from the
// fixture app (test/engine/openapi-app/) under `wrangler dev` against a local mock of the GitHub API
// (a Node server on 127.0.0.1 that answers a few endpoints and records what it was sent), and drives
// it with the official clients on both revisions: the whole list, a GET with path and query
// arguments, a POST with a flat body, a bad argument refused with nothing sent, and the credential
// the app's headers add reaching the mock but never a result. Then the same operations behind tool
// search and behind Code Mode (a Dynamic Worker from wrangler dev's worker_loaders), on both revisions.
//
//   node test/engine/e2e/openapi-github.mjs
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { writeCompact } from "../../../scripts/openapi.mjs";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startWrangler } from "./server.mjs";

const DOCUMENT = path.join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
/** Where github-document.js (the fixture's door) reads the compact form from. */
const COMPACT = path.join(ROOT, "test/.tmp/openapi/github.openapi.json");
const TOKEN = "ghp_e2e-credential-never-shown";
const REQ = { timeout: 20_000 };
const textOf = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");

/**
 * A few endpoints of the GitHub API, recording each request: the issues of a repository (GET, with
 * its query), a new issue (POST, echoing the fields it was sent), and a user.
 */
export async function startGitHubMock() {
  /** @type {{ method: string, url: string, headers: import("node:http").IncomingHttpHeaders, body: string }[]} */
  const received = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      const { pathname, searchParams } = new URL(req.url, "http://mock");
      const json = (status, value) => {
        res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(value));
      };
      let m;
      if (req.method === "GET" && (m = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(pathname)))
        return json(200, [
          { number: 1, title: `First issue of ${m[1]}/${m[2]}`, state: searchParams.get("state") ?? "open", labels: [] },
          { number: 2, title: "Second", state: searchParams.get("state") ?? "open", labels: [] },
        ]);
      if (req.method === "POST" && (m = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(pathname))) {
        const sent = JSON.parse(body || "{}");
        return json(201, {
          number: 42,
          title: sent.title,
          body: sent.body ?? null,
          labels: sent.labels ?? [],
          repository: `${m[1]}/${m[2]}`,
        });
      }
      // A download answers with a redirect elsewhere; following it would carry the credential along.
      if (req.method === "GET" && /^\/repos\/[^/]+\/[^/]+\/tarball\/[^/]+$/.test(pathname)) {
        res.writeHead(302, { Location: `http://${req.headers.host}/elsewhere/archive.tar.gz` });
        return res.end();
      }
      if (req.method === "GET" && (m = /^\/users\/([^/]+)$/.exec(pathname))) return json(200, { login: decodeURIComponent(m[1]), id: 1 });
      json(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(() => r(undefined))) };
}

/** Every tool, page after page. */
async function allTools(list) {
  const tools = [];
  let cursor;
  for (let pages = 0; pages < 100; pages++) {
    const page = await list(cursor);
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * The calls both revisions make, through `client` (one of the official clients, connected); `call`
 * calls a tool with it (the SDK 1.x client takes a result schema before its options).
 */
async function drive(prefix, client, call, mock, { check }) {
  await check(`${prefix}: tools/list lists GitHub's operations, each named within 64 characters of [A-Za-z0-9_-], unique`, async () => {
    const tools = await allTools((cursor) => client.listTools(cursor ? { cursor } : undefined, REQ));
    assert(tools.length >= 1000, `only ${tools.length} tools`);
    const names = tools.map((t) => t.name);
    assertEqual(new Set(names).size, names.length, "unique names");
    assert(
      names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)),
      `a bad name: ${names.find((n) => !/^[A-Za-z0-9_-]{1,64}$/.test(n))}`,
    );
    const create = tools.find((t) => t.name === "issues_create");
    assertEqual(create?.title, "Create an issue", "issues_create title");
    assertEqual(
      create.annotations,
      { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      "annotations",
    );
    assertEqual(create.inputSchema.required, ["owner", "repo", "title"], "issues_create required");
    assert(create.inputSchema.properties.labels, "issues_create takes labels at the top level");
  });
  await check(`${prefix}: a GET with path and query arguments reaches the API as GitHub documents it`, async () => {
    const before = mock.received.length;
    const r = await call({
      name: "issues_list-for-repo",
      arguments: { owner: "octo-org", repo: "hello world", state: "closed", per_page: 2 },
    });
    assert(!r.isError, `isError: ${textOf(r)}`);
    const sent = mock.received.slice(before);
    assertEqual(sent.length, 1, "requests sent");
    assertEqual(sent[0].method, "GET", "method");
    assertEqual(sent[0].url, "/repos/octo-org/hello%20world/issues?state=closed&per_page=2", "path and query");
    assertEqual(
      r.structuredContent.result.map((i) => i.state),
      ["closed", "closed"],
      "structured content",
    );
  });
  await check(`${prefix}: a POST with flat arguments sends the JSON body GitHub expects`, async () => {
    const before = mock.received.length;
    const r = await call({
      name: "issues_create",
      arguments: { owner: "octo-org", repo: "hello", title: "It broke", body: "Steps…", labels: ["bug"] },
    });
    assert(!r.isError, `isError: ${textOf(r)}`);
    const [sent] = mock.received.slice(before);
    assertEqual([sent.method, sent.url], ["POST", "/repos/octo-org/hello/issues"], "request line");
    assertEqual(JSON.parse(sent.body), { title: "It broke", body: "Steps…", labels: ["bug"] }, "body");
    assertEqual(sent.headers["content-type"], "application/json", "content type");
    assertEqual(r.structuredContent.number, 42, "the API's answer as structured content");
  });
  await check(`${prefix}: a bad argument is a tool error naming the field, and nothing is sent`, async () => {
    const before = mock.received.length;
    const missing = await call({ name: "issues_create", arguments: { owner: "octo-org", repo: "hello" } });
    assert(missing.isError === true && /title: required/.test(textOf(missing)), `missing title: ${textOf(missing)}`);
    const wrong = await call({ name: "issues_list-for-repo", arguments: { owner: "o", repo: "r", state: "merged" } });
    assert(wrong.isError === true && /state: must be one of/.test(textOf(wrong)), `bad state: ${textOf(wrong)}`);
    assertEqual(mock.received.length, before, "requests sent");
  });
  await check(`${prefix}: the app's credential reaches the API and never a result, nor follows a redirect`, async () => {
    const before = mock.received.length;
    const r = await call({ name: "users_get-by-username", arguments: { username: "octocat" } });
    assertEqual(r.structuredContent, { login: "octocat", id: 1 }, "structured content");
    const [sent] = mock.received.slice(before);
    assertEqual(sent.headers.authorization, `Bearer ${TOKEN}`, "Authorization sent upstream");
    assertEqual(sent.headers["x-github-api-version"], "2022-11-28", "API version header");
    assert(!JSON.stringify(r).includes(TOKEN), "the credential is in the result");
    const moved = await call({ name: "repos_download-tarball-archive", arguments: { owner: "octo-org", repo: "hello", ref: "main" } });
    assertEqual(moved.structuredContent?.status, 302, "a redirect is answered as it is");
    assert(String(moved.structuredContent?.location).endsWith("/elsewhere/archive.tar.gz"), `location: ${textOf(moved)}`);
    assert(!mock.received.some((r) => r.url.startsWith("/elsewhere")), "the redirect was followed (with the credential)");
    const failed = await call({ name: "repos_get", arguments: { owner: "nobody", repo: "nothing" } });
    assert(failed.isError === true && /answered repos_get with 404/.test(textOf(failed)), `404: ${textOf(failed)}`);
    assert(!JSON.stringify(failed).includes(TOKEN), "the credential is in an error");
  });
}

/** Tool search over the same operations: a few tools listed, the right one found, a call made through it as a direct one. */
async function driveToolSearch(prefix, client, call, mock, { check }) {
  await check(`${prefix}: tool search lists search_tools and call_tool in place of GitHub's 1,223 operations`, async () => {
    const { tools } = await client.listTools(undefined, REQ);
    assertEqual(
      tools.map((t) => t.name),
      ["search_tools", "call_tool"],
      "listed tools",
    );
  });
  await check(`${prefix}: search_tools finds issues_create for "open a new issue in a repository", with its input schema`, async () => {
    const r = await call({ name: "search_tools", arguments: { query: "open a new issue in a repository", limit: 5 } });
    const found = r.structuredContent?.tools ?? [];
    const create = found.find((t) => t.name === "issues_create");
    assert(create, `not in the top 5: ${found.map((t) => t.name).join(", ")}`);
    assertEqual(create.inputSchema.required, ["owner", "repo", "title"], "its input schema");
  });
  await check(`${prefix}: call_tool makes the POST GitHub expects, answering what a direct call answers`, async () => {
    const before = mock.received.length;
    const args = { owner: "octo-org", repo: "hello", title: "Through search", labels: ["bug"] };
    const r = await call({ name: "call_tool", arguments: { name: "issues_create", arguments: args } });
    assert(!r.isError, `isError: ${textOf(r)}`);
    const [sent] = mock.received.slice(before);
    assertEqual([sent.method, sent.url], ["POST", "/repos/octo-org/hello/issues"], "request line");
    assertEqual(JSON.parse(sent.body), { title: "Through search", labels: ["bug"] }, "body");
    assertEqual(r.structuredContent.number, 42, "the API's answer as structured content");
    const direct = await call({ name: "issues_create", arguments: args });
    assertEqual(r.structuredContent, direct.structuredContent, "the same as a direct tools/call");
  });
}

/** Code Mode over the same operations: the model's code calls two of them, each a governed inner call. */
async function driveCodeMode(prefix, client, call, mock, { check }) {
  await check(`${prefix}: Code Mode lists search_tools and execute`, async () => {
    const { tools } = await client.listTools(undefined, REQ);
    assertEqual(
      tools.map((t) => t.name),
      ["search_tools", "execute"],
      "listed tools",
    );
  });
  await check(`${prefix}: execute runs code whose tools.x() reach the API with the app's credential, never the sandbox's`, async () => {
    const before = mock.received.length;
    const code = [
      'const issue = await tools.issues_create({ owner: "octo-org", repo: "hello", title: "From code" });',
      'const user = await tools["users_get-by-username"]({ username: "octocat" });',
      'console.log("made", issue.number);',
      "return { number: issue.number, login: user.login };",
    ].join("\n");
    const r = await call({ name: "execute", arguments: { code } });
    assert(!r.isError, `isError: ${textOf(r)}`);
    assertEqual(r.structuredContent.result, { number: 42, login: "octocat" }, "the code's return value");
    const sent = mock.received.slice(before);
    assertEqual(
      sent.map((q) => `${q.method} ${q.url}`),
      ["POST /repos/octo-org/hello/issues", "GET /users/octocat"],
      "requests",
    );
    assert(
      sent.every((q) => q.headers.authorization === `Bearer ${TOKEN}`),
      "each inner call carries the app's credential",
    );
    assert(!JSON.stringify(r).includes(TOKEN), "the credential is in the result");
  });
  await check(`${prefix}: code that calls fetch gets no network, and the server keeps serving`, async () => {
    const r = await call({ name: "execute", arguments: { code: 'return await fetch("http://127.0.0.1:1/")' } });
    assert(r.isError === true, `fetch was allowed: ${textOf(r)}`);
    const again = await call({ name: "execute", arguments: { code: "return 1 + 1" } });
    assertEqual(again.structuredContent?.result, 2, "the next execute");
  });
}

/**
 * Serves `config` under wrangler dev against `mock` and drives it with client 2.4.0 (2026-07-28) and
 * SDK 1.32.2 (a 2025-11-25 session), each through `driver`.
 */
async function serveAndDrive(config, driver, mock, checks) {
  const server = await startWrangler({ config, vars: { GITHUB_API_URL: mock.url, GITHUB_TOKEN: TOKEN } });
  try {
    /** @type {Client | undefined} */
    let modern;
    const connected = await checks.check(`${config}: client 2.4.0 connects, pinned to 2026-07-28`, async () => {
      modern = new Client({ name: "openapi-e2e", version: "0.0.1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await modern.connect(new StreamableHTTPClientTransport(new URL(server.url)), REQ);
    });
    if (connected) await driver("2026-07-28", modern, (params) => /** @type {Client} */ (modern).callTool(params, REQ), mock, checks);
    await modern?.close().catch(() => {});
    /** @type {ClientV1 | undefined} */
    let legacy;
    const opened = await checks.check(`${config}: sdk 1.32.2 opens a 2025-11-25 session`, async () => {
      legacy = new ClientV1({ name: "openapi-e2e", version: "0.0.1" }, { capabilities: {} });
      await legacy.connect(new TransportV1(new URL(server.url)), REQ);
    });
    if (opened)
      await driver("2025-11-25", legacy, (params) => /** @type {ClientV1} */ (legacy).callTool(params, undefined, REQ), mock, checks);
    await legacy?.close().catch(() => {});
    if (checks.counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
  } finally {
    await server.stop();
  }
}

/**
 * Writes the compact form the fixture (test/engine/openapi-app/github-document.js) imports; a step
 * that serves the fixture with another surface calls it first, then `startGitHubMock`.
 */
export async function writeGitHubCompact() {
  mkdirSync(path.dirname(COMPACT), { recursive: true });
  return writeCompact(DOCUMENT, COMPACT);
}

export async function runOpenApiGitHub() {
  const checks = createChecks("openapi-github");
  const compact = await writeGitHubCompact();
  console.log(
    `  npm run openapi: ${compact.operations} operations, ${(compact.inBytes / 1e6).toFixed(1)} MB → ${(compact.outBytes / 1e6).toFixed(2)} MB`,
  );
  const mock = await startGitHubMock();
  let server;
  try {
    server = await startWrangler({
      config: "test/engine/openapi-app/wrangler.toml",
      vars: { GITHUB_API_URL: mock.url, GITHUB_TOKEN: TOKEN },
    });
    /** @type {Client | undefined} */
    let modern;
    const connected = await checks.check("client 2.4.0: connect, pinned to 2026-07-28", async () => {
      modern = new Client({ name: "openapi-e2e", version: "0.0.1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await modern.connect(new StreamableHTTPClientTransport(new URL(server.url)), REQ);
      assertEqual(modern.getNegotiatedProtocolVersion(), "2026-07-28", "negotiated version");
    });
    if (connected) await drive("2026-07-28", modern, (params) => /** @type {Client} */ (modern).callTool(params, REQ), mock, checks);
    await modern?.close().catch(() => {});
    /** @type {ClientV1 | undefined} */
    let legacy;
    const opened = await checks.check("sdk 1.32.2: connect, a 2025-11-25 session", async () => {
      legacy = new ClientV1({ name: "openapi-e2e", version: "0.0.1" }, { capabilities: {} });
      const transport = new TransportV1(new URL(server.url));
      await legacy.connect(transport, REQ);
      assertEqual(transport.protocolVersion, "2025-11-25", "negotiated version");
    });
    if (opened)
      await drive("2025-11-25", legacy, (params) => /** @type {ClientV1} */ (legacy).callTool(params, undefined, REQ), mock, checks);
    await legacy?.close().catch(() => {});
    if (checks.counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
  } catch (err) {
    await checks.check("the fixture starts", () => Promise.reject(err));
  } finally {
    await server?.stop();
  }
  // The same operations behind each small surface, each inner call governed as a direct one.
  try {
    await serveAndDrive("test/engine/openapi-app/wrangler.search.toml", driveToolSearch, mock, checks);
    await serveAndDrive("test/engine/openapi-app/wrangler.code.toml", driveCodeMode, mock, checks);
  } catch (err) {
    await checks.check("the surface fixtures start", () => Promise.reject(err));
  } finally {
    await mock.close();
  }
  return checks.counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = await runOpenApiGitHub();
  console.log(`openapi-github: ${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}
