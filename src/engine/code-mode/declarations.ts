/**
 * The TypeScript a model reads to call a tool from code: `name(args: {…}): Promise<…>`, made from the
 * tool's JSON input and output schemas. Compact on purpose (one line a tool, the description as a
 * short comment): it rides in every `search_tools` answer. A schema this does not understand, or one
 * nested past a few levels, is `unknown`, never an error.
 */

type Schema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Past this depth a schema reads `unknown`: the model sees the shape, not every corner of it. */
const MAX_DEPTH = 4;
/** Past this many members an object or union is cut with `…`. */
const MAX_MEMBERS = 40;

const key = (name: string) => (IDENT.test(name) ? name : JSON.stringify(name));

/** A JSON Schema as a TypeScript type. */
export function typeOf(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (typeof schema !== "object" || schema === null || depth > MAX_DEPTH) return "unknown";
  const s = schema as Schema;
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  for (const k of ["anyOf", "oneOf"] as const) if (Array.isArray(s[k])) return union((s[k] as unknown[]).map((x) => typeOf(x, depth + 1)));
  if (Array.isArray(s.allOf)) return (s.allOf as unknown[]).map((x) => typeOf(x, depth + 1)).join(" & ") || "unknown";
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type === undefined ? inferred(s) : [s.type];
  return union(types.map((t) => one(String(t), s, depth)));
}

/** A schema without `type` that still says what it is. */
function inferred(s: Schema): string[] {
  if (s.properties || s.additionalProperties) return ["object"];
  if (s.items) return ["array"];
  return ["unknown"];
}

function one(type: string, s: Schema, depth: number): string {
  switch (type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return type;
    case "integer":
      return "number";
    case "array": {
      const item = typeOf(s.items, depth + 1);
      return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case "object":
      return objectType(s, depth);
    default:
      return "unknown";
  }
}

function objectType(s: Schema, depth: number): string {
  const props = (typeof s.properties === "object" && s.properties) || {};
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const entries = Object.entries(props as Record<string, unknown>);
  const members = entries.slice(0, MAX_MEMBERS).map(([name, sub]) => {
    const doc = (sub as Schema | undefined)?.description;
    const comment = typeof doc === "string" && doc ? `/** ${short(doc, 80)} */ ` : "";
    return `${comment}${key(name)}${required.has(name) ? "" : "?"}: ${typeOf(sub, depth + 1)}`;
  });
  if (entries.length > MAX_MEMBERS) members.push("/* … */");
  const extra = s.additionalProperties;
  if (members.length === 0)
    return extra === false ? "{}" : `Record<string, ${extra && extra !== true ? typeOf(extra, depth + 1) : "unknown"}>`;
  if (extra && typeof extra === "object") members.push(`[key: string]: ${typeOf(extra, depth + 1)}`);
  return `{ ${members.join("; ")} }`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes("unknown") || unique.length === 0) return "unknown";
  return unique.length > MAX_MEMBERS ? `${unique.slice(0, MAX_MEMBERS).join(" | ")} | …` : unique.join(" | ");
}

const literal = (v: unknown) =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null ? JSON.stringify(v) : "unknown";

/** One sentence or `max` characters, whichever is shorter, without anything that would end a comment. */
function short(text: string, max: number): string {
  const first = text
    .replace(/\*\//g, "* /")
    .split(/(?<=[.!?])\s/)[0]!
    .replace(/\s+/g, " ")
    .trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** A tool as the code calls it: `/** what it does *\/ name(args: {…}): Promise<…>;` */
export function declarationOf(tool: { name: string; description?: unknown; inputSchema?: unknown; outputSchema?: unknown }): string {
  const doc = typeof tool.description === "string" && tool.description ? `/** ${short(tool.description, 120)} */ ` : "";
  const args = typeOf(tool.inputSchema ?? { type: "object" });
  const out = tool.outputSchema ? typeOf(tool.outputSchema) : "unknown";
  return `${doc}${key(tool.name)}(args: ${args}): Promise<${out}>;`;
}
