/**
 * The YAML frontmatter of a SKILL.md, read into JSON so it can be compared with the skill's entry.
 * It reads the YAML that skills use (block mappings and sequences of scalars, plain, quoted and
 * block scalars, comments) with YAML 1.2 core typing; anything else throws, and the skill is then
 * not loaded: content a reader might understand differently from the server is not content to trust.
 */
export class FrontmatterError extends Error {
  override readonly name = "FrontmatterError";
}

interface Line {
  indent: number;
  text: string;
}

/** Splits a SKILL.md into its frontmatter (as JSON) and its body. */
export function readSkillMarkdown(markdown: string): { frontmatter: Record<string, unknown>; body: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(markdown);
  if (!m) throw new FrontmatterError("SKILL.md does not begin with --- delimited frontmatter");
  if (/^ *\t/m.test(m[1]!)) throw new FrontmatterError("tabs cannot indent YAML");
  const lines = m[1]!
    .split(/\r?\n/)
    .map((raw) => ({ indent: raw.length - raw.trimStart().length, text: raw.trim() }))
    .filter((l) => l.text !== "" && !l.text.startsWith("#"));
  const reader = { lines, at: 0 };
  const value = lines.length === 0 ? {} : block(reader, lines[0]!.indent);
  if (reader.at < lines.length) throw new FrontmatterError(`unexpected line: ${lines[reader.at]!.text}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FrontmatterError("the frontmatter is not a mapping");
  return { frontmatter: value as Record<string, unknown>, body: markdown.slice(m[0].length) };
}

type Reader = { lines: Line[]; at: number };

function block(r: Reader, indent: number): unknown {
  return r.lines[r.at]!.text.startsWith("- ") || r.lines[r.at]!.text === "-" ? sequence(r, indent) : mapping(r, indent);
}

function mapping(r: Reader, indent: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (r.at < r.lines.length && r.lines[r.at]!.indent === indent) {
    const line = r.lines[r.at]!;
    const m = keyValue(line.text);
    if (!m) throw new FrontmatterError(`expected "key: value": ${line.text}`);
    const key = String(scalar(m[0]));
    if (key === "__proto__" || Object.hasOwn(out, key)) throw new FrontmatterError(`key "${key}" is not allowed or repeated`);
    r.at++;
    out[key] = value(r, indent, m[1]);
  }
  return out;
}

/**
 * A mapping line's key and inline value, found in one pass: a regex with a lazy key before `\s*:`
 * retries the spaces after every character, which is quadratic on a long line (60,000 characters: 4 s).
 */
function keyValue(text: string): [string, string | undefined] | undefined {
  let key: string;
  let after: string;
  const quoted = text[0] === '"' ? /^"(?:[^"\\]|\\.)*"/.exec(text) : text[0] === "'" ? /^'(?:[^']|'')*'/.exec(text) : undefined;
  if (quoted !== undefined) {
    const colon = quoted && /^\s*:/.exec(text.slice(quoted[0].length));
    if (!quoted || !colon) return undefined;
    key = quoted[0];
    after = text.slice(quoted[0].length + colon[0].length);
  } else {
    // A plain key runs to the first colon, holds no "#", and starts with no indicator character.
    const colon = text.indexOf(":");
    const hash = text.indexOf("#");
    if (colon < 1 || (hash >= 0 && hash < colon) || !/^(?:[^\s#'"[\]{},&*!|>%@`-]|-[^\s:#])/.test(text)) return undefined;
    key = text.slice(0, colon).trimEnd();
    after = text.slice(colon + 1);
  }
  if (after !== "" && !/^\s/.test(after)) return undefined;
  return [key, after === "" ? undefined : after.trimStart()];
}

function sequence(r: Reader, indent: number): unknown[] {
  const out: unknown[] = [];
  while (r.at < r.lines.length && r.lines[r.at]!.indent === indent && /^-(\s|$)/.test(r.lines[r.at]!.text)) {
    const rest = r.lines[r.at]!.text.slice(1).trim();
    if (/^[^'"]*:(\s|$)/.test(rest)) throw new FrontmatterError("mappings inside sequences are not read here");
    r.at++;
    out.push(value(r, indent, rest || undefined));
  }
  return out;
}

/** The value after `key:` or `-`: inline, a block scalar, or a nested block on the following lines. */
function value(r: Reader, indent: number, inline: string | undefined): unknown {
  const next = r.lines[r.at];
  if (inline === undefined || inline.startsWith("#")) {
    if (next && next.indent > indent) return block(r, next.indent);
    // A mapping's sequence may sit at the key's own indentation ("tools:" then "- Read").
    if (next && next.indent === indent && /^-(\s|$)/.test(next.text) && !/^-(\s|$)/.test(r.lines[r.at - 1]!.text))
      return sequence(r, indent);
    return null;
  }
  const header = /^([|>])([+-]?)\s*(#.*)?$/.exec(inline);
  if (!header) return scalar(inline);
  const parts: string[] = [];
  while (r.at < r.lines.length && r.lines[r.at]!.indent > indent) parts.push(r.lines[r.at++]!.text);
  // Blank lines inside a block scalar were dropped with the comments: only single-paragraph blocks are read exactly.
  const text = header[1] === "|" ? parts.join("\n") : parts.join(" ");
  return header[2] === "-" ? text : `${text}\n`;
}

const NUMBER = /^[-+]?(\d+|\d*\.\d+|\d+\.\d*)([eE][-+]?\d+)?$/;

function scalar(raw: string): unknown {
  if (raw.startsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*")\s*(#.*)?$/.exec(raw);
    if (!m) throw new FrontmatterError(`bad double-quoted value: ${raw}`);
    return JSON.parse(m[1]!);
  }
  if (raw.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(raw);
    if (!m) throw new FrontmatterError(`bad single-quoted value: ${raw}`);
    return m[1]!.replace(/''/g, "'");
  }
  if (/^[[{&*!%@`]/.test(raw)) throw new FrontmatterError(`flow collections, anchors and tags are not read here: ${raw}`);
  // A comment starts at the first "#" after whitespace (found in one pass: `/\s+#.*$/` is quadratic on a run of spaces).
  const hash = raw.search(/\s#/);
  const text = (hash < 0 ? raw : raw.slice(0, hash)).trim();
  if (/:\s/.test(text)) throw new FrontmatterError(`a plain value cannot contain ": ": ${raw}`);
  if (/^(~|null|Null|NULL)?$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (NUMBER.test(text)) return Number(text);
  return text;
}
