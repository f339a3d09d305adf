// Why: the bench has to finish in bounded time on a busy machine, and when it does not, the first
// question is which phase spent it. Every phase runs through one clock that prints its duration as
// it ends and keeps it for the report.
import { performance } from "node:perf_hooks";

/** @param {(line: string) => void} [onProgress] */
export function phaseClock(onProgress = () => {}) {
  const started = performance.now();
  const phases = [];
  const seconds = () => (performance.now() - started) / 1000;
  return {
    /** [{ name, seconds }] in the order the phases ran. */
    phases,
    /** Seconds since the clock started. */
    seconds,
    /** Minutes so far, one decimal, as the report prints them. */
    minutes: () => (seconds() / 60).toFixed(1),
    /** Runs `fn()` as the phase `name`, timed even when it throws. */
    async time(name, fn) {
      const t0 = performance.now();
      try {
        return await fn();
      } finally {
        const s = (performance.now() - t0) / 1000;
        phases.push({ name, seconds: s });
        onProgress(`  ⏱ ${name}: ${s.toFixed(1)} s (run so far ${seconds().toFixed(0)} s)`);
      }
    },
  };
}
