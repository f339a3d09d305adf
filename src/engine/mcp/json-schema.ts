/**
 * valibot → JSON Schema, once per tool when it is first listed (or first called, for a tool whose
 * arguments may be mirrored in headers), so `tools/list` never runs user code and costs nothing per
 * request, and a fresh isolate's first `tools/call` compiles no converter it does not need.
 */
import type * as v from "valibot";
import { isHeaderToken, isHeaderType } from "./rules";
import { toJsonSchema } from "./to-json-schema";

export type JsonSchemaObject = Record<string, unknown>;

/** The schema of a tool's arguments or structured result; the root is always `type: "object"`. */
export function objectJsonSchema(schema: v.GenericSchema, where: string): JsonSchemaObject {
  // Without `$schema`: draft 2020-12 is the dialect both revisions assume when it is absent.
  const json = toJsonSchema(schema);
  if (json.type !== "object") throw new Error(`${where}: the schema root must be an object schema (v.object(...))`);
  return json;
}

/** Checks a hand-written schema (`inputSchema`, `outputSchema`) has the object root every revision requires. */
export function checkRawObjectSchema(schema: JsonSchemaObject, where: string): JsonSchemaObject {
  if (schema.type !== "object") throw new Error(`${where}: a hand-written schema must have type: "object" at its root`);
  return schema;
}

/** Property names annotated with `x-mcp-header`, mapped to their header name and JSON type. */
export function mcpHeaderParams(schema: JsonSchemaObject): Map<string, { header: string; type: string }> {
  const out = new Map<string, { header: string; type: string }>();
  const props = (schema.properties ?? {}) as Record<string, JsonSchemaObject>;
  for (const [name, prop] of Object.entries(props)) {
    const header = prop["x-mcp-header"];
    if (typeof header !== "string") continue;
    const type = String(prop.type);
    if (!isHeaderToken(header)) throw new Error(`x-mcp-header "${header}" on ${name} is not an HTTP token`);
    if (!isHeaderType(type)) throw new Error(`x-mcp-header on ${name} needs a string, integer or boolean property`);
    for (const seen of out.values())
      if (seen.header.toLowerCase() === header.toLowerCase()) throw new Error(`x-mcp-header "${header}" is used twice`);
    out.set(name, { header, type });
  }
  return out;
}

/**
 * Whether a valibot schema may put `x-mcp-header` in its JSON Schema: only a metadata action's keys
 * can (to-json-schema.ts copies them), and a metadata object is data reachable from the schema
 * (entries, pipes, wrapped and option schemas), so a schema in which no object has that key has no
 * header arguments, and its call needs no conversion. Functions are not followed: a lazy schema's
 * getter is converted to a `$ref`, whose annotations never sit on a top-level property.
 */
export function mayDeclareHeaders(schema: unknown, seen = new Set<unknown>()): boolean {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return false;
  seen.add(schema);
  return Object.hasOwn(schema, "x-mcp-header") || Object.values(schema).some((s) => mayDeclareHeaders(s, seen));
}
