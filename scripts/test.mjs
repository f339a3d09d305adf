// Why: `npm test` is the fork's loop, about a minute on a 2-core machine: what a fork changes (its
// app in src/server.ts, its tests, its bindings) is checked here; the engine's own suite is
// `npm run test:all`. Steps, cheapest first, stopping at the first failure:
//   the app's definitions (scripts/check-app.mjs, about half a second: a duplicate tool name shows
//   before anything slower runs), the typecheck, the typecheck of the JavaScript (tsconfig.scripts.json), the layering and generated-types checks, then vitest with vitest.config.ts: every *.test.ts under test/ outside the engine's folders,
//   inside workerd with the bindings of wrangler.toml, and test/app-checks/, which serves the app on
//   both revisions.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/procs.mjs";
import { appCheck, command, createRunner, staticCheck } from "./test-steps.mjs";

const { step, finish, timings } = createRunner("npm test");
await step(...appCheck);
// Biome: the formatter's check and the linter, over src/, scripts/, test/ and bench/ (`npm run format` writes).
await step("lint and format (biome ci)", command("biome", ["ci", "--reporter=summary"], 60_000));
await step("typecheck (tsc --noEmit)", command("tsc", ["--noEmit"], 180_000));
await step(
  "typecheck scripts and e2e (tsc -p tsconfig.scripts.json)",
  command("tsc", ["-p", "tsconfig.scripts.json", "--noEmit"], 180_000),
);
await step(...staticCheck("layering"));
await step(...staticCheck("types"));
await step("your tests and the app checks (vitest run, workerd, your wrangler.toml's bindings)", command("vitest", ["run"], 300_000));
// The run's times feed docs/figures.md (`npm run figures`).
mkdirSync(path.join(ROOT, "test/.tmp"), { recursive: true });
writeFileSync(
  path.join(ROOT, "test/.tmp/npm-test-timings.json"),
  `${JSON.stringify({ at: new Date().toISOString(), steps: timings }, null, 2)}\n`,
);
finish();
