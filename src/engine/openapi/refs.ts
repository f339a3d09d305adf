/**
 * A document's internal `$ref`s (`#/components/schemas/issue`), followed where an import reads them.
 * External refs (another file, a URL) are not fetched: a document that has them is bundled into one
 * first (`npx @redocly/cli bundle`, docs/openapi.md), and an import names each one it meets.
 */
import { isObject } from "../mcp/guards";

/** The value a JSON Pointer ref names in `doc`, or undefined when it names nothing there. */
function pointer(doc: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(at) && !Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** `value` with its `$ref`s followed (a chain of them, up to 32), or undefined when one leads nowhere. */
export function resolved(doc: Record<string, unknown>, value: unknown): Record<string, unknown> | undefined {
  let at = value;
  for (let hops = 0; isObject(at) && typeof at.$ref === "string"; hops++) {
    if (hops === 32) return undefined;
    at = pointer(doc, at.$ref);
  }
  return isObject(at) ? at : undefined;
}
