// Why: every load loop of the load and bench scripts is bounded in count and in time, and
// reports the same statistics; this is the one closed-loop runner they share.
import { performance } from "node:perf_hooks";

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const median = (xs) => {
  const s = [...xs].filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Latency statistics of one row from its sorted latencies (ms) and wall time. */
function stats(name, sorted, elapsedMs, rest) {
  return {
    name,
    done: sorted.length,
    elapsedMs,
    rps: (sorted.length / elapsedMs) * 1000,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    latencies: sorted,
    ...rest,
  };
}

/**
 * Runs `op(i)` for i = 0 … total-1 with `concurrency` workers in a closed loop, and stops
 * at `total` or when `maxMs` has passed (then `truncated` is true). A rejected op counts
 * as an error (the first few messages are kept). Latency is per op, in ms.
 */
export async function runLoad({ name = "", total, concurrency, maxMs = 60_000, op }) {
  if (!(total > 0) || !(concurrency > 0)) throw new Error("runLoad: total and concurrency must be positive");
  const lat = new Float64Array(total);
  let next = 0;
  let done = 0;
  let errors = 0;
  const errorSamples = [];
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const s = performance.now();
      try {
        await op(i);
      } catch (e) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String(e?.message ?? e));
      }
      lat[done++] = performance.now() - s;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const elapsedMs = performance.now() - t0;
  return stats(name, lat.subarray(0, done).sort(), elapsedMs, { errors, errorSamples, truncated: done < total, concurrency });
}

/** Merges several runLoad results of one row (e.g. interleaved rounds) into one. */
export function mergeRuns(name, runs) {
  const all = new Float64Array(runs.reduce((a, r) => a + r.done, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.done;
  }
  return stats(
    name,
    all.sort(),
    runs.reduce((a, r) => a + r.elapsedMs, 0),
    {
      errors: runs.reduce((a, r) => a + r.errors, 0),
      errorSamples: runs.flatMap((r) => r.errorSamples).slice(0, 5),
      roundRps: runs.map((r) => r.rps),
      truncated: runs.some((r) => r.truncated),
      concurrency: runs[0]?.concurrency,
    },
  );
}

/** Times `fn` into `into[key]` (an array of ms). */
export async function timed(into, key, fn) {
  const s = performance.now();
  const r = await fn();
  (into[key] ??= []).push(performance.now() - s);
  return r;
}
