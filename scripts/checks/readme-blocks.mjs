// Why: the README's code, and the docs/ pages', is what a newcomer copies first, so it must compile
// against the engine as it is. This finds the fenced blocks of a Markdown text and remembers where
// each starts, and lists the pages the checks read.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * Fenced code blocks (``` or ~~~, any fence length, indented up to three spaces).
 * @returns {{ info: string, line: number, code: string }[]} line: 1-based line of the opening fence
 */
export function fencedBlocks(markdown) {
  const lines = markdown.split(/\r?\n/);
  const blocks = [];
  let open = null;
  lines.forEach((text, i) => {
    if (!open) {
      const m = text.match(/^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)(.*)$/);
      if (m) open = { fence: m[1], info: m[2], line: i + 1, body: [] };
      return;
    }
    const close = text.match(/^ {0,3}(`{3,}|~{3,})\s*$/);
    if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
      blocks.push({ info: open.info, line: open.line, code: open.body.join("\n") });
      open = null;
    } else open.body.push(text);
  });
  return blocks;
}

/**
 * The documentation pages whose blocks and links are checked: README.md, then every docs/*.md.
 * @returns {string[]} paths relative to `root`, with forward slashes
 */
export function docFiles(root) {
  const docs = path.join(root, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return [...(existsSync(path.join(root, "README.md")) ? ["README.md"] : []), ...pages];
}

/** Every fenced block of every documentation page, each with the page it is in. */
export function docBlocks(root) {
  return docFiles(root).flatMap((file) => fencedBlocks(readFileSync(path.join(root, file), "utf8")).map((b) => ({ ...b, file })));
}
