// Why: the README is a page of the fork's path that sends the reader to docs/ for everything else,
// and the pages send readers to one another. A link whose page was renamed, or whose heading was
// reworded (GitHub makes each heading an #anchor), lands the reader nowhere with no warning. This
// follows every relative link of README.md and docs/*.md: its file must exist, and when it points
// into a Markdown page with an #anchor, that page must have the heading. External links (a scheme
// such as https: or mailto:) are left alone: checking them needs the network.
//
//   node scripts/checks/doc-links.mjs [root]     (root defaults to the project)
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { docFiles } from "./readme-blocks.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Markdown text with fenced code blocks blanked out, and inline code too unless `keepCode` (same line count). */
function prose(markdown, keepCode = false) {
  let fence = null;
  return markdown
    .split(/\r?\n/)
    .map((line) => {
      const m = line.match(/^ {0,3}(`{3,}|~{3,})/);
      if (fence) {
        if (m && m[1][0] === fence[0] && m[1].length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = null;
        return "";
      }
      if (m) {
        fence = m[1];
        return "";
      }
      return keepCode ? line : line.replace(/(`+)[^`]*?\1/g, (code) => " ".repeat(code.length));
    })
    .join("\n");
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link keeps its text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/[*~`]/g, ""); // emphasis marks and code ticks (underscores stay: GitHub keeps them)
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown page: one per ATX heading, repeats numbered -1, -2 as GitHub does. */
export function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const line of prose(markdown, true).split("\n")) {
    const m = line.match(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Links in a page: [text](target) and [text](target "title"); images too. */
function links(markdown) {
  const found = [];
  prose(markdown)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: m[1], line: i + 1 });
    });
  return found;
}

/** @returns {{ ok: boolean, message: string, failures: { file: string, line: number, target: string, why: string }[] }} */
export function checkDocLinks(root = ROOT) {
  const files = docFiles(root);
  const texts = new Map(files.map((f) => [f, readFileSync(path.join(root, f), "utf8")]));
  const anchorCache = new Map();
  const anchorsOf = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchors(texts.get(file) ?? readFileSync(path.join(root, file), "utf8")));
    return anchorCache.get(file);
  };
  const failures = [];
  let count = 0;
  for (const file of files) {
    for (const { target, line } of links(texts.get(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …: external
      count++;
      const [pathPart, anchor] = target.split("#", 2);
      const to = pathPart ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart))) : file;
      const fail = (why) => failures.push({ file, line, target, why });
      if (to.startsWith("..")) {
        fail("points outside the project");
        continue;
      }
      if (!existsSync(path.join(root, to))) {
        fail(`no file ${to}`);
        continue;
      }
      if (anchor === undefined || !to.endsWith(".md")) continue;
      if (!anchorsOf(to).has(decodeURIComponent(anchor).toLowerCase())) fail(`${to} has no heading #${anchor}`);
    }
  }
  const head = `doc links: ${count} relative link(s) in ${files.length} page(s) (README.md, docs/*.md), ${failures.length} broken`;
  return {
    ok: failures.length === 0,
    failures,
    message: [head, ...failures.map((f) => `  ${f.file}:${f.line}: (${f.target}) ${f.why}`)].join("\n"),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkDocLinks(process.argv[2] ? path.resolve(process.argv[2]) : ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
