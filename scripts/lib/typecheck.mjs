// Why: the typecheck is most of a second `npm test` unless it can skip what it already checked.
// Plain `tsc --incremental` re-checks only the files that changed, yet still reads and parses all
// of them (and every .d.ts they pull in) on each run: seconds of CPU for no change. `tsc -b` skips a
// project outright when its build info is newer than the project's root files, but it looks at
// the root files alone: an edit to an imported file outside `include`, or to a package's types in
// node_modules, would pass unseen. So a project is handed to `tsc -b` only when every file its last
// check read (the build info lists them all) is older than that check; otherwise `tsc -p`
// re-checks it incrementally. Projects that need a run run side by side when there are cores for it.
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, run } from "./procs.mjs";

/**
 * The two projects: src/ and test/ (tsconfig.json), and the project's JavaScript from its JSDoc
 * (tsconfig.scripts.json). Each config sets `incremental` and its build info under test/.tmp.
 */
export const TS_PROJECTS = [
  { config: "tsconfig.json", buildInfo: "test/.tmp/tsc-src.tsbuildinfo" },
  { config: "tsconfig.scripts.json", buildInfo: "test/.tmp/tsc-scripts.tsbuildinfo" },
];

/**
 * True when no file the last check of a project read has changed since: then `tsc -b`'s own check
 * (root files, config, files added under `include`) is enough. A missing or unreadable build info,
 * a file gone or newer than the build info, all say no.
 * @param {string} buildInfo path of the project's .tsbuildinfo
 */
function lastCheckCovers(buildInfo) {
  if (!existsSync(buildInfo)) return false;
  try {
    const since = statSync(buildInfo).mtimeMs;
    /** @type {{ fileNames?: string[] }} */
    const info = JSON.parse(readFileSync(buildInfo, "utf8"));
    const dir = path.dirname(buildInfo);
    return Array.isArray(info.fileNames) && info.fileNames.every((f) => statSync(path.resolve(dir, f)).mtimeMs <= since);
  } catch {
    return false;
  }
}

/**
 * Typechecks every project; prints tsc's findings; true when there are none. `cold` says whether
 * some project had no build info yet (a fresh clone's first run checks everything).
 * @param {{ root?: string, timeoutMs?: number, parallel?: boolean }} [options]
 * @returns {Promise<{ ok: boolean, cold: boolean, how: string }>}
 */
export async function typecheckProjects({ root = ROOT, timeoutMs = 180_000, parallel = os.availableParallelism() > 1 } = {}) {
  const projects = TS_PROJECTS.map((p) => ({ ...p, buildInfo: path.join(root, p.buildInfo) }));
  const cold = projects.some((p) => !existsSync(p.buildInfo));
  const covered = projects.filter((p) => lastCheckCovers(p.buildInfo));
  const stale = projects.filter((p) => !covered.includes(p));
  // A file saved while tsc runs is newer than this moment: the build info is dated back to it
  // after the run, so the next run sees that file as changed.
  const started = new Date();
  const runs = [...(covered.length ? [["-b", ...covered.map((p) => p.config)]] : []), ...stale.map((p) => ["-p", p.config])].map(
    (args) => () => run("tsc", args, { timeoutMs, capture: true, cwd: root }),
  );
  const results = parallel ? await Promise.all(runs.map((r) => r())) : await sequence(runs);
  let ok = true;
  for (const r of results) {
    if (r.out.trim()) console.log(r.out.trimEnd());
    if (r.timedOut) console.error(`  tsc timed out after ${timeoutMs} ms`);
    ok &&= r.code === 0 && !r.timedOut;
  }
  for (const p of projects) if (existsSync(p.buildInfo)) utimesSync(p.buildInfo, started, started);
  const how = [
    covered.length ? `${covered.map((p) => p.config).join(", ")}: tsc -b (no file the last check read has changed)` : "",
    stale.length
      ? `${stale.map((p) => p.config).join(", ")}: tsc -p (${cold ? "no state yet" : "a file the last check read has changed"})`
      : "",
  ]
    .filter(Boolean)
    .join("; ");
  return { ok, cold, how };
}

/** @template T @param {(() => Promise<T>)[]} fns */
async function sequence(fns) {
  const out = [];
  for (const fn of fns) out.push(await fn());
  return out;
}
