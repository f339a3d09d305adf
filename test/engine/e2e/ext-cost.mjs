// Why: the opt-in extensions (MCP Apps, Skills) promise that an app which uses neither pays nothing
// for them. This bundles the same one-tool app three ways (test/engine/ext-cost/: alone, with a view, beside
// Skills) with esbuild as wrangler does (ESM, minified, the workerd conditions), and fails when the
// app without extensions carries any of their code: a module of src/engine/mcp/ext/ in its bundle, or a
// string only extension code holds (their identifiers and methods, the hooks an extension hands
// the core). None of the three declares a task, so none may carry the task runtime either (it comes
// only with `durableTask`). The app without extensions also has a gzip budget: what any app pays for
// the engine. The figures are the bench's too (bench/lib/ext-cost.mjs).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ROOT, atExit } from "../../../scripts/lib/procs.mjs";

export const EXT_COST_APPS = [
  { name: "none", label: "one tool, neither extension", entry: "test/engine/ext-cost/none.ts" },
  { name: "view", label: "one tool with a view (MCP Apps)", entry: "test/engine/ext-cost/view.ts" },
  { name: "skills", label: "one tool and Skills", entry: "test/engine/ext-cost/skills.ts" },
  { name: "events", label: "one tool and one event type (MCP Events)", entry: "test/engine/ext-cost/events.ts" },
];

/** Only extension code holds these: identifiers, methods, `_meta` keys and the hooks an extension hands the core. */
export const EXTENSION_MARKERS = [
  "io.modelcontextprotocol/ui",
  "io.modelcontextprotocol/skills",
  "skills/list",
  "resources/directory/read",
  "ui/resourceUri",
  "toolsWithout",
  "toolMeta",
  "webhook-signature",
  "whsec_",
];

/** The task runtime's modules (src/engine/tasks.ts and what only it imports): an app without task tools carries none. */
export const TASK_RUNTIME_MODULES = /^src\/engine\/(tasks|objects\/task[-a-z]*|objects\/session-tasks|http\/tasks|mcp\/step-journal)\.ts$/;

/** Per-user state's modules (src/engine/user/): an app without `userState` carries none. */
export const USER_STATE_MODULES = /^src\/engine\/user\//;

/** Results cut to a budget (src/engine/results.ts, its rules and its object): an app without `resultBudget()` carries none. */
export const RESULT_BUDGET_MODULES = /^src\/engine\/(results|mcp\/result-budget|objects\/kept-results)\.ts$/;

/** Mounted servers' runtime and the client it brings (src/engine/mount/, src/engine/client/): an app without mounts carries none. */
export const MOUNT_MODULES = /^src\/engine\/(mount|client)\//;

/** OpenAPI import (src/engine/openapi/, `fromOpenApi`): an app that does not import it carries none. */
export const OPENAPI_MODULES = /^src\/engine\/openapi\//;

/**
 * The one-tool app without extensions, at most this many bytes gzip (level 9): its size when this
 * budget was set (36.4 KiB: the seams every app carries grew by about 1 KiB, measured per file by
 * `node scripts/bundle-map.mjs test/engine/ext-cost/none.ts --files`) and about 0.35 KiB to grow.
 */
export const ONE_TOOL_GZIP_BUDGET = 36.75 * 1024;

/** esbuild's options for bundling a Worker as `wrangler deploy` does (ESM, minified, the workerd conditions, no keep_names). */
/** @type {import("esbuild").BuildOptions} */
export const AS_WRANGLER_DOES = {
  bundle: true,
  format: "esm",
  target: "es2024",
  platform: "neutral",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["browser", "module", "main"],
  external: ["cloudflare:*", "node:*"],
  minify: true,
};

/** One app bundled into `outdir/index.js`: its sizes and which source files put bytes into it. */
export async function bundleApp(entry, outdir) {
  mkdirSync(outdir, { recursive: true });
  const outfile = path.join(outdir, "index.js");
  const { metafile } = await build({
    entryPoints: [path.join(ROOT, entry)],
    ...AS_WRANGLER_DOES,
    metafile: true,
    outfile,
    logLevel: "silent",
  });
  const bytes = readFileSync(outfile);
  const inputs = Object.entries(Object.values(metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {})
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([file]) => path.relative(ROOT, path.resolve(ROOT, file)).split(path.sep).join("/"));
  return {
    dir: outdir,
    main: "index.js",
    text: bytes.toString("utf8"),
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    inputs,
  };
}

/** Why a bundle without extensions is not free of them (empty when it is). */
function extensionTraces(bundle) {
  const modules = bundle.inputs.filter((f) => f.startsWith("src/engine/mcp/ext/") || f.startsWith("src/engine/events/"));
  const markers = EXTENSION_MARKERS.filter((m) => bundle.text.includes(m));
  return [...modules.map((m) => `module ${m}`), ...markers.map((m) => `"${m}"`)];
}

/** The task runtime's, per-user state's, mounts', result budgets' or the OpenAPI import's modules in bundles of apps without them: empty when there are none. */
const taskTraces = (apps) =>
  apps.flatMap((a) =>
    a.inputs
      .filter((f) =>
        [TASK_RUNTIME_MODULES, USER_STATE_MODULES, MOUNT_MODULES, RESULT_BUDGET_MODULES, OPENAPI_MODULES].some((m) => m.test(f)),
      )
      .map((m) => `${a.name}: module ${m}`),
  );

/** The three apps bundled under `dir`, and whether the one without extensions is free of them. */
export async function extensionCost(dir) {
  const apps = [];
  for (const app of EXT_COST_APPS) apps.push({ ...app, ...(await bundleApp(app.entry, path.join(dir, app.name))) });
  const traces = extensionTraces(apps[0]);
  const tasks = taskTraces(apps);
  const lines = apps.map((a) => `  ${a.label}: raw ${a.raw} B, gzip ${a.gzip} B (${(a.gzip / apps[0].gzip).toFixed(3)}× the app without)`);
  const overBudget = apps[0].gzip > ONE_TOOL_GZIP_BUDGET;
  const verdicts = [
    traces.length
      ? `FAIL, the app without extensions carries their code: ${traces.join(", ")}`
      : "the app without extensions carries none of their code",
    tasks.length
      ? `FAIL, apps without task tools, userState, mounts, resultBudget or fromOpenApi carry their runtime: ${tasks.join(", ")}`
      : "none carries the task runtime, per-user state, mounts, result budgets or the OpenAPI import",
    `${overBudget ? "FAIL, " : ""}the app without extensions is ${apps[0].gzip} B gzip against a budget of ${ONE_TOOL_GZIP_BUDGET} B`,
  ];
  // `ok`: free of the extensions', the task runtime's and per-user state's code; the budget is checked apart (the bench prints its own goal).
  return {
    ok: traces.length === 0 && tasks.length === 0,
    withinBudget: !overBudget,
    apps,
    message: `extension cost: ${verdicts.join("; ")}\n${lines.join("\n")}`,
  };
}

/** The check alone (npm run test:all): free of that code and within the budget, its bundles in a temporary directory. */
export async function extensionCostCheck() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-ext-cost-"));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const r = await extensionCost(dir);
    return { ...r, ok: r.ok && r.withinBudget };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    unhook();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await extensionCostCheck();
  console.log(r.message);
  if (!r.ok) process.exit(1);
}
