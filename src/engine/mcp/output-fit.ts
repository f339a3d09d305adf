/**
 * Whether a tool's declared output (its `outputSchema`) can fit a result budget (docs/results.md): one
 * rule that the app check (check-app.ts, against the app's `resultBudget`) and the doctor
 * (scripts/doctor/checks/results.mjs, against a live tools/list and the strictest common host's limit,
 * `DEFAULT_MAX_RESULT_CHARS`) both apply, so they never disagree. The Worker does not import it.
 */

/** Past this depth a schema is taken as bounding nothing (a lower bound of 0, an upper bound of none). */
const MAX_DEPTH = 32;
/** The longest JSON a number takes (`-1.2345678901234567e-308`). */
const NUMBER_CHARS = 24;

type Schema = Record<string, any>;
const isSchema = (s: unknown): s is Schema => !!s && typeof s === "object" && !Array.isArray(s);
const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : typeof s.type === "string" ? [s.type] : []);
const count = (n: unknown) => (Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : undefined);

/** A lower bound on the characters of any JSON value `schema` accepts: what it requires, at its least. */
export function leastJsonChars(schema: unknown, depth = 0): number {
  if (!isSchema(schema) || depth > MAX_DEPTH) return 0;
  const types = typesOf(schema);
  // A schema that allows several types is as small as its smallest.
  if (types.length !== 1) return types.length ? Math.min(...types.map((type) => leastJsonChars({ ...schema, type }, depth))) : 1;
  const s = schema;
  if (s.type === "string") return 2 + (count(s.minLength) ?? 0);
  if (s.type === "array") return 2 + (count(s.minItems) ?? 0) * (leastJsonChars(s.items, depth + 1) + 1);
  if (s.type === "object") {
    let n = 2;
    for (const key of Array.isArray(s.required) ? s.required : [])
      n += JSON.stringify(String(key)).length + 2 + leastJsonChars(s.properties?.[key], depth + 1);
    return n;
  }
  return 1;
}

/**
 * An upper bound on the characters of any JSON value `schema` accepts (a string's characters before
 * escaping), or Infinity where the schema sets none: a string without `maxLength`, an array without
 * `maxItems`, an object open to other properties, a `$ref`.
 */
export function mostJsonChars(schema: unknown, depth = 0): number {
  if (!isSchema(schema) || depth > MAX_DEPTH || schema.$ref !== undefined) return Infinity;
  const s = schema;
  if ("const" in s) return JSON.stringify(s.const)?.length ?? Infinity;
  if (Array.isArray(s.enum)) return Math.max(0, ...s.enum.map((e: unknown) => JSON.stringify(e)?.length ?? 0));
  for (const key of ["anyOf", "oneOf"] as const)
    if (Array.isArray(s[key])) return Math.max(...s[key].map((b: unknown) => mostJsonChars(b, depth + 1)));
  const types = typesOf(s);
  if (types.length !== 1) return types.length ? Math.max(...types.map((type) => mostJsonChars({ ...s, type }, depth))) : Infinity;
  switch (s.type) {
    case "string":
      return count(s.maxLength) === undefined ? Infinity : 2 + s.maxLength;
    case "number":
    case "integer":
      return NUMBER_CHARS;
    case "boolean":
      return 5;
    case "null":
      return 4;
    case "array": {
      const items = count(s.maxItems);
      return items === undefined ? Infinity : 2 + (items && items * (mostJsonChars(s.items, depth + 1) + 1));
    }
    case "object": {
      if (s.additionalProperties !== false || s.patternProperties !== undefined) return Infinity;
      let n = 2;
      for (const [key, value] of Object.entries(isSchema(s.properties) ? s.properties : {}))
        n += JSON.stringify(key).length + 2 + mostJsonChars(value, depth + 1);
      return n;
    }
  }
  return Infinity;
}

/**
 * The line naming a tool whose declared output cannot fit `budget` characters (`what` names the budget):
 * its output schema's required fields at their least are already over it, so every result would be cut
 * and its structured content never reach the model whole. Undefined when it can fit.
 */
export function outputCannotFit(tool: { name: string; outputSchema?: unknown }, budget: number, what: string): string | undefined {
  const least = tool.outputSchema ? leastJsonChars(tool.outputSchema) : 0;
  if (least <= budget) return undefined;
  return `Tool "${tool.name}": its declared output takes at least ${least} characters as JSON, over ${what} of ${budget}, so every result would be cut`;
}
