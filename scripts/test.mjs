// Why: `npm test` is the fork's loop, about 20 s on a quiet 2-core machine: what a fork changes (its
// app in src/server.ts, its tests, its bindings) is checked here; the engine's own suite is
// `npm run test:all`. Steps, cheapest first, stopping at the first failure:
//   the app's definitions (scripts/check-app.mjs, about half a second: a duplicate tool name shows
//   before anything slower runs), the typechecks (incremental: a second run re-checks only what
//   changed), the layering and generated-types checks, then vitest with vitest.config.ts: every
//   *.test.ts under test/ outside the engine's folders, inside workerd with the bindings of
//   wrangler.toml, and test/app-checks/, which serves the app on both revisions; Biome's format and
//   lint check last, so a formatting difference never hides a test result.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/procs.mjs";
import { appCheck, biomeCheck, command, createRunner, incremental, staticCheck } from "./test-steps.mjs";

const { step, finish, timings, machine } = createRunner("npm test");
await step(...appCheck);
await step("typecheck (tsc --noEmit)", command("tsc", ["--noEmit", ...incremental("src")], 180_000));
await step(
  "typecheck scripts and e2e (tsc -p tsconfig.scripts.json)",
  command("tsc", ["-p", "tsconfig.scripts.json", "--noEmit", ...incremental("scripts")], 180_000),
);
await step(...staticCheck("layering"));
await step(...staticCheck("types"));
await step("your tests and the app checks (vitest run, workerd, your wrangler.toml's bindings)", command("vitest", ["run"], 300_000));
// Biome last: a formatting difference must never hide whether the tests pass. It still fails the
// command, and says the one command that fixes it.
await step("format and lint (biome ci; `npm run format` fixes the formatting)", biomeCheck);
// The run's times feed docs/figures.md (`npm run figures`).
mkdirSync(path.join(ROOT, "test/.tmp"), { recursive: true });
writeFileSync(
  path.join(ROOT, "test/.tmp/npm-test-timings.json"),
  `${JSON.stringify({ at: new Date().toISOString(), machine, steps: timings }, null, 2)}\n`,
);
finish();
