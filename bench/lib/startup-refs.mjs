// Why: "did start-up grow?" is a question about two builds measured in the same run, since
// the machine's load moves every absolute figure. This builds the engine test app as it was at
// a git commit (its files from `git archive`, this checkout's node_modules) next to the
// working tree, then measures them interleaved: one 50 µs profile (and one `check startup`, and
// one CPU-time reading: startup-cpu.mjs) of each build per round, so load that comes and goes
// hits every build alike.
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { ROOT, run } from "../../scripts/lib/procs.mjs";
import { median } from "./runner.mjs";
import { compatibilityOf } from "./servers.mjs";
import { build, buildUploadBundle, checkStartup, profileStartup, summarize } from "./startup.mjs";
import { startupCpu } from "./startup-cpu.mjs";

/**
 * Where the engine test app's config has lived, newest first: the engine's tests moved to
 * test/engine/ (ba45ecf), and an earlier commit has only the old path. A build at a commit uses the
 * first that the commit's tree holds, so every baseline builds whatever the working tree's layout.
 */
export const ENGINE_CONFIGS = ["test/engine/app/wrangler.toml", "test/engine-app/wrangler.toml"];

/** The engine test app's config in a source tree (a commit unpacked, or the working tree). */
export function engineConfigIn(src) {
  const found = ENGINE_CONFIGS.find((p) => existsSync(path.join(src, p)));
  if (!found) throw new Error(`no engine test app in ${src} (looked for ${ENGINE_CONFIGS.join(", ")})`);
  return path.join(src, found);
}

/** The earlier commits `npm run bench` measures beside the working tree: before and at observability. */
export const BASELINES = [
  { label: "before observability (1acfa58^)", ref: "1acfa58^" },
  { label: "observability landed (1acfa58)", ref: "1acfa58" },
];

/** The baselines this checkout has (a fork with other history has none of them). */
export async function availableBaselines() {
  const out = [];
  for (const b of BASELINES) {
    const r = await run("git", ["-C", ROOT, "rev-parse", "--verify", "--quiet", `${b.ref}^{commit}`], { timeoutMs: 10_000, capture: true });
    if (r.code === 0) out.push(b);
  }
  return out;
}

/** The tree at `ref` unpacked under `dir` with this checkout's node_modules linked in (ref null: the working tree itself). */
export async function sourceAt(ref, dir) {
  if (!ref) return ROOT;
  mkdirSync(dir, { recursive: true });
  const r = await run("bash", ["-c", `git -C "${ROOT}" archive "${ref}" | tar -x -C "${dir}"`], { timeoutMs: 60_000, capture: true });
  if (r.code !== 0) throw new Error(`git archive ${ref} failed:\n${r.out.slice(-2000)}`);
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/**
 * builds: [{ label, ref, prebuilt? }] (ref: a commit, or null for the working tree; prebuilt: the
 * working tree's { raw, min, upload } from the size phase, used instead of building again). Returns, per build,
 * gzip size, the median 50 µs JS profile and the median `check startup` Active, each from
 * `rounds` interleaved runs.
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function startupAcrossRefs(
  { tmpDir, builds, rounds = 9, checkRounds = 5, cpuRounds = 3, isolates = 100 },
  onProgress = () => {},
) {
  const built = [];
  for (const [i, { prebuilt, ...b }] of builds.entries()) {
    const src = await sourceAt(b.ref, path.join(tmpDir, `src-${i}`));
    const config = engineConfigIn(src);
    // Side by side: a build is mostly wrangler's own start-up, and nothing is measured yet.
    const [raw, min, upload] = await Promise.all([
      prebuilt?.raw ?? build(config, path.join(tmpDir, `raw-${i}`), { minify: false }),
      prebuilt?.min ?? build(config, path.join(tmpDir, `min-${i}`)),
      prebuilt?.upload ?? buildUploadBundle(config, path.join(tmpDir, `upload-${i}.bundle`)),
    ]);
    built.push({
      ...b,
      raw,
      minDir: min.dir,
      gzip: min.gzip,
      min: min.raw,
      upload,
      compat: compatibilityOf(path.relative(ROOT, config)),
      js: [],
      program: [],
      check: [],
      cpu: [],
    });
    onProgress(`  ${b.label}: minified ${min.raw} B, gzip ${min.gzip} B`);
  }
  for (let round = 0; round < rounds; round++) {
    // Rotate the order too, so no build always runs first (a cold cache) or last.
    for (let k = 0; k < built.length; k++) {
      const b = built[(round + k) % built.length];
      const [profile] = await profileStartup(b.raw.dir, b.raw.main, { ...b.compat, reps: 1 });
      const s = summarize(profile, () => "", b.raw.main);
      b.js.push(s.js);
      b.program.push(s.program);
      if (round < checkRounds) b.check.push((await checkStartup(b.upload, tmpDir)).active);
      // CPU time on the minified build, the one a deploy uploads.
      if (round < cpuRounds) b.cpu.push((await startupCpu(b.minDir, "index.js", { ...b.compat, isolates })).ms);
    }
  }
  return built.map((b) => ({
    label: b.label,
    ref: b.ref,
    min: b.min,
    gzip: b.gzip,
    js: median(b.js),
    program: median(b.program),
    jsAll: b.js,
    check: median(b.check),
    checkAll: b.check,
    cpu: median(b.cpu),
    cpuAll: b.cpu,
    isolates,
  }));
}

/** The commit a label names, as `git rev-parse --short` prints it (for the report). */
export async function shortRef(ref) {
  const r = await run("git", ["-C", ROOT, "rev-parse", "--short", ref], { timeoutMs: 10_000, capture: true });
  return r.code === 0 ? r.out.trim() : ref;
}
