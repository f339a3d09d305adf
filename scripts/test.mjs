// Why: `npm test` is the fork's loop, about 20 s on a quiet 2-core machine: what a fork changes (its
// app in src/server.ts, its tests, its bindings) is checked here; the engine's own suite is
// `npm run test:all`. Steps, cheapest first, stopping at the first failure:
//   the app's definitions (scripts/check-app.mjs, about half a second: a duplicate tool name shows
//   before anything slower runs), the typecheck (scripts/lib/typecheck.mjs: skipped when nothing it
//   read changed, else incremental), the layering and generated-types checks (skipped while their
//   inputs are as when they last passed), then vitest with vitest.config.ts: every
//   *.test.ts under test/ outside the engine's folders, inside workerd with the bindings of
//   wrangler.toml, and test/app-checks/, which serves the app on both revisions; Biome's format and
//   lint check last, so a formatting difference never hides a test result.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/procs.mjs";
import { TS_PROJECTS } from "./lib/typecheck.mjs";
import { appCheck, biomeCheck, command, createRunner, staticCheck, typecheck } from "./test-steps.mjs";

// A run with no typecheck state yet (a fresh clone's first) checks everything: its times are kept
// apart from a later run's, and docs/figures.md quotes both.
const first = TS_PROJECTS.some((p) => !existsSync(path.join(ROOT, p.buildInfo)));
const { step, finish, timings, machine } = createRunner("npm test");
await step(...appCheck);
await step(...typecheck);
await step(...staticCheck("layering", { skipUnchanged: true }));
await step(...staticCheck("types", { skipUnchanged: true }));
// vitest keeps the modules it transformed on disk (node_modules/.experimental-vitest-cache, so a
// reinstall starts it afresh), keyed by each file's contents and the config: a second run transforms
// only what changed, about a sixth of this step's CPU. Each test file still gets its own workerd and storage.
await step(
  "your tests and the app checks (vitest run, workerd, your wrangler.toml's bindings)",
  command("vitest", ["run", "--experimental.fsModuleCache"], 300_000),
);
// Biome last: a formatting difference must never hide whether the tests pass. It still fails the
// command, and says the one command that fixes it.
await step("format and lint (biome ci; `npm run format` fixes the formatting)", biomeCheck);
// The run's times feed docs/figures.md (`npm run figures`).
mkdirSync(path.join(ROOT, "test/.tmp"), { recursive: true });
writeFileSync(
  path.join(ROOT, `test/.tmp/${first ? "npm-test-first-timings.json" : "npm-test-timings.json"}`),
  `${JSON.stringify({ at: new Date().toISOString(), machine, first, steps: timings }, null, 2)}\n`,
);
finish();
