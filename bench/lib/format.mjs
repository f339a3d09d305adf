// Why: the report and the targets print the same numbers the same way.
export const fmt = {
  rps: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–"),
  ms: (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : "–"),
  us: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–"),
  kib: (b) => `${(b / 1024).toFixed(1)} KiB`,
  /** a / b as "0.42×", or "–" when either is missing. */
  ratio: (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–"),
};
