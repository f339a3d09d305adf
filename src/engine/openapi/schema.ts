/**
 * An OpenAPI 3.0 or 3.1 schema as the JSON Schema (2020-12) a tool's input carries: `$ref`s followed,
 * 3.0's `nullable` and boolean `exclusiveMinimum` written the 3.1 way, and only the keywords a model
 * or the argument check (validate.ts) reads. Examples, XML hints, `readOnly` properties (never sent in
 * a request) and vendor extensions are dropped; descriptions are cut; a schema that refers to itself
 * is cut where it recurs, and one deeper than MAX_DEPTH keeps only its type.
 */
import { isObject } from "../mcp/guards";
import { resolved } from "./refs";
import { shortText } from "./text";

export type Schema = Record<string, unknown>;

/** Levels of nesting kept in full: deeper, a schema keeps its type only (GitHub's deepest bodies stay readable). */
const MAX_DEPTH = 6;
/** Copied as they are. */
const KEPT = [
  "type",
  "enum",
  "const",
  "default",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
] as const;

interface SchemaOptions {
  /** The longest description kept on a nested schema. */
  descriptionMax: number;
}

/** `schema` (a document's) as an input schema; `{}` (anything) for what is no schema. */
export function compactSchema(doc: Record<string, unknown>, schema: unknown, options: SchemaOptions): Schema {
  return walk(doc, schema, options, new Set(), 0);
}

function walk(doc: Record<string, unknown>, raw: unknown, options: SchemaOptions, seen: Set<unknown>, depth: number): Schema {
  if (raw === true || raw === undefined) return {};
  if (raw === false) return { not: {} };
  const schema = resolved(doc, raw);
  // A ref that leads nowhere, or one met again inside itself: anything, rather than an endless schema.
  if (!schema || seen.has(schema)) return {};
  const out: Schema = {};
  for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];
  const description = shortText(schema.description, options.descriptionMax);
  if (description) out.description = description;
  // 3.0: `exclusiveMinimum: true` beside `minimum` is 3.1's `exclusiveMinimum: <minimum>`.
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const)
    if (typeof out[flag] === "boolean") {
      if (out[flag] && typeof out[bound] === "number") out[flag] = out[bound];
      else delete out[flag];
      if (typeof out[flag] === "number") delete out[bound];
    }
  if (depth >= MAX_DEPTH) return nullable(schema, out.type !== undefined ? { type: out.type } : {});
  seen.add(schema);
  const child = (s: unknown) => walk(doc, s, options, seen, depth + 1);
  if (isObject(schema.properties)) {
    const properties: Schema = {};
    for (const [name, prop] of Object.entries(schema.properties)) {
      // What the server writes is never sent: a model need not see it.
      if (resolved(doc, prop)?.readOnly === true) continue;
      properties[name] = child(prop);
    }
    out.properties = properties;
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter((r) => typeof r === "string" && r in properties);
      if (required.length) out.required = required;
    }
  }
  if (schema.additionalProperties !== undefined)
    out.additionalProperties =
      typeof schema.additionalProperties === "boolean" ? schema.additionalProperties : child(schema.additionalProperties);
  if (schema.items !== undefined && !Array.isArray(schema.items)) out.items = child(schema.items);
  for (const key of ["oneOf", "anyOf", "allOf"] as const) if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map(child);
  seen.delete(schema);
  return nullable(schema, out);
}

/** 3.0's `nullable: true` as 3.1 says it: `null` among the types (or the enum), or a branch of its own. */
function nullable(schema: Schema, out: Schema): Schema {
  if (schema.nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type)) {
    if (!out.type.includes("null")) out.type = [...out.type, "null"];
  } else if (Array.isArray(out.oneOf)) out.oneOf = [...out.oneOf, { type: "null" }];
  else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: "null" }];
  return out;
}
