// Why: `npm run test:all` is the engine's whole suite, run by CI on every change (`npm test` is the
// fork's one-minute loop). It goes from cheapest to most expensive and stops at the first failure:
// the app's definitions (half a second), typecheck, every static check (scripts/checks/), the fork's tests
// (vitest.config.ts), the engine's workerd integration tests (vitest.engine.config.ts), the bundle
// budget and an extension-free bundle free of the extensions' code, the fork drill, then end-to-end runs against real `wrangler dev` servers (official MCP
// client on 2026-07-28; SDK 1.32.2 and client 2.4.0 on 2025-11-25 sessions; the README's client
// snippets and the dev scripts; official conformance suite; tasks across a server restart; the
// opt-in OAuth entry; `npm run doctor` against each fault class). Helpers live in test/engine/e2e/.
import { CHECKS } from "./checks/index.mjs";
import { appCheck, command, createRunner, staticCheck } from "./test-steps.mjs";
import { bundleCheck } from "../test/engine/e2e/bundle.mjs";
import { extensionCostCheck } from "../test/engine/e2e/ext-cost.mjs";
import { runClientLegacy } from "../test/engine/e2e/client-legacy.mjs";
import { runClientModern } from "../test/engine/e2e/client-modern.mjs";
import { runClientOwn } from "../test/engine/e2e/client-own.mjs";
import { runConformance } from "../test/engine/e2e/conformance.mjs";
import { runConformanceClient } from "../test/engine/e2e/conformance-client.mjs";
import { runTasksRestart } from "../test/engine/e2e/tasks-restart.mjs";
import { runSpans, runSpansOff } from "../test/engine/e2e/spans.mjs";
import { runNotifyRestart } from "../test/engine/e2e/notify-restart.mjs";
import { runEventsE2e } from "../test/engine/e2e/events.mjs";
import { runForkDrill } from "../test/engine/e2e/fork-drill.mjs";
import { runExtensions } from "../test/engine/e2e/extensions.mjs";
import { runConnect } from "../test/engine/e2e/connect.mjs";
import { runDoctor } from "../test/engine/e2e/doctor.mjs";
import { runOAuth } from "../test/engine/e2e/oauth.mjs";
import { runOAuthBrowser } from "../test/engine/e2e/oauth-browser.mjs";
import { runOAuthConformance } from "../test/engine/e2e/oauth-conformance.mjs";
import { withEngineApp } from "../test/engine/e2e/server.mjs";

const { step, e2eStep, finish, skipped, e2e } = createRunner("npm run test:all");

await step(...appCheck);
await step("typecheck (tsc --noEmit)", command("tsc", ["--noEmit"], 180_000));
// Static checks (scripts/checks/): layering of src/, README and docs/ snippets and links, freshness of the
// generated Env types. Each proves on a planted tree that it can fail before it judges ours.
for (const entry of CHECKS) await step(...staticCheck(entry.id));
await step("the fork's tests and the app checks (vitest run, vitest.config.ts)", command("vitest", ["run"], 300_000));
await step("engine unit tests (vitest run -c vitest.unit.config.ts, Node, no workerd)", command("vitest", ["run", "-c", "vitest.unit.config.ts"], 120_000));
await step("engine integration (vitest run -c vitest.engine.config.ts, workerd)", command("vitest", ["run", "-c", "vitest.engine.config.ts"], 600_000));
await step("bundle (wrangler deploy --dry-run, gzip budget)", async () => {
  const r = await bundleCheck();
  console.log(`  ${r.message}`);
  return r.ok;
});
await step("bundle: an app without extensions carries none of their code, and stays within its gzip budget (test/engine/e2e/ext-cost.mjs, esbuild)", async () => {
  const r = await extensionCostCheck();
  console.log(r.message.replace(/^/gm, "  "));
  return r.ok;
});

// The fork drill (test/engine/e2e/fork-drill.mjs): scratch forks with their own app, test file and binding
// must pass `npm test` and the engine's tests and serve on both revisions under `npm run dev` (D1 migrated,
// stack traces into src/, stopped by SIGTERM to npm); one with definition
// mistakes must fail `npm test` and `npm run deploy`, naming each mistake.
await step("e2e: fork drill (scratch forks: own tests, KV and D1 with a migration under npm test, npm run dev and a deploy dry run; definition mistakes; a view)", e2eStep(runForkDrill));

await step("e2e: official client, 2026-07-28, engine test app (wrangler dev)", e2eStep(() => withEngineApp(runClientModern)));
await step("e2e: SDK 1.32.2 + client 2.4.0 legacy, 2025-11-25 sessions, engine test app (wrangler dev)", e2eStep(() => withEngineApp(runClientLegacy)));

// docs/connect.md and the README's "Connect a client": their marked blocks (curl, Inspector CLI and UI, mcp-remote, the
// TypeScript clients) run as written against the engine test app; then `npm run dev` and
// `npm run dev:conformance` with wrangler's --port/--ip after `--`.
await step("e2e: README and docs/connect.md client snippets + npm dev scripts' port flags (wrangler dev)", e2eStep(runConnect));

// Opt-in OAuth entry (src/engine/oauth/, wrangler.oauth.toml): both bundles, then discovery, DCR,
// authorization code + PKCE, tokens on both revisions and session binding under `wrangler dev`.
await step("e2e: OAuth authorization server (workers-oauth-provider), wrangler.oauth.toml (wrangler dev)", e2eStep(runOAuth));

// The OAuth entry judged from outside: the official suite in authorization-server mode (RFC 8414
// metadata + an authorization-code grant the demo approves), then the consent page in headless
// Chromium (a missing Chromium is reported as skipped below, and fails under CI).
await step("e2e: OAuth entry vs conformance authorization (metadata + code grant), wrangler dev", e2eStep(runOAuthConformance));
await step("e2e: OAuth consent page in headless Chromium, DCR → consent → token → MCP on both revisions", e2eStep(async () => {
  const r = await runOAuthBrowser();
  if (r.skipped) skipped.push(`OAuth consent page in a browser (${r.skipped})`);
  return r;
}));

// MCP Apps views (the example's view, a Static Asset) on both revisions, then in headless Chromium
// against a simulated host (a missing Chromium is reported as skipped below, and fails under CI).
await step("e2e: MCP Apps view of the example app, both revisions + headless Chromium host (wrangler dev)", e2eStep(async () => {
  const r = await runExtensions();
  if (r.skipped) skipped.push(`MCP Apps view in a browser (${r.skipped})`);
  return r;
}));

// Conformance hook: test/engine/e2e/conformance.mjs serves test/engine/conformance/wrangler.toml (the
// fixture app, also `npm run dev:conformance`) and runs the official suite. Add or change
// suite invocations in its RUNS list; it skips, without failing, while the fixture is absent.
await step("e2e: conformance suite 0.2.0-alpha.12, fixture server (wrangler dev)", e2eStep(async () => {
  const r = await runConformance();
  return r;
}));

// Tasks outlive their server: a task on each revision is killed mid-step with the whole
// `wrangler dev`, and a new server on the same persisted state runs it to its result.
await step("e2e: tasks survive a server restart (lease re-run), both revisions, engine test app (wrangler dev)", e2eStep(runTasksRestart));
// docs/tracing.md: the spans of real requests, read from wrangler dev's local trace store.
await step("e2e: one span per MCP operation, both revisions, hub and task runs across a restart; TRACING=off (wrangler dev trace store)", e2eStep(async () => {
  const on = await runSpans();
  const off = await runSpansOff();
  return { passed: on.passed + off.passed, failed: on.failed + off.failed };
}));

// 2025 notifications outlive their server: published while a session's GET stream is down across a
// restart of the whole `wrangler dev`, they come back with Last-Event-ID from the hub shard's log.
await step("e2e: 2025 notifications published across a server restart come back with Last-Event-ID (wrangler dev)", e2eStep(runNotifyRestart));
await step("e2e: MCP Events webhooks checked by standardwebhooks, retries, delivery across a server restart, conformance fixture (wrangler dev)", e2eStep(runEventsE2e));

// The engine's own client (src/engine/client): both revisions against the engine test app, listen and
// resumption against the fixture, and a Worker tool (test/engine/client-app) calling the fixture through it.
await step("e2e: own client (src/engine/client) on both revisions, engine app + fixture + client-app (wrangler dev)", e2eStep(runClientOwn));

// `npm run doctor` against the engine app and the OAuth entry behind a proxy that reproduces one fault at
// a time (an edge 403 for Claude-User, a Host not allowed, a redirect, stripped CORS, lost sessions, slow
// discovery, a token endpoint needing `resource`, metadata for another resource): each named with its fix,
// and no fault on the healthy servers.
await step("e2e: npm run doctor names each fault in front of a deployment, and none on a healthy one (wrangler dev + fault proxy)", e2eStep(runDoctor));

// The official suite judging that client: `npm run conformance-client`, both requirement sets side by side.
await step("e2e: conformance suite 0.2.0-alpha.12, client scenarios (npm run conformance-client)", e2eStep(runConformanceClient));

console.log(`\ne2e: ${e2e.passed} passed, ${e2e.failed} failed`);
finish();
