// Why: `npm test` (the fork's loop) and `npm run test:all` (the engine's suite) run steps the same
// way: cheapest first, each timed, stopping at the first failure, with the timings and anything
// skipped repeated at the end so nobody reads a skipped step as passed.
import { CHECKS, runCheck } from "./checks/index.mjs";
import { checkAppDefinitions, printDirectoryWarnings, printImportNotes } from "./check-app.mjs";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { engineSetupProblems, scanWranglerToml, setupLine } from "./lib/engine-setup.mjs";
import { ROOT, run } from "./lib/procs.mjs";
import { typecheckProjects } from "./lib/typecheck.mjs";

export function createRunner(label) {
  const timings = [];
  /** The same times as data: { name, seconds, cpu, ok } per step, for test/.tmp/*-timings.json. */
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
    const cpu0 = cpuSeconds();
    let ok = false;
    try {
      ok = await fn();
    } catch (err) {
      console.error(`  ${err?.stack ?? err}`);
    }
    const seconds = Number(((Date.now() - t0) / 1000).toFixed(1));
    const cpu1 = cpuSeconds();
    const cpu = cpu0 === undefined || cpu1 === undefined ? undefined : Number((cpu1 - cpu0).toFixed(1));
    timings.push(`${name} ${seconds.toFixed(1)} s${cpu === undefined ? "" : ` (CPU ${cpu.toFixed(1)} s)`}${ok ? "" : " (FAILED)"}`);
    times.push({ name, seconds, cpu, ok: Boolean(ok) });
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

/**
 * CPU seconds (user and system) this process and the children it has waited for have used so far,
 * from /proc (Linux; undefined elsewhere). Unlike wall time it barely moves when other work shares
 * the machine, so two runs on a busy machine can still be compared.
 * @returns {number | undefined}
 */
function cpuSeconds() {
  try {
    // The fields after the command name start at the 3rd; cutime and cstime (waited-for children) are the 16th and 17th.
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    const ticks = Number(fields[13]) + Number(fields[14]);
    const self = process.cpuUsage();
    // Clock ticks are 1/100 s on Linux (USER_HZ).
    return ticks / 100 + (self.user + self.system) / 1e6;
  } catch {
    return undefined;
  }
}

/** A command step: non-zero exit or timeout fails it. */
export const command = (cmd, args, timeoutMs) => async () => {
  const r = await run(cmd, args, { timeoutMs });
  if (r.timedOut) console.error(`  ${cmd} timed out after ${timeoutMs} ms`);
  else if (r.code !== 0) console.error(`  ${cmd} ${args.join(" ")} exited with code ${r.code}`);
  return r.code === 0 && !r.timedOut;
};

/**
 * The typecheck of both projects (scripts/lib/typecheck.mjs): skipped where nothing they read
 * changed, incremental where something did, both at once on a fresh clone when there are 2 cores.
 * @type {[string, () => Promise<boolean>]}
 */
export const typecheck = [
  "typecheck (src/ and test/; scripts/, e2e and bench/ from JSDoc)",
  async () => {
    const { ok, how } = await typecheckProjects();
    console.log(`  ${how}`);
    return ok;
  },
];

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
 * The static checks by name (scripts/checks/), each after its self-test. With `skipUnchanged`, a
 * check that lists its `inputs` is not run again while every one of them has the contents it had
 * when the check last passed here (`npm test`: `wrangler types` alone costs seconds of CPU).
 * @param {string} name
 * @param {{ skipUnchanged?: boolean }} [options]
 * @returns {[string, () => Promise<boolean>]}
 */
export const staticCheck = (name, { skipUnchanged = false } = {}) => {
  const entry = CHECKS.find((c) => c.name === name || c.id === name);
  if (!entry) throw new Error(`no static check ${name}`);
  if (!skipUnchanged || !entry.inputs) return [`check: ${entry.name}`, () => runCheck(entry)];
  return [
    `check: ${entry.name}`,
    async () => {
      const key = digest([...entry.inputs, ...CHECK_MACHINERY]);
      const passed = readPassed();
      if (passed[entry.id] === key) {
        console.log(`  passed before on these same inputs (${entry.inputs.join(", ")}); not run again`);
        return true;
      }
      const ok = await runCheck(entry);
      if (ok) writePassed({ ...readPassed(), [entry.id]: key });
      return ok;
    },
  ];
};

/** What runs every check, part of each one's inputs. */
const CHECK_MACHINERY = ["scripts/checks/index.mjs", "scripts/checks/tree.mjs", "scripts/test-steps.mjs", "scripts/lib/procs.mjs"];
const PASSED = path.join(ROOT, "test/.tmp/checks-passed.json");

/** @returns {Record<string, string>} check id → digest of its inputs when it last passed */
function readPassed() {
  try {
    return JSON.parse(readFileSync(PASSED, "utf8"));
  } catch {
    return {};
  }
}

/** @param {Record<string, string>} passed */
function writePassed(passed) {
  mkdirSync(path.dirname(PASSED), { recursive: true });
  writeFileSync(PASSED, `${JSON.stringify(passed, null, 2)}\n`);
}

/**
 * One digest of the names and contents of files and folders (read whole, recursively; a missing
 * one counts as missing), so a change to any of them, or a file added or removed, changes it.
 * @param {string[]} inputs paths relative to the project
 */
function digest(inputs) {
  const hash = createHash("sha256");
  const add = (rel) => {
    const file = path.join(ROOT, rel);
    if (!existsSync(file)) return hash.update(`missing ${rel}\0`);
    if (!statSync(file).isDirectory()) return hash.update(`file ${rel}\0`).update(readFileSync(file)).update("\0");
    for (const entry of readdirSync(file).sort()) add(path.join(rel, entry));
  };
  for (const rel of inputs) add(rel);
  return hash.digest("hex");
}

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
