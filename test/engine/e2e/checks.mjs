// Why: a tiny named-check recorder shared by the e2e steps, so each step reports
// "✓ name" / "✗ name: reason" lines and the runner can total passed/failed.
import { sleep } from "../../../scripts/lib/procs.mjs";

export function createChecks(prefix) {
  const results = [];
  /** Runs fn with a time limit; a throw or timeout is a failure, never an abort of the run. */
  async function check(name, fn, timeoutMs = 20_000) {
    const t0 = Date.now();
    let timer;
    try {
      await Promise.race([
        fn(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs))),
      ]);
      results.push({ name, ok: true });
      console.log(`  ✓ ${prefix}: ${name} (${Date.now() - t0} ms)`);
      return true;
    } catch (err) {
      const msg = err?.stack && process.env.E2E_VERBOSE ? err.stack : String(err?.message ?? err);
      results.push({ name, ok: false, error: msg });
      console.log(`  ✗ ${prefix}: ${name}: ${msg}`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
  const counts = () => ({
    passed: results.filter((r) => r.ok).length,
    failed: results.filter((r) => !r.ok).length,
    results,
  });
  return { check, counts, sleep };
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function assertEqual(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}
