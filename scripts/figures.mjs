// Why: the figures the README and docs/ quote (bundle sizes, test times, costs) are measured, not typed.
// `npm run figures` measures the bundles now and reads the step times of the last `npm test` and of
// the last full `npm run test:all` (test/.tmp/*-timings.json, written by those runs), then rewrites
// docs/figures.md. A figure it cannot measure now (no full run yet on this machine) keeps its row.
// It then rewrites each value the README and docs/ quote (the number and unit right before a
// `<!-- figure: KEY -->` marker) to the file's, and scripts/checks/figures.mjs fails on any page
// that quotes another.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FIGURES_PAGE, readFigures } from "./checks/figures.mjs";
import { ROOT } from "./lib/procs.mjs";
import { bundleCheck } from "../test/engine/e2e/bundle.mjs";
import { extensionCost } from "../test/engine/e2e/ext-cost.mjs";

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const today = new Date().toISOString().slice(0, 10);

/** The rows: key → { value, what, measured }, starting from the file as it is. */
const rows = new Map();
const page = path.join(ROOT, FIGURES_PAGE);
if (existsSync(page)) {
  for (const line of readFileSync(page, "utf8").split("\n")) {
    const m = /^\|\s*`([\w.-]+)`\s*\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|/.exec(line);
    if (m) rows.set(m[1], { value: m[2], what: m[3], measured: m[4] });
  }
}
const set = (key, value, what) => rows.set(key, { value, what, measured: today });

const engine = await bundleCheck({ budget: Infinity });
if (engine.gzip) {
  set("bundle.engine.gzip", kib(engine.gzip), "the engine test app (every feature), minified, gzip");
  set("bundle.engine.raw", kib(engine.raw), "the same, minified");
}
const example = await bundleCheck({ config: "wrangler.toml", budget: Infinity });
if (example.gzip) {
  set("bundle.example.gzip", kib(example.gzip), "the example server (src/index.ts: its view, jose, itty-router), gzip");
  set("bundle.example.raw", kib(example.raw), "the same, minified");
}
const oauth = await bundleCheck({ config: "wrangler.oauth.toml", budget: Infinity });
if (oauth.gzip) {
  set("bundle.oauth.gzip", kib(oauth.gzip), "the OAuth entry (wrangler.oauth.toml: the example app and the provider), gzip");
  set("bundle.oauth.raw", kib(oauth.raw), "the same, minified");
}
const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-figures-"));
try {
  const { apps } = await extensionCost(dir);
  set("bundle.one-tool.gzip", kib(apps[0].gzip), "an app of one tool, no extensions, gzip");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// What a million of each operation costs, from the bench's committed results (`npm run bench -- --cost
// --write` writes bench/RESULTS.md): the totals of its "A million of each, in USD" table.
const COST_ROWS = {
  "2026-07-28 `tools/call`": "cost.million.modern-call",
  "2025-11-25 session `tools/call`": "cost.million.session-call",
  "a task": "cost.million.task",
  "a listen delivery": "cost.million.listen-delivery",
};
const results = path.join(ROOT, "bench/RESULTS.md");
if (existsSync(results)) {
  const text = readFileSync(results, "utf8");
  const table = text.slice(text.indexOf("A million of each, in USD"));
  const when = /Measured by `npm run bench -- --cost` on (\d{4}-\d{2}-\d{2})/.exec(text)?.[1] ?? today;
  for (const line of table
    .split("\n")
    .filter((l) => l.startsWith("| "))
    .slice(1)) {
    const cells = line.split("|").map((c) => c.trim());
    const row = Object.entries(COST_ROWS).find(([name]) => cells[1]?.startsWith(name));
    const total = /\$[0-9.]+/.exec(cells.at(-2) ?? "")?.[0];
    if (row && total) rows.set(row[1], { value: total, what: `a million: ${row[0]} (bench/RESULTS.md)`, measured: when });
  }
}

// Tool search on GitHub's API, from the bench's committed results (`npm run bench -- --tool-search --write`).
if (existsSync(results)) {
  const text = readFileSync(results, "utf8");
  const at = text.indexOf("## Tool search on GitHub's REST API");
  if (at !== -1) {
    const section = text.slice(at, text.indexOf("\n## ", at + 1) === -1 ? undefined : text.indexOf("\n## ", at + 1));
    const when = /Measured by `npm run bench -- --tool-search` on (\d{4}-\d{2}-\d{2})/.exec(section)?.[1] ?? today;
    const cell = (row, column) =>
      section
        .split("\n")
        .find((l) => l.startsWith(`| ${row} |`))
        ?.split("|")
        [column]?.trim();
    const found = {
      "search.flat.tokens": [
        cell("every operation listed flat, with input schemas", 2),
        "o200k tokens: GitHub's API listed flat, with input schemas",
      ],
      "search.summaries.tokens": [cell("names and summaries alone", 2), "o200k tokens: its names and summaries alone"],
      "search.list.tokens": [cell("toolSearch(): search_tools and call_tool", 2), "o200k tokens: its tools/list with toolSearch()"],
      "search.recall.keyword": [cell("keyword-style", 3), "search_tools recall@5, keyword-style queries"],
      "search.recall.natural": [cell("natural language", 3), "search_tools recall@5, natural-language queries"],
      "search.recall.heldout": [cell("natural language, held out", 3), "the same, queries held out from tuning"],
      "search.baseline.natural": [cell("natural language", 4), "plain BM25 over names and summaries, natural-language queries"],
      "search.call-tool.cpu": [/: ([0-9.]+×)\.\n/.exec(section)?.[1], "call_tool Worker CPU against the same direct tools/call"],
    };
    for (const [key, [value, what]] of Object.entries(found))
      if (value) rows.set(key, { value, what: `${what} (bench/RESULTS.md)`, measured: when });
  }
}

/** A timings file's steps, or undefined when that run has not been made here. */
const runOf = (name) => {
  const file = path.join(ROOT, "test/.tmp", name);
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
};
const timings = (name) => runOf(name)?.steps;
/** The machine a run's times come from, as the run recorded it. */
const on = (name) => runOf(name)?.machine ?? "2 cores";
const sum = (steps) => steps.reduce((s, t) => s + t.seconds, 0);
/** The CPU seconds (user and system, every process) of a run's steps, when the run recorded them. */
const cpuOf = (steps) =>
  steps.every((s) => typeof s.cpu === "number") ? `; CPU ${steps.reduce((c, t) => c + t.cpu, 0).toFixed(1)} s` : "";
// A clean-clone CI run runs `npm test` twice: the first has no typecheck state and checks everything
// (npm-test-first-timings.json), the second is the loop a fork lives in (npm-test-timings.json).
const npmTest = timings("npm-test-timings.json");
if (npmTest?.every((s) => s.ok)) {
  set(
    "test.npm",
    `${Math.round(sum(npmTest))} s`,
    `\`npm test\` on the example app, a second run (${on("npm-test-timings.json")}${cpuOf(npmTest)})`,
  );
  const of = (prefix) => npmTest.find((s) => s.name.startsWith(prefix));
  set("test.npm.typecheck", `${of("typecheck").seconds.toFixed(1)} s`, "its typecheck step");
  set("test.npm.vitest", `${of("your tests").seconds.toFixed(1)} s`, "its vitest step (your tests and the app checks, workerd)");
}
const npmTestFirst = timings("npm-test-first-timings.json");
if (npmTestFirst?.every((s) => s.ok))
  set(
    "test.npm.first",
    `${Math.round(sum(npmTestFirst))} s`,
    `\`npm test\`'s first run on a fresh clone, everything typechecked (${on("npm-test-first-timings.json")}${cpuOf(npmTestFirst)})`,
  );
const all = timings("test-all-timings.json");
if (all?.every((s) => s.ok)) {
  set("test.all", `${Math.round(sum(all) / 60)} minutes`, `\`npm run test:all\`, every step in sequence (${on("test-all-timings.json")})`);
  const integration = all.find((s) => s.name.startsWith("engine integration"));
  if (integration) set("test.all.integration", `${Math.round(integration.seconds)} s`, "its engine integration step (workerd)");
}

const body = [
  "# Measured figures",
  "",
  "Generated by `npm run figures`: do not edit by hand. The pages quote these values, and `npm run checks`",
  "fails when a page quotes another (`scripts/checks/figures.mjs`). Bundle sizes are measured when the",
  "command runs; test times come from the last full `npm test` runs (a fresh clone's first, which",
  "typechecks everything, and a later one) and `npm run test:all`, each with the machine that ran it,",
  "its load and the CPU seconds the run used; costs from the bench's committed results",
  "(`npm run bench -- --cost --write`, bench/RESULTS.md).",
  "",
  "| figure | value | what | measured |",
  "| --- | --- | --- | --- |",
  ...[...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, r]) => `| \`${key}\` | ${r.value} | ${r.what} | ${r.measured} |`),
  "",
].join("\n");
writeFileSync(page, body);

// The quoted values: a number (with its unit) right before each marker, possibly in bold.
const figures = readFigures(body);
const QUOTED = /\$?[0-9][0-9,.]*(?:\s?(?:KiB|MiB|B|ms|µs|s|minutes|×))?(\**)(\s*)<!--\s*figure:\s*([\w.-]+)\s*-->/g;
const pages = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
].filter((p) => p !== FIGURES_PAGE);
for (const rel of pages) {
  const file = path.join(ROOT, rel);
  const text = readFileSync(file, "utf8");
  const next = text.replace(QUOTED, (whole, bold, space, key) =>
    figures.has(key) ? `${figures.get(key)}${bold}${space}<!-- figure: ${key} -->` : whole,
  );
  if (next !== text) {
    writeFileSync(file, next);
    console.log(`  ${rel}: quoted figures brought up to date`);
  }
}
console.log(`${FIGURES_PAGE}: ${rows.size} figures\n${[...readFigures(body)].map(([k, v]) => `  ${k}: ${v}`).join("\n")}`);
