// Why: `npm run bench` takes minutes and nobody runs it on every change, so a move that breaks its
// set-up (a fixture's path, an earlier commit that no longer builds beside this one) went unseen
// until a user ran it on a clean clone. This is the bench's set-up without a measurement: every
// module of the harness loads, every config it serves names a main module that exists, and each
// earlier commit the start-up comparison builds unpacks and builds. `npm run bench -- --setup` runs
// it, and `npm run test:all` runs that as its `bench-setup` step (about half a minute).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { build } from "./startup.mjs";
import { availableBaselines, engineConfigIn, sourceAt } from "./startup-refs.mjs";

/** Every wrangler.toml the bench serves or builds: its fixtures under bench/, its peers, the engine test app. */
function benchConfigs() {
  const under = (dir) =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(ROOT, dir, d.name, "wrangler.toml")))
      .map((d) => `${dir}/${d.name}/wrangler.toml`);
  return [...under("bench"), ...under("bench/peers"), path.relative(ROOT, engineConfigIn(ROOT))];
}

/**
 * @param {{ tmpDir: string }} options
 * @param {(line: string) => void} [onProgress]
 * @returns {Promise<{ ok: boolean, problems: string[], baselines: string[] }>}
 */
export async function checkBenchSetup({ tmpDir }, onProgress = () => {}) {
  const problems = [];
  for (const file of readdirSync(path.join(ROOT, "bench", "lib")).filter((f) => f.endsWith(".mjs"))) {
    await import(path.join(ROOT, "bench", "lib", file)).catch((err) => problems.push(`bench/lib/${file} does not load: ${err.message}`));
  }
  const configs = benchConfigs();
  for (const config of configs) {
    const main = /^main\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(ROOT, config), "utf8"))?.[1];
    if (!main) problems.push(`${config} names no main module`);
    else if (!existsSync(path.join(ROOT, path.dirname(config), main))) problems.push(`${config}: main ${main} does not exist`);
  }
  onProgress(`${configs.length} bench configs name a main module that exists`);
  const baselines = await availableBaselines();
  if (!baselines.length) onProgress("no earlier commit to compare start-up with in this checkout (a shallow clone): none built");
  await Promise.all(
    baselines.map(async (b, i) => {
      try {
        const src = await sourceAt(b.ref, path.join(tmpDir, `src-${i}`));
        const built = await build(engineConfigIn(src), path.join(tmpDir, `min-${i}`));
        onProgress(`${b.label}: the engine test app builds (${built.gzip} B gzip)`);
      } catch (err) {
        problems.push(`${b.label}: ${err instanceof Error ? err.message.slice(0, 600) : err}`);
      }
    }),
  );
  return { ok: problems.length === 0, problems, baselines: baselines.map((b) => b.label) };
}
