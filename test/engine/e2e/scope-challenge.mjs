// Why: the conformance suite's next server scenario (`sep-2350-server-scope-challenge`) is not in the
// package we pin (0.2.0-alpha.12), so this checks its contract against the fixture under `wrangler dev`
// (real HTTP, the real 2025 session object): the low token is challenged for every pair with both
// scopes in one 403, the full token gets the result, on 2026-07-28 and in one 2025-11-25 session that
// steps up; a request without a token is served as before. runConformance() runs it on its server.
import { fileURLToPath } from "node:url";
import { inOneLimiterWindow } from "../helpers/limiter-window.ts";
import { buildModernRequest, initializeHeaders, initializeMessage, legacyHeaders, requestMessage } from "../wire/index.ts";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startWrangler } from "./server.mjs";

const LOW = "mcp-conformance-scope-low";
const FULL = "mcp-conformance-scope-full";

export const SCOPE_PAIRS = [
  {
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {} },
    scopes: ["mcp:conformance:tools:call", "mcp:conformance:tools:test_simple_text"],
  },
  {
    method: "resources/read",
    params: { uri: "test://static-text" },
    scopes: ["mcp:conformance:resources:read", "mcp:conformance:resources:static"],
  },
  {
    method: "resources/read",
    params: { uri: "test://template/123/data" },
    scopes: ["mcp:conformance:resources:read", "mcp:conformance:resources:template:123"],
  },
  {
    method: "prompts/get",
    params: { name: "test_simple_prompt" },
    scopes: ["mcp:conformance:prompts:get", "mcp:conformance:prompts:test_simple_prompt"],
  },
];

const bearer = (token) => (token ? { Authorization: `Bearer ${token}` } : {});

/** Throws unless `res` is the step-up challenge for `scopes`, answering request `id`. */
async function assertChallenge(res, scopes, id, url, what) {
  assertEqual(res.status, 403, `${what}: status`);
  const header = res.headers.get("WWW-Authenticate") ?? "";
  const metadata = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
  assertEqual(
    header,
    `Bearer error="insufficient_scope", resource_metadata="${metadata}", scope="${scopes.join(" ")}"`,
    `${what}: WWW-Authenticate`,
  );
  const body = await res.json();
  assertEqual(body.id, id, `${what}: the JSON-RPC error's id`);
  assert(body.error?.code === -32003, `${what}: error ${JSON.stringify(body.error)}`);
  const meta = await fetch(metadata, { signal: AbortSignal.timeout(10_000) });
  assertEqual(meta.status, 200, `${what}: the resource_metadata URL answers`);
}

/** The contract's checks against the fixture at `url`; returns e2e counts. */
export async function scopeChallengeChecks(url) {
  const { check, counts } = createChecks("scope challenge");
  const post = (headers, body) => fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const modern = (pair, token) => {
    const { message, headers } = buildModernRequest(pair.method, pair.params);
    return { id: message.id, res: post({ ...headers, ...bearer(token) }, message) };
  };

  for (const pair of SCOPE_PAIRS) {
    const label = `${pair.method} ${pair.params.name ?? pair.params.uri}`;
    await check(`2026-07-28 ${label}: low → 403 naming both scopes; full → the result`, async () => {
      const low = modern(pair, LOW);
      await assertChallenge(await low.res, pair.scopes, low.id, url, "low");
      const full = await modern(pair, FULL).res;
      assertEqual(full.status, 200, "full: status");
      const body = await full.json();
      assert(body.result && !body.error, `full: ${JSON.stringify(body).slice(0, 200)}`);
    });
  }

  await check("2025-11-25: one session, opened with the low token, is challenged for each pair and goes on after the step-up", async () => {
    const init = await post({ ...initializeHeaders(), ...bearer(LOW) }, initializeMessage());
    assertEqual(init.status, 200, "initialize");
    const sessionId = init.headers.get("Mcp-Session-Id");
    assert(sessionId, "a session id");
    for (const pair of SCOPE_PAIRS) {
      const what = `${pair.method} ${pair.params.name ?? pair.params.uri}`;
      const refused = requestMessage(pair.method, pair.params);
      await assertChallenge(
        await post({ ...legacyHeaders(sessionId), ...bearer(LOW) }, refused),
        pair.scopes,
        refused.id,
        url,
        `${what} low`,
      );
      const retry = requestMessage(pair.method, pair.params);
      const stepped = await post({ ...legacyHeaders(sessionId), ...bearer(FULL) }, retry);
      assertEqual(stepped.status, 200, `${what} full: status`);
      const body = await stepped.json();
      assert(body.id === retry.id && body.result && !body.error, `${what} full: ${JSON.stringify(body).slice(0, 200)}`);
    }
  });

  await check("without a token the fixture serves the operation as before", async () => {
    const res = await modern(SCOPE_PAIRS[0]).res;
    assertEqual(res.status, 200, "status");
  });
  return counts();
}

/**
 * The scoped fixture app (test/engine/scoped-app) under its own `wrangler dev`: in a 2025-11-25 session, whose
 * object runs the handlers, ctx.auth, a handler's InsufficientScope, hidden lists and the per-tool
 * rate limit of the policy; and ctx.auth on 2026-07-28. Returns e2e counts.
 */
export async function runScopedApp() {
  const { check, counts } = createChecks("scoped app");
  let server;
  try {
    server = await startWrangler({ config: "test/engine/scoped-app/wrangler.toml" });
  } catch (err) {
    console.log(`  ✗ scoped app: could not start: ${err.message}`);
    return { passed: 0, failed: 1 };
  }
  const { url } = server;
  const post = (headers, body) => fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  try {
    let sessionId;
    const inSession = async (token, method, params) => {
      const msg = requestMessage(method, params);
      const res = await post({ ...legacyHeaders(sessionId), ...bearer(token) }, msg);
      return { msg, res, body: res.status === 200 ? await res.json() : undefined };
    };
    await check(
      "2025-11-25: the session's handlers see ctx.auth (the claims the app names, never the token); lists hide what the caller cannot use",
      async () => {
        const init = await post({ ...initializeHeaders(), ...bearer("reader") }, initializeMessage());
        sessionId = init.headers.get("Mcp-Session-Id");
        assert(init.status === 200 && sessionId, `initialize: ${init.status}`);
        const who = await inSession("reader", "tools/call", { name: "whoami", arguments: {} });
        assertEqual(
          JSON.parse(who.body.result.content[0].text),
          { principal: "alice", scopes: ["notes:read"], claims: { email: "alice@example.test" } },
          "ctx.auth",
        );
        assertEqual(
          (await inSession("reader", "tools/list", {})).body.result.tools.map((t) => t.name),
          ["whoami", "search"],
          "the reader's tools",
        );
        assertEqual(
          (await inSession("writer", "tools/list", {})).body.result.tools.map((t) => t.name),
          ["whoami", "delete_note", "export_notes", "search"],
          "the writer's tools",
        );
      },
    );
    await check(
      "2025-11-25: a declared scope and a handler's InsufficientScope are both the 403 challenge; the session goes on after each step-up",
      async () => {
        const refused = await inSession("reader", "tools/call", { name: "delete_note", arguments: { id: "n1" } });
        await assertChallenge(refused.res, ["notes:write"], refused.msg.id, url, "reader");
        assertEqual(
          (await inSession("writer", "tools/call", { name: "delete_note", arguments: { id: "n1" } })).body.result.content[0].text,
          "deleted n1",
          "writer",
        );
        const archived = await inSession("writer", "tools/call", { name: "delete_note", arguments: { id: "archived-1" } });
        await assertChallenge(archived.res, ["notes:write", "notes:admin"], archived.msg.id, url, "writer on an archived note");
        assertEqual(
          (await inSession("admin", "tools/call", { name: "delete_note", arguments: { id: "archived-1" } })).body.result.content[0].text,
          "deleted archived-1",
          "admin",
        );
      },
    );
    await check("2025-11-25: a task tool is checked before its task is made", async () => {
      const made = await inSession("reader", "tools/call", { name: "export_notes", arguments: {}, task: { ttl: 60_000 } });
      await assertChallenge(made.res, ["notes:write"], made.msg.id, url, "reader making the task");
      const task = (await inSession("writer", "tools/call", { name: "export_notes", arguments: {}, task: { ttl: 60_000 } })).body.result
        .task;
      assert(task?.taskId, "the writer made a task");
      assertEqual(
        (await inSession("writer", "tasks/get", { taskId: task.taskId })).body.result.taskId,
        task.taskId,
        "the writer reaches it",
      );
    });
    await check("2025-11-25: over the per-tool limit a call is a tool result with isError and the retry time, not a 429", async () => {
      await inOneLimiterWindow();
      for (let i = 0; i < 3; i++)
        assert(!(await inSession("reader", "tools/call", { name: "search", arguments: { q: `q${i}` } })).body.result.isError, `call ${i}`);
      const limited = await inSession("reader", "tools/call", { name: "search", arguments: { q: "q4" } });
      assertEqual(limited.res.status, 200, "status");
      assert(
        limited.body.result.isError === true && /try again in 60 seconds/.test(limited.body.result.content[0].text),
        JSON.stringify(limited.body.result),
      );
    });
    await check("2026-07-28: ctx.auth, and the handler's InsufficientScope as the 403 challenge", async () => {
      const call = async (token, name, args) => {
        const { message, headers } = buildModernRequest("tools/call", { name, arguments: args });
        return { id: message.id, res: await post({ ...headers, ...bearer(token) }, message) };
      };
      const who = await call("admin", "whoami", {});
      assertEqual(JSON.parse((await who.res.json()).result.content[0].text).scopes, ["notes:admin"], "ctx.auth.scopes");
      const archived = await call("writer", "delete_note", { id: "archived-2" });
      await assertChallenge(archived.res, ["notes:write", "notes:admin"], archived.id, url, "writer on an archived note");
    });
  } finally {
    await server.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startWrangler({ config: "test/engine/conformance/wrangler.toml" });
  let r;
  try {
    r = await scopeChallengeChecks(server.url);
  } finally {
    await server.stop();
  }
  const app = await runScopedApp();
  console.log(`scope challenge: ${r.passed + app.passed} passed, ${r.failed + app.failed} failed`);
  process.exit(r.failed + app.failed ? 1 : 0);
}
