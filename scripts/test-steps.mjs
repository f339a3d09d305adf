// Why: `npm test` (the fork's loop) and `npm run test:all` (the engine's suite) run steps the same
// way: cheapest first, each timed, stopping at the first failure, with the timings and anything
// skipped repeated at the end so nobody reads a skipped step as passed.
import { CHECKS, runCheck } from "./checks/index.mjs";
import { checkAppDefinitions, printDirectoryWarnings, printImportNotes } from "./check-app.mjs";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { engineSetupProblems, scanWranglerToml, setupLine } from "./lib/engine-setup.mjs";
import { ROOT, run } from "./lib/procs.mjs";

export function createRunner(label) {
  const timings = [];
  /** The same times as data: { name, seconds, ok } per step, for test/.tmp/test-all-timings.json. */
  const times = [];
  const e2e = { passed: 0, failed: 0 };
  const skipped = [];
  const started = Date.now();
  // Which machine the times come from, and how busy it was when the run began: a figure means
  // nothing without it (docs/figures.md quotes it).
  const cpus = os.cpus();
  const machine = `${cpus.length} cores (${cpus[0]?.model.trim() ?? "unknown CPU"}), load ${os.loadavg()[0].toFixed(1)} at the start`;

  function finish(failure) {
    const total = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`\ntimings: ${timings.join("; ")}; total ${total} s`);
    for (const s of skipped) console.log(`\n!!! SKIPPED, NOT TESTED: ${s}`);
    if (failure) console.error(`\n${label}: FAILED: ${failure}`);
    else console.log(`\n${label}: all steps passed in ${total} s${skipped.length ? `, but ${skipped.length} SKIPPED (above)` : ""}`);
    process.exit(failure ? 1 : 0);
  }

  async function step(name, fn) {
    console.log(`\n▶ ${name}`);
    const t0 = Date.now();
    let ok = false;
    try {
      ok = await fn();
    } catch (err) {
      console.error(`  ${err?.stack ?? err}`);
    }
    const seconds = Number(((Date.now() - t0) / 1000).toFixed(1));
    timings.push(`${name} ${seconds.toFixed(1)} s${ok ? "" : " (FAILED)"}`);
    times.push({ name, seconds, ok: Boolean(ok) });
    if (!ok) finish(`step "${name}" failed`);
  }

  /** An e2e step: adds its counts to the e2e total; prints the total line if it fails. */
  const e2eStep = (fn) => async () => {
    const r = await fn();
    e2e.passed += r.passed;
    e2e.failed += r.failed;
    if (r.failed) console.log(`\ne2e: ${e2e.passed} passed, ${e2e.failed} failed`);
    return r.failed === 0;
  };

  return { step, e2eStep, finish, skipped, e2e, timings: times, machine };
}

/** A command step: non-zero exit or timeout fails it. */
export const command = (cmd, args, timeoutMs) => async () => {
  const r = await run(cmd, args, { timeoutMs });
  if (r.timedOut) console.error(`  ${cmd} timed out after ${timeoutMs} ms`);
  else if (r.code !== 0) console.error(`  ${cmd} ${args.join(" ")} exited with code ${r.code}`);
  return r.code === 0 && !r.timedOut;
};

/**
 * tsc's incremental flags: its build info under test/.tmp (ignored by git), so the second
 * `npm test` re-checks only the files that changed (about a third of the first run's time).
 * @param {string} name
 */
export const incremental = (name) => ["--incremental", "--tsBuildInfoFile", `test/.tmp/tsc-${name}.tsbuildinfo`];

/**
 * Biome's format and lint check, with the command that fixes what it finds: the fork's loop runs
 * it after the tests, so a formatting difference never hides a test result, yet still fails.
 * @returns {Promise<boolean>}
 */
export async function biomeCheck() {
  const ok = await command("biome", ["ci", "--reporter=summary"], 60_000)();
  if (!ok) console.error("  fix: `npm run format` formats every file; a lint finding names its file, line and rule");
  return ok;
}

/**
 * The static checks by name (scripts/checks/), each after its self-test.
 * @param {string} name
 * @returns {[string, () => Promise<boolean>]}
 */
export const staticCheck = (name) => {
  const entry = CHECKS.find((c) => c.name === name || c.id === name);
  if (!entry) throw new Error(`no static check ${name}`);
  return [`check: ${entry.name}`, () => runCheck(entry)];
};

/**
 * The app's definitions, loaded in Node and checked (scripts/check-app.mjs).
 * @type {[string, () => Promise<boolean>]}
 */
export const appCheck = [
  "check: src/server.ts definitions (names, URI templates, schemas)",
  async () => {
    const { loaded, problems, warnings, notes, features, why } = await checkAppDefinitions();
    if (!loaded) {
      console.log(`  not loadable in Node (${why}); the vitest step checks it inside workerd`);
      return true;
    }
    // What the app turns on against what wrangler.toml sets up (scripts/lib/engine-setup.mjs).
    const setup = engineSetupProblems(features, scanWranglerToml(readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")), "wrangler.toml");
    for (const p of [...problems, ...setup.bindings.map(setupLine)]) console.error(`  ✗ ${p}`);
    for (const f of setup.flags) console.log(`  ! ${setupLine(f)}`);
    printDirectoryWarnings(warnings, (line) => console.log(`  ${line}`));
    printImportNotes(notes, (line) => console.log(`  ${line}`));
    if (!problems.length) console.log("  no duplicate or invalid names, URI templates or schemas");
    return problems.length === 0 && setup.bindings.length === 0;
  },
];
