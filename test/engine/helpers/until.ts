/**
 * The one way an engine test waits: for a state to hold, polled, with a bound. A test never sleeps
 * a fixed time and then asserts that nothing happened (a slow machine passes it, a broken engine too);
 * it waits for something that must happen (a witness's delivery, a row, a finished pass) and reads
 * the absence after it.
 */
import { vi } from "vitest";

export interface UntilOptions {
  /** How long the state may take before the test fails (default 10 s: a loaded 2-core machine). */
  timeoutMs?: number;
  /** How often it is looked at (default 20 ms). */
  intervalMs?: number;
}

/** Resolves with `check`'s value once it returns without throwing (an `expect` that holds, or any value). */
export const until = <T>(check: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 20 }: UntilOptions = {}): Promise<T> =>
  vi.waitFor(check, { timeout: timeoutMs, interval: intervalMs });
