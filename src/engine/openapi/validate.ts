/**
 * The check of a call's arguments against an imported tool's input schema, before anything is sent
 * upstream: the JSON Schema keywords schema.ts keeps (types, enums, required and unknown properties,
 * bounds, nested objects and arrays, alternatives). `pattern` and `format` are left to the upstream,
 * which checks them anyway: a document's regular expression is not run here. `oneOf` is checked as
 * `anyOf`: an argument that fits two branches is still one the upstream can judge.
 */
import { isObject } from "../mcp/guards";
import type { Schema } from "./schema";

/** How many problems one answer names. */
const MAX_PROBLEMS = 5;

/** What is wrong with `value` under `schema`, one line per problem naming its field; empty when nothing is. */
export function problemsOf(schema: Schema, value: unknown): string[] {
  const out: string[] = [];
  check(schema, value, "", out);
  return out.slice(0, MAX_PROBLEMS);
}

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" && Number.isInteger(v) ? "integer" : typeof v;

function fits(type: unknown, value: unknown): boolean {
  const actual = typeOf(value);
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => t === actual || (t === "number" && actual === "integer"));
}

function check(schema: Schema, value: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_PROBLEMS) return;
  const at = path || "the arguments";
  if (schema.not !== undefined && isObject(schema.not) && Object.keys(schema.not).length === 0) {
    out.push(`${at}: no value is allowed here`);
    return;
  }
  if (schema.type !== undefined && !fits(schema.type, value)) {
    out.push(`${at}: expected ${Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type}, got ${typeOf(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    out.push(`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
    return;
  }
  if (schema.const !== undefined && schema.const !== value) out.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  bounds(schema, value, at, out);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length && !branches.some((b) => problemsOf(b as Schema, value).length === 0)) {
      out.push(`${at}: matches none of the ${branches.length} forms it may take`);
      return;
    }
  }
  if (Array.isArray(schema.allOf)) for (const b of schema.allOf) check(b as Schema, value, path, out);
  if (Array.isArray(value) && isObject(schema.items))
    for (const [i, item] of value.entries()) check(schema.items, item, `${path}[${i}]`, out);
  if (isObject(value)) objectProblems(schema, value, path, out);
}

function objectProblems(schema: Schema, value: Record<string, unknown>, path: string, out: string[]): void {
  const props = isObject(schema.properties) ? schema.properties : {};
  const field = (k: string) => (path ? `${path}.${k}` : k);
  if (Array.isArray(schema.required))
    for (const r of schema.required) if (typeof r === "string" && value[r] === undefined) out.push(`${field(r)}: required`);
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const prop = props[k];
    if (isObject(prop)) check(prop, v, field(k), out);
    else if (schema.additionalProperties === false) out.push(`${field(k)}: not an argument of this tool`);
    else if (isObject(schema.additionalProperties)) check(schema.additionalProperties, v, field(k), out);
  }
}

function bounds(schema: Schema, value: unknown, at: string, out: string[]): void {
  const n = (k: string) => (typeof schema[k] === "number" ? (schema[k] as number) : undefined);
  if (typeof value === "number") {
    const [min, max, xmin, xmax] = [n("minimum"), n("maximum"), n("exclusiveMinimum"), n("exclusiveMaximum")];
    if (min !== undefined && value < min) out.push(`${at}: must be at least ${min}`);
    if (max !== undefined && value > max) out.push(`${at}: must be at most ${max}`);
    if (xmin !== undefined && value <= xmin) out.push(`${at}: must be more than ${xmin}`);
    if (xmax !== undefined && value >= xmax) out.push(`${at}: must be less than ${xmax}`);
  } else if (typeof value === "string") {
    // Characters as JSON Schema counts them: code points.
    const length = [...value].length;
    if (n("minLength") !== undefined && length < n("minLength")!) out.push(`${at}: at least ${n("minLength")} characters`);
    if (n("maxLength") !== undefined && length > n("maxLength")!) out.push(`${at}: at most ${n("maxLength")} characters`);
  } else if (Array.isArray(value)) {
    if (n("minItems") !== undefined && value.length < n("minItems")!) out.push(`${at}: at least ${n("minItems")} items`);
    if (n("maxItems") !== undefined && value.length > n("maxItems")!) out.push(`${at}: at most ${n("maxItems")} items`);
  }
}
