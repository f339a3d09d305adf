// Why: Workers have a size budget and this template promises a small one. This builds the engine
// (its own test app, so a fork's app does not move the figure) exactly as `wrangler deploy` would
// (--dry-run, no upload), gzips the emitted JS with node:zlib and fails above the budget: the engine
// app's size when the budget was set (48.1 KiB, with the operation model, the one Caller, middleware as
// plain functions on one path for every operation, hosted clients' quirks served in every app, the
// hub-stream bridge, and the hooks of events, per-user state, mounts, surfaces, result budgets and
// discovery) and about 0.4 KiB to grow. Raised to 48.75 KiB at 48.60: the task runtime this app serves
// grew 0.27 KiB writing 7 rows and 2 alarms a task instead of 20 and 3 (objects/task.ts, task-store.ts),
// the start-up work moved out of import 0.08 KiB (worker.ts), spans with only set attributes 0.04 KiB
// (bench/RESULTS.md and docs/cost.md have what each buys). The one-tool app has a budget of its own (test/engine/e2e/ext-cost.mjs).
// docs/performance.md says where the bytes go; `node scripts/bundle-map.mjs` measures it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { atExit, run } from "../../../scripts/lib/procs.mjs";

export const GZIP_BUDGET_BYTES = 48.75 * 1024;

/** @returns {Promise<{ok: boolean, raw: number, gzip: number, files: string[], message: string}>} */
export async function bundleCheck({ config = "test/engine/app/wrangler.toml", budget = GZIP_BUDGET_BYTES } = {}) {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "mcp-bundle-"));
  const unhook = atExit(() => rmSync(outdir, { recursive: true, force: true }));
  try {
    const res = await run("wrangler", ["deploy", "--dry-run", "--config", config, "--outdir", outdir], {
      timeoutMs: 120_000,
      capture: true,
    });
    if (res.code !== 0) {
      return {
        ok: false,
        raw: 0,
        gzip: 0,
        files: [],
        message: `wrangler deploy --dry-run failed (code ${res.code}${res.timedOut ? ", timed out" : ""}):\n${res.out.slice(-4000)}`,
      };
    }
    const files = readdirSync(outdir, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(m?js)$/.test(f))
      .sort();
    if (files.length === 0) return { ok: false, raw: 0, gzip: 0, files, message: `no .js output in ${outdir}` };
    const bytes = Buffer.concat(files.map((f) => readFileSync(path.join(outdir, f))));
    const raw = bytes.length;
    const gzip = gzipSync(bytes).length;
    const kib = (n) => `${(n / 1024).toFixed(2)} KiB`;
    const message = `bundle: ${files.join(", ")} raw ${raw} B (${kib(raw)}), gzip ${gzip} B (${kib(gzip)}), budget ${budget} B (${kib(budget)})`;
    return { ok: gzip <= budget, raw, gzip, files, message };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
    unhook();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await bundleCheck();
  console.log(r.message);
  if (!r.ok) {
    console.error(r.raw ? "bundle: FAIL, gzip size is over budget" : "bundle: FAIL");
    process.exit(1);
  }
}
