/**
 * The Rate Limiting binding counts in windows aligned to the wall clock (a 60 s limit restarts on
 * each minute), so a test that spends a budget and then expects the 429 must not straddle the
 * minute: on a loaded machine its few requests can take seconds. It starts early enough in a window.
 */
export async function inOneLimiterWindow(periodMs = 60_000, needMs = 15_000): Promise<void> {
  const left = periodMs - (Date.now() % periodMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
