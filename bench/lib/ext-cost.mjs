// Why: the opt-in extensions promise that an app which uses neither pays nothing, and that one which
// uses an extension pays only for it. This measures, in one run, the same one-tool app alone, with a
// view and beside Skills (test/engine/ext-cost/, bundled by test/engine/e2e/ext-cost.mjs as wrangler would): gzip
// size, and start-up as the 50 µs JS profile and as CPU per isolate (startup.mjs, startup-cpu.mjs),
// interleaved round by round in rotating order so that load which comes and goes hits every app alike.
// A start-up difference counts only when every round's paired difference has the same sign.
import path from "node:path";
import { extensionCost } from "../../test/engine/e2e/ext-cost.mjs";
import { median } from "./runner.mjs";
import { compatibilityOf } from "./servers.mjs";
import { profileStartup, summarize } from "./startup.mjs";
import { startupCpu } from "./startup-cpu.mjs";

/** How the extension-free app's start-up compares with another's, round by round. */
function versus(base, other) {
  const diffs = other.map((x, i) => x - base[i]);
  const lo = Math.min(...diffs);
  const hi = Math.max(...diffs);
  return { median: median(diffs), lo, hi, withinNoise: lo <= 0 && hi >= 0 };
}

/**
 * @param {Record<string, any>} options
 * @param {(line: string) => void} [onProgress]
 */
export async function extensionCostPhase({ tmpDir, rounds = 7, cpuRounds = 3, isolates = 30 }, onProgress = () => {}) {
  const { ok, apps, message } = await extensionCost(path.join(tmpDir, "ext-cost"));
  onProgress(
    message
      .split("\n")
      .map((l) => `  ${l.trim()}`)
      .join("\n"),
  );
  const compat = compatibilityOf("test/engine/app/wrangler.toml");
  const runs = apps.map(() => ({ js: [], cpu: [] }));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < apps.length; k++) {
      const i = (round + k) % apps.length;
      const [profile] = await profileStartup(apps[i].dir, apps[i].main, { ...compat, reps: 1 });
      runs[i].js.push(summarize(profile, () => "", apps[i].main).js);
      if (round < cpuRounds) runs[i].cpu.push((await startupCpu(apps[i].dir, apps[i].main, { ...compat, isolates })).ms);
    }
  }
  const rows = apps.map((a, i) => ({
    name: a.name,
    label: a.label,
    raw: a.raw,
    gzip: a.gzip,
    js: median(runs[i].js),
    jsAll: runs[i].js,
    cpu: median(runs[i].cpu),
    cpuAll: runs[i].cpu,
    jsVsNone: i ? versus(runs[0].js, runs[i].js) : undefined,
    cpuVsNone: i ? versus(runs[0].cpu, runs[i].cpu) : undefined,
  }));
  return { ok, errors: ok ? [] : [message.split("\n")[0]], rows, rounds, cpuRounds, isolates };
}
