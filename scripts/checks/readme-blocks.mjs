// Why: the README's code is what a newcomer copies first, so it must compile against the engine
// as it is. This finds the fenced blocks of a Markdown text and remembers where each starts.

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
