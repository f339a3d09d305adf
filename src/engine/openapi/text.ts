/**
 * Descriptions cut to what a model needs to pick a tool and fill its arguments: the first paragraph,
 * links and emphasis reduced to their words, at most `max` characters ending on a sentence or a word.
 * GitHub's descriptions alone are megabytes; the Worker carries these.
 */
export function shortText(text: unknown, max: number): string | undefined {
  if (typeof text !== "string" || max <= 0) return undefined;
  const first = text.trim().split(/\n\s*\n/)[0] ?? "";
  const plain = first
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*|__/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (plain === "") return undefined;
  if (plain.length <= max) return plain;
  const cut = plain.slice(0, max - 1);
  const sentence = cut.lastIndexOf(". ");
  if (sentence > max / 2) return cut.slice(0, sentence + 1);
  const word = cut.lastIndexOf(" ");
  return `${word > max / 2 ? cut.slice(0, word) : cut}…`;
}
