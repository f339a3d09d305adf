// Why: the official suite also judges clients. It plays the server (and the authorization server)
// for each client scenario and runs `npm run conformance-client -- <url>` (test/engine/conformance-client/,
// built on src/engine/client) against it. Both frozen requirement sets run side by side, each bounded in
// time; the auth scenarios make up most of the minute each takes. Then the Skills extension's four
// client scenarios on each revision, one at a time, each failing on any FAILURE check.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tally } from "./conformance.mjs";
import { run } from "../../../scripts/lib/procs.mjs";

const COMMAND = "npm run --silent conformance-client --";
/** @type {import("./conformance.mjs").ConformanceRun[]} */
const RUNS = [
  { name: "client, requirements 2026-07-28", args: ["--requirements", "2026-07-28"], timeoutMs: 240_000 },
  { name: "client, requirements 2025-11-25", args: ["--requirements", "2025-11-25"], timeoutMs: 240_000 },
  // The auth extensions (client credentials, enterprise-managed authorization, workload identity, DPoP): not in either
  // requirement set, run so they stay passing.
  { name: "client, auth extensions", args: ["--suite", "extensions"], timeoutMs: 240_000 },
  // The Skills extension's client scenarios (src/engine/client/skills.ts): off the spec timeline, so run with
  // --force and judged here by their checks, which the CLI does not score.
  ...["2026-07-28", "2025-11-25"].map((version) => ({
    name: `client, skills extension ${version}`,
    args: ["--spec-version", version, "--scenario", "SCENARIO", "--force"],
    scenarios: [
      "sep-2640-client-no-prefetch",
      "sep-2640-client-verify-digest",
      "sep-2640-client-verify-size",
      "sep-2640-client-verify-frontmatter",
    ],
    timeoutMs: 60_000,
  })),
];

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

/** @returns {Promise<{passed: number, failed: number, outDir: string}>} */
export async function runConformanceClient() {
  const outDir = mkdtempSync(path.join(os.tmpdir(), "mcp-conformance-client-"));
  // A run of several named scenarios is one run per scenario, each strict: any FAILURE check fails it.
  const runs = RUNS.flatMap((r) =>
    r.scenarios
      ? r.scenarios.map((sc) => ({ ...r, name: `${r.name}: ${sc}`, args: r.args.map((a) => (a === "SCENARIO" ? sc : a)), strict: true }))
      : [r],
  );
  const runOne = async (r, i) => {
    const dir = path.join(outDir, `run${i + 1}`);
    mkdirSync(dir);
    const t0 = Date.now();
    const res = await run("conformance", ["client", "--command", COMMAND, ...r.args, "-o", dir], { timeoutMs: r.timeoutMs, capture: true });
    const out = stripAnsi(res.out);
    writeFileSync(path.join(dir, "console.log"), out);
    const { counts, failing: failed } = r.strict ? tally(dir) : { counts: {}, failing: [] };
    const ok = res.code === 0 && !res.timedOut && !(r.strict && (failed.length > 0 || counts.scenarios === 0 || counts.SKIPPED));
    const why = res.timedOut
      ? `timed out after ${r.timeoutMs} ms`
      : `exit ${res.code}${r.strict ? `, checks ${JSON.stringify(counts)}` : ""}`;
    const lines = [`  ${ok ? "✓" : "✗"} conformance ${r.name}: ${why}, ${Date.now() - t0} ms`];
    // The CLI lists extension and added-after-release scenarios again under "Not scored"; they do not count.
    const unscored = new Set([...out.matchAll(/^\s+[✓✗] (\S+) \([\w-]+\)$/gm)].map((m) => m[1]));
    const scored = (out.split("Not scored")[0] ?? out).split("\n").filter((l) => !unscored.has(l.slice(2).split(":")[0]));
    const passing = scored.filter((l) => l.startsWith("✓ ")).length;
    const failing = scored.filter((l) => l.startsWith("✗ ")).map((l) => l.slice(2));
    lines.push(`      scored scenarios: ${passing} passed, ${failing.length} failed${failing.length ? `: ${failing.join(", ")}` : ""}`);
    const total = out.split("\n").find((l) => l.startsWith("Total:"));
    if (total) lines.push(`      ${total.trim()} (checks, including ${unscored.size} unscored scenarios)`);
    if (!ok && passing + failing.length === 0) lines.push(out.slice(-2000).replace(/^/gm, "      | "));
    return { ok, lines };
  };
  // The two requirement sets side by side; the short single-scenario runs after them, one at a time.
  const results = await Promise.all(runs.map((r, i) => (r.strict ? undefined : runOne(r, i))));
  for (const [i, r] of runs.entries()) if (r.strict) results[i] = await runOne(r, i);
  for (const r of results) console.log(r.lines.join("\n"));
  console.log(`  conformance client results and logs: ${outDir}`);
  const passed = results.filter((r) => r.ok).length;
  return { passed, failed: results.length - passed, outDir };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runConformanceClient();
  console.log(`conformance client: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
