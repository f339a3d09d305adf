// Why: measured figures (bundle sizes, test times) drift when a page quotes a number by hand and the
// code moves on. Every figure lives in one generated file, docs/figures.md (`npm run figures` measures
// and rewrites it); a page quotes one by writing its value followed by `<!-- figure: KEY -->`, which
// renders as nothing. This check fails when a quoted value is not the file's value for its key, or
// names a key the file does not have.
//
//   node scripts/checks/figures.mjs [root]     (root defaults to the project)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const FIGURES_PAGE = "docs/figures.md";
const MARKER = /<!--\s*figure:\s*([\w.-]+)\s*-->/g;

/** The figures of docs/figures.md: its table rows `| \`key\` | value | … |`, as a Map key → value. */
export function readFigures(text) {
  const figures = new Map();
  for (const line of text.split("\n")) {
    const m = /^\|\s*`([\w.-]+)`\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (m) figures.set(m[1], m[2]);
  }
  return figures;
}

/** The README and every docs/*.md page but the figures page itself. */
function pages(root) {
  const docs = existsSync(path.join(root, "docs"))
    ? readdirSync(path.join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`)
    : [];
  return ["README.md", ...docs].filter((p) => p !== FIGURES_PAGE && existsSync(path.join(root, p)));
}

/** @returns {{ ok: boolean, message: string, stale: string[], quoted: number }} */
export function checkFigures(root = ROOT) {
  const file = path.join(root, FIGURES_PAGE);
  if (!existsSync(file))
    return { ok: false, message: `figures: ${FIGURES_PAGE} is missing (npm run figures writes it)`, stale: [], quoted: 0 };
  const figures = readFigures(readFileSync(file, "utf8"));
  const stale = [];
  let quoted = 0;
  for (const page of pages(root)) {
    const lines = readFileSync(path.join(root, page), "utf8").split("\n");
    lines.forEach((line, i) => {
      for (const m of line.matchAll(MARKER)) {
        quoted++;
        const key = m[1];
        const before = line.slice(0, m.index).trimEnd().replace(/\*+$/, "");
        if (!figures.has(key)) stale.push(`${page}:${i + 1} quotes figure "${key}", which ${FIGURES_PAGE} does not have`);
        else if (!before.endsWith(figures.get(key)))
          stale.push(`${page}:${i + 1} quotes "${key}" as "${before.slice(-24).trim()}"; ${FIGURES_PAGE} has ${figures.get(key)}`);
      }
    });
  }
  const head = `figures: ${quoted} quoted figure(s) in the README and docs/, ${figures.size} in ${FIGURES_PAGE}, ${stale.length} stale`;
  return { ok: stale.length === 0, stale, quoted, message: [head, ...stale.map((s) => `    ${s}`)].join("\n") };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkFigures(process.argv[2] ?? ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
