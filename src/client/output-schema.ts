/**
 * Checks a tool's `structuredContent` against the `outputSchema` it listed,
 * as a client SHOULD. A full JSON Schema validator would double the client's
 * size, so this judges the keywords structured results use in practice —
 * type, enum, const, properties, required, additionalProperties, items,
 * prefixItems, the length, count and range bounds, pattern, allOf, anyOf,
 * oneOf, not, and `$ref` into the same schema — and passes over any other
 * keyword: it may miss a violation, never invent one. Work is bounded, so a
 * hostile schema cannot make it spin.
 */

type Schema = Record<string, unknown> | boolean;

/** Schema nodes visited per check, at most; past it the rest is not judged. */
const BUDGET = 10_000;

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
export function schemaViolation(schema: unknown, value: unknown): string | undefined {
  if (typeof schema !== "object" && typeof schema !== "boolean") return undefined;
  let budget = BUDGET;
  const root = schema as Schema;

  const check = (s: Schema, v: unknown, path: string): string | undefined => {
    if (--budget < 0) return undefined;
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
      if (typeof s.pattern === "string") {
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
      for (const key of Array.isArray(s.required) ? (s.required as string[]) : []) if (!(key in obj)) return at(`missing required "${key}"`);
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
    if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some((sub) => check(sub, v, path) === undefined)) return at(`matches none of anyOf`);
    if (Array.isArray(s.oneOf) && (s.oneOf as Schema[]).filter((sub) => check(sub, v, path) === undefined).length !== 1) return at(`does not match exactly one of oneOf`);
    if (s.not !== undefined && (typeof s.not === "object" || typeof s.not === "boolean") && check(s.not as Schema, v, path) === undefined && budget >= 0) return at(`matches the schema in not`);
    return undefined;
  };
  return check(root, value, "structuredContent");
}
