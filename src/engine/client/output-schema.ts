/**
 * Checks a tool's `structuredContent` against the `outputSchema` it listed,
 * as a client SHOULD. A full JSON Schema validator would double the client's
 * size, so this judges the keywords structured results use in practice —
 * type, enum, const, properties, required, additionalProperties, items,
 * prefixItems, the length, count and range bounds, pattern, allOf, anyOf,
 * oneOf, not, and `$ref` into the same schema — and passes over any other
 * keyword: it may miss a violation, never invent one. Work is bounded, so a
 * hostile schema cannot make it spin: nodes visited, depth (a `$ref` to
 * itself), the length of a string a `pattern` is tested on, and no pattern
 * that can backtrack without end (a quantified group that holds a quantifier
 * or an alternation, like `^(a+)+$`) is tested at all. What is not judged passes.
 */
import type { ClientLimits } from "./limits";

type Schema = Record<string, unknown> | boolean;
type Bounds = Pick<ClientLimits, "schemaSteps" | "schemaDepth" | "patternInputLength">;

/**
 * Whether testing `pattern` could take time out of all proportion to the input, read in one pass:
 * a repeated group that holds a quantifier or an alternation (`^(a+)+$` took 11 s on 28 characters),
 * or more than two unbounded quantifiers (`a*a*a*b` is polynomial of that degree on a failing input).
 */
function risky(pattern: string): boolean {
  /** For each open group: whether it holds a quantifier or an alternation. */
  const groups: boolean[] = [];
  let unbounded = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
    } else if (c === "(") {
      groups.push(false);
      if (pattern[i + 1] === "?") i++; // (?: (?= (?! (?<name>: not a quantifier
    } else if (c === ")") {
      const inner = groups.pop() ?? false;
      const next = pattern[i + 1];
      const repeated = next === "*" || next === "+" || (next === "{" && /^\{\d*,/.test(pattern.slice(i + 1, i + 12)));
      if (inner && repeated) return true;
      if (groups.length) groups[groups.length - 1] ||= inner;
      continue;
    } else if (c === "*" || c === "+" || c === "?" || c === "{" || c === "|") {
      if (groups.length) groups[groups.length - 1] = true;
      if ((c === "*" || c === "+" || (c === "{" && /^\{\d*,\}/.test(pattern.slice(i, i + 12)))) && ++unbounded > 2) return true;
    }
  }
  return false;
}

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

const fits = (type: string, actual: string) => type === actual || (type === "number" && actual === "integer");

/** Deep equality of JSON values (for enum and const). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Resolves `#/…` (a JSON pointer into the root schema); anything else is not followed. */
function resolve(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split("/").slice(1)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return typeof node === "object" || typeof node === "boolean" ? (node as Schema) : undefined;
}

/** The first way `value` breaks `schema`, as "path: problem", or undefined when none is found. */
export function schemaViolation(schema: unknown, value: unknown, bounds: Bounds): string | undefined {
  if (typeof schema !== "object" && typeof schema !== "boolean") return undefined;
  let budget = bounds.schemaSteps;
  let depth = 0;
  const root = schema as Schema;

  const check = (s: Schema, v: unknown, path: string): string | undefined => {
    // Too deep (a `$ref` to itself, say): nothing more is judged, so `not` and `oneOf` invent nothing.
    if (depth >= bounds.schemaDepth) budget = -1;
    if (--budget < 0) return undefined;
    depth++;
    try {
      return judge(s, v, path);
    } finally {
      depth--;
    }
  };

  const judge = (s: Schema, v: unknown, path: string): string | undefined => {
    if (s === true) return undefined;
    if (s === false) return `${path}: no value is allowed here`;
    const at = (problem: string) => `${path}: ${problem}`;
    const actual = typeOf(v);
    if (typeof s.$ref === "string") {
      const target = resolve(root, s.$ref);
      const e = target === undefined ? undefined : check(target, v, path);
      if (e) return e;
    }
    const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : undefined;
    if (types && !types.some((t) => fits(t, actual))) return at(`expected ${types.join(" or ")}, got ${actual}`);
    if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, v))) return at(`not one of the allowed values`);
    if ("const" in s && !same(s.const, v)) return at(`not the constant value`);
    if (typeof v === "string") {
      const length = [...v].length;
      if (typeof s.minLength === "number" && length < s.minLength) return at(`shorter than ${s.minLength}`);
      if (typeof s.maxLength === "number" && length > s.maxLength) return at(`longer than ${s.maxLength}`);
      if (typeof s.pattern === "string" && v.length <= bounds.patternInputLength && !risky(s.pattern)) {
        let re: RegExp | undefined;
        try {
          re = new RegExp(s.pattern, "u");
        } catch {
          // A pattern JavaScript cannot read is not judged.
        }
        if (re && !re.test(v)) return at(`does not match ${s.pattern}`);
      }
    }
    if (typeof v === "number") {
      if (typeof s.minimum === "number" && v < s.minimum) return at(`less than ${s.minimum}`);
      if (typeof s.maximum === "number" && v > s.maximum) return at(`more than ${s.maximum}`);
      if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return at(`not more than ${s.exclusiveMinimum}`);
      if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return at(`not less than ${s.exclusiveMaximum}`);
    }
    if (Array.isArray(v)) {
      if (typeof s.minItems === "number" && v.length < s.minItems) return at(`fewer than ${s.minItems} items`);
      if (typeof s.maxItems === "number" && v.length > s.maxItems) return at(`more than ${s.maxItems} items`);
      const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : [];
      for (let i = 0; i < v.length; i++) {
        const item = i < prefix.length ? prefix[i] : (s.items as Schema | undefined);
        const e = item === undefined ? undefined : check(item, v[i], `${path}[${i}]`);
        if (e) return e;
      }
    }
    if (actual === "object") {
      const obj = v as Record<string, unknown>;
      for (const key of Array.isArray(s.required) ? (s.required as string[]) : [])
        if (!(key in obj)) return at(`missing required "${key}"`);
      const props = (typeof s.properties === "object" && s.properties !== null ? s.properties : {}) as Record<string, Schema>;
      for (const [key, item] of Object.entries(obj)) {
        const known = Object.hasOwn(props, key);
        const sub = known ? props[key] : s.patternProperties === undefined ? (s.additionalProperties as Schema | undefined) : undefined;
        const e = sub === undefined ? undefined : check(sub, item, `${path}.${key}`);
        if (e) return e;
      }
    }
    for (const sub of Array.isArray(s.allOf) ? (s.allOf as Schema[]) : []) {
      const e = check(sub, v, path);
      if (e) return e;
    }
    if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some((sub) => check(sub, v, path) === undefined))
      return at(`matches none of anyOf`);
    if (Array.isArray(s.oneOf) && (s.oneOf as Schema[]).filter((sub) => check(sub, v, path) === undefined).length !== 1 && budget >= 0)
      return at(`does not match exactly one of oneOf`);
    if (
      s.not !== undefined &&
      (typeof s.not === "object" || typeof s.not === "boolean") &&
      check(s.not as Schema, v, path) === undefined &&
      budget >= 0
    )
      return at(`matches the schema in not`);
    return undefined;
  };
  try {
    return check(root, value, "structuredContent");
  } catch (err) {
    // A value nested deeper than the stack (in enum or const) is not judged either.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}
