// Why: `npm run test:all` is the engine's whole suite, run by CI on every change (`npm test` is the
// fork's one-minute loop). Its steps are one table, cheapest first: the app's definitions, typecheck,
// every static check (scripts/checks/), the fork's tests, the engine's unit and workerd integration
// tests, the bundle budgets, then end-to-end runs against real `wrangler dev` servers (the fork and
// upgrade drills, official clients on both revisions, the README's client snippets, the OAuth entry,
// the official conformance suite, tasks and notifications across restarts, spans, the doctor). It
// stops at the first failure and prints every step's time; the times of a full run are written to
// test/.tmp/test-all-timings.json, which `npm run figures` turns into docs/figures.md.
//
//   npm run test:all                        every step, one after another (CI)
//   npm run test:all -- --list              the steps' ids
//   npm run test:all -- --only doctor,oauth the steps whose id or name contains one of the words
//   npm run test:all -- --jobs 2            e2e steps two at a time, each in its own process (its
//                                           output printed whole when it ends); the steps before them
//                                           still run first, in order
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CHECKS } from "./checks/index.mjs";
import { ROOT, run } from "./lib/procs.mjs";
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
import { runUpgradeDrill } from "../test/engine/e2e/upgrade-drill.mjs";
import { runExtensions } from "../test/engine/e2e/extensions.mjs";
import { runOpenApiGitHub } from "../test/engine/e2e/openapi-github.mjs";
import { runConnect } from "../test/engine/e2e/connect.mjs";
import { runDoctor } from "../test/engine/e2e/doctor.mjs";
import { runDiscovery } from "../test/engine/e2e/discovery.mjs";
import { runOAuth } from "../test/engine/e2e/oauth.mjs";
import { runOAuthBrowser } from "../test/engine/e2e/oauth-browser.mjs";
import { runOAuthClients } from "../test/engine/e2e/oauth-clients.mjs";
import { runOAuthConformance } from "../test/engine/e2e/oauth-conformance.mjs";
import { withEngineApp } from "../test/engine/e2e/server.mjs";

/** A step that may report "skipped" (a missing browser): recorded, so nobody reads it as passed. */
const mayBeSkipped = (what, fn) => async (skipped) => {
  const r = await fn();
  if (r.skipped) skipped.push(`${what} (${r.skipped})`);
  return r;
};

/**
 * Every step: `id` (for --only), `name` (printed), `run` (a boolean for a plain step; `{ passed,
 * failed }` counts for an e2e step, which gets the list of skipped steps).
 * @type {{ id: string, name: string, run: any, e2e?: boolean }[]}
 */
const STEPS = [
  { id: "app-check", name: appCheck[0], run: appCheck[1] },
  { id: "lint", name: "lint and format (biome ci)", run: command("biome", ["ci", "--reporter=summary"], 60_000) },
  { id: "typecheck", name: "typecheck (tsc --noEmit)", run: command("tsc", ["--noEmit"], 180_000) },
  // The project's JavaScript (scripts/, the e2e runners, the bench harness) checked from its JSDoc.
  {
    id: "typecheck-scripts",
    name: "typecheck scripts and e2e (tsc -p tsconfig.scripts.json)",
    run: command("tsc", ["-p", "tsconfig.scripts.json", "--noEmit"], 180_000),
  },
  // Static checks (scripts/checks/): layering of src/, README and docs/ snippets and links, fresh Env types,
  // docs figures. Each proves on a planted tree that it can fail before it judges ours.
  ...CHECKS.map((entry) => {
    const [name, fn] = staticCheck(entry.id);
    return { id: `check-${entry.id}`, name, run: fn };
  }),
  {
    id: "fork-tests",
    name: "the fork's tests and the app checks (vitest run, vitest.config.ts)",
    run: command("vitest", ["run"], 300_000),
  },
  {
    id: "unit",
    name: "engine unit tests (vitest run -c vitest.unit.config.ts, Node, no workerd)",
    run: command("vitest", ["run", "-c", "vitest.unit.config.ts"], 120_000),
  },
  {
    id: "integration",
    name: "engine integration (vitest run -c vitest.engine.config.ts, workerd)",
    run: command("vitest", ["run", "-c", "vitest.engine.config.ts"], 900_000),
  },
  {
    id: "bundle",
    name: "bundle (wrangler deploy --dry-run, gzip budget)",
    run: async () => {
      const r = await bundleCheck();
      console.log(`  ${r.message}`);
      return r.ok;
    },
  },
  {
    id: "ext-cost",
    name: "bundle: an app without extensions carries none of their code, and stays within its gzip budget (test/engine/e2e/ext-cost.mjs, esbuild)",
    run: async () => {
      const r = await extensionCostCheck();
      console.log(r.message.replace(/^/gm, "  "));
      return r.ok;
    },
  },
  // `npm run bench` is run by hand, so its set-up is checked here: the harness loads, its configs
  // exist, and the earlier commits its start-up comparison builds still build (bench/lib/setup-check.mjs).
  {
    id: "bench-setup",
    name: "bench set-up (npm run bench -- --setup: harness, configs, earlier commits built)",
    run: command("node", ["scripts/bench.mjs", "--setup"], 240_000),
  },
  // Scratch forks with their own app, test file and bindings pass `npm test` and serve on both revisions
  // under `npm run dev` (D1 migrated, stack traces into src/, stopped by SIGTERM to npm); one with
  // definition mistakes fails `npm test` and `npm run deploy`, naming each mistake. The engine's suite
  // runs once, above, not again in each fork.
  {
    id: "fork-drill",
    e2e: true,
    name: "e2e: fork drill (scratch forks: own tests, KV and D1 with a migration under npm test, npm run dev and a deploy dry run; definition mistakes; a view)",
    run: runForkDrill,
  },
  // docs/upgrade.md as written: a fork made from an earlier template commit merges this one with no conflict.
  {
    id: "upgrade-drill",
    e2e: true,
    name: "e2e: upgrade drill (a fork of an earlier template version merges this one by docs/upgrade.md: no conflict, npm test green)",
    run: runUpgradeDrill,
  },
  {
    id: "client-modern",
    e2e: true,
    name: "e2e: official client, 2026-07-28, engine test app (wrangler dev)",
    run: () => withEngineApp(runClientModern),
  },
  {
    id: "client-legacy",
    e2e: true,
    name: "e2e: SDK 1.32.2 + client 2.4.0 legacy, 2025-11-25 sessions, engine test app (wrangler dev)",
    run: () => withEngineApp(runClientLegacy),
  },
  // docs/connect.md and the README's "Connect a client": their marked blocks (curl, Inspector CLI and UI,
  // mcp-remote, the TypeScript clients) run as written; then `npm run dev` and `npm run dev:conformance`
  // with wrangler's --port/--ip after `--`.
  {
    id: "connect",
    e2e: true,
    name: "e2e: README and docs/connect.md client snippets + npm dev scripts' port flags (wrangler dev)",
    run: runConnect,
  },
  // The opt-in OAuth entry (src/engine/oauth/, wrangler.oauth.toml): both bundles, discovery, DCR,
  // authorization code + PKCE, tokens on both revisions and session binding.
  {
    id: "oauth",
    e2e: true,
    name: "e2e: OAuth authorization server (workers-oauth-provider), wrangler.oauth.toml (wrangler dev)",
    run: runOAuth,
  },
  // The OAuth entry judged from outside: the official suite in authorization-server mode, then the
  // consent page in headless Chromium (a missing Chromium is reported as skipped, and fails under CI).
  {
    id: "oauth-conformance",
    e2e: true,
    name: "e2e: OAuth entry vs conformance authorization (metadata + code grant), wrangler dev",
    run: runOAuthConformance,
  },
  {
    id: "oauth-browser",
    e2e: true,
    name: "e2e: OAuth consent page in headless Chromium, DCR → consent → token → MCP on both revisions",
    run: mayBeSkipped("OAuth consent page in a browser", runOAuthBrowser),
  },
  // Real clients' own OAuth code against the entry, through its consent page: client 2.4, mcp-remote and this
  // template's client step up once; the official SDK 1.x client, which cannot, reaches a write tool after one consent.
  {
    id: "oauth-clients",
    e2e: true,
    name: "e2e: OAuth entry with real client packages through the consent page (wrangler dev)",
    run: runOAuthClients,
  },
  // MCP Apps views (the example's view, a Static Asset) on both revisions, then in headless Chromium
  // against a simulated host.
  {
    id: "extensions",
    e2e: true,
    name: "e2e: MCP Apps view of the example app, both revisions + headless Chromium host (wrangler dev)",
    run: mayBeSkipped("MCP Apps view in a browser", runExtensions),
  },
  // GitHub's OpenAPI document (@octokit/openapi) compacted by `npm run openapi` and served by fromOpenApi
  // (test/engine/openapi-app/) against a local mock of the API, driven on both revisions.
  {
    id: "openapi-github",
    e2e: true,
    name: "e2e: fromOpenApi on GitHub's REST API (1,223 operations) against a local mock, listed flat, behind tool search and behind Code Mode, both revisions (wrangler dev)",
    run: runOpenApiGitHub,
  },
  // test/engine/e2e/conformance.mjs serves the fixture app (also `npm run dev:conformance`) and runs the
  // official suite; add or change suite invocations in its RUNS list.
  { id: "conformance", e2e: true, name: "e2e: conformance suite 0.2.0-alpha.12, fixture server (wrangler dev)", run: runConformance },
  // A task on each revision is killed mid-step with the whole `wrangler dev`; a new server on the same
  // state runs it to its result.
  {
    id: "tasks-restart",
    e2e: true,
    name: "e2e: tasks survive a server restart (lease re-run), both revisions, engine test app (wrangler dev)",
    run: runTasksRestart,
  },
  // docs/tracing.md: the spans of real requests, read from wrangler dev's local trace store.
  {
    id: "spans",
    e2e: true,
    name: "e2e: one span per MCP operation, both revisions, hub and task runs across a restart; TRACING=off (wrangler dev trace store)",
    run: async () => {
      const on = await runSpans();
      const off = await runSpansOff();
      return { passed: on.passed + off.passed, failed: on.failed + off.failed };
    },
  },
  // Published while a session's GET stream is down across a restart, 2025 notifications come back with Last-Event-ID.
  {
    id: "notify-restart",
    e2e: true,
    name: "e2e: 2025 notifications published across a server restart come back with Last-Event-ID (wrangler dev)",
    run: runNotifyRestart,
  },
  // MCP Events under a real server: every webhook delivery verified by the standardwebhooks package,
  // retries with backoff, and a delivery pending across a restart of the whole `wrangler dev`.
  {
    id: "events",
    e2e: true,
    name: "e2e: MCP Events webhooks checked by standardwebhooks, retries, delivery across a server restart, conformance fixture (wrangler dev)",
    run: runEventsE2e,
  },
  // The engine's own client on both revisions, listen and resumption, and a Worker tool calling the fixture through it.
  {
    id: "client-own",
    e2e: true,
    name: "e2e: own client (src/engine/client) on both revisions, engine app + fixture + client-app (wrangler dev)",
    run: runClientOwn,
  },
  // `npm run doctor` against the engine app and the OAuth entry behind a proxy that reproduces one fault at a
  // time, each named with its fix; no fault on healthy servers, this template's and third-party ones (SDK 1.x,
  // SDK v2, mcp-handler, tmcp); hostile servers' control sequences and 256 MiB answers never reach the
  // terminal or memory whole.
  // docs/discovery.md: the Server Card validated in Node, the catalog, the doctor's discovery steps, and
  // the page for people in headless Chromium (a missing Chromium is reported as skipped).
  {
    id: "discovery",
    e2e: true,
    name: "e2e: Server Card (schema), AI Catalog, the doctor's discovery steps, the page on /mcp in headless Chromium (wrangler dev)",
    run: mayBeSkipped("the page for people in a browser", runDiscovery),
  },
  {
    id: "doctor",
    e2e: true,
    name: "e2e: npm run doctor names each fault in front of a deployment, and none on a healthy one (wrangler dev + fault proxy)",
    run: runDoctor,
  },
  // The official suite judging the client: `npm run conformance-client`, both requirement sets.
  {
    id: "conformance-client",
    e2e: true,
    name: "e2e: conformance suite 0.2.0-alpha.12, client scenarios (npm run conformance-client)",
    run: runConformanceClient,
  },
];

const args = process.argv.slice(2);
const valueOf = (flag) => {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return args[i].includes("=") ? args[i].slice(flag.length + 1) : args[i + 1];
};
if (args.includes("--list")) {
  for (const s of STEPS) console.log(`${s.id.padEnd(22)} ${s.name}`);
  process.exit(0);
}
const only = valueOf("--only")
  ?.split(",")
  .map((w) => w.trim())
  .filter(Boolean);
const jobs = Math.max(1, Number(valueOf("--jobs") ?? 1) || 1);
/** A word that is a step's id names that step alone; any other word, every step whose id or name contains it. */
const matches = (s, w) => (STEPS.some((x) => x.id === w) ? s.id === w : s.id.includes(w) || s.name.includes(w));
const chosen = only ? STEPS.filter((s) => only.some((w) => matches(s, w))) : STEPS;
if (!chosen.length) {
  console.error(`test:all: no step matches ${only.join(", ")} (see --list)`);
  process.exit(2);
}

const { step, e2eStep, finish, skipped, timings, e2e, machine } = createRunner(
  only ? `npm run test:all -- --only ${only.join(",")}` : "npm run test:all",
);
const asStep = (s) => (s.e2e ? e2eStep(() => s.run(skipped)) : s.run);

/** Runs the steps of `group` as child runs of this script, `jobs` at a time; each child's output is printed whole. */
async function inParallel(group) {
  const queue = [...group];
  const results = [];
  const worker = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      const t0 = Date.now();
      const r = await run(process.execPath, [path.join(ROOT, "scripts/test-all.mjs"), "--only", s.id], {
        capture: true,
        timeoutMs: 1_800_000,
      });
      console.log(`\n▶ ${s.name} (its own process, ${((Date.now() - t0) / 1000).toFixed(1)} s)\n${r.out.trimEnd()}`);
      results.push({ s, ok: r.code === 0 && !r.timedOut, out: r.out });
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return results;
}

const serial = jobs > 1 ? chosen.filter((s) => !s.e2e) : chosen;
for (const s of serial) await step(s.name, asStep(s));
if (jobs > 1) {
  const results = await inParallel(chosen.filter((s) => s.e2e));
  const failed = results.filter((r) => !r.ok).map((r) => r.s.id);
  for (const r of results) {
    const counts = r.out
      .match(/e2e: (\d+) passed, (\d+) failed/g)
      ?.at(-1)
      ?.match(/(\d+) passed, (\d+) failed/);
    await step(
      `${r.s.name} (counted from its process)`,
      e2eStep(async () => ({ passed: Number(counts?.[1] ?? 0), failed: r.ok ? 0 : Math.max(1, Number(counts?.[2] ?? 1)) })),
    );
  }
  if (failed.length) console.error(`\nfailed in parallel: ${failed.join(", ")}`);
}

// A whole run's times feed docs/figures.md (`npm run figures`); a partial run's are not a figure.
if (!only && jobs === 1) {
  mkdirSync(path.join(ROOT, "test/.tmp"), { recursive: true });
  writeFileSync(
    path.join(ROOT, "test/.tmp/test-all-timings.json"),
    `${JSON.stringify({ at: new Date().toISOString(), machine, steps: timings }, null, 2)}\n`,
  );
}
console.log(`\ne2e: ${e2e.passed} passed, ${e2e.failed} failed`);
finish();
