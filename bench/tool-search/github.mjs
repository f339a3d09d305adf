// Why: the bench's large API. GitHub's REST API as the tools an OpenAPI import would make of it
// (@octokit/openapi 23.0.2, a devDependency): one tool per operation, named from its operationId with
// every character outside [A-Za-z0-9_-] made `_`, its summary the title, its description the
// description, and its path, query and JSON body fields flat in one input schema. Read straight from
// the JSON, so the search bench does not depend on the importer's code.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../scripts/lib/procs.mjs";

const DOCUMENT = path.join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
const METHODS = ["get", "put", "post", "delete", "patch", "head"];

/** A `$ref` inside the document, followed (once; enough for parameters and body schemas). */
function resolve(doc, node) {
  if (!node?.$ref) return node;
  return node.$ref
    .slice(2)
    .split("/")
    .reduce((at, key) => at?.[key.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
}

/** A field's schema as a listing shows it: its type and the first sentence of its description. */
function field(schema, description) {
  const out = {};
  if (schema?.type) out.type = schema.type;
  if (schema?.enum) out.enum = schema.enum;
  const text = description ?? schema?.description;
  if (text)
    out.description = String(text)
      .split(/(?<=\.)\s/)[0]
      .slice(0, 200);
  return out;
}

/**
 * Every operation of GitHub's document as a listed tool: { name, title, description, inputSchema },
 * in the document's order. `limit` keeps the first operations only.
 * @param {number} [limit]
 */
export function githubTools(limit = Infinity) {
  const doc = JSON.parse(readFileSync(DOCUMENT, "utf8"));
  const tools = [];
  const taken = new Set();
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId || tools.length >= limit) continue;
      const properties = {};
      const required = [];
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(doc, p))) {
        if (!p || (p.in !== "path" && p.in !== "query")) continue;
        properties[p.name] = field(resolve(doc, p.schema), p.description);
        if (p.required) required.push(p.name);
      }
      const body = resolve(doc, resolve(doc, op.requestBody)?.content?.["application/json"]?.schema);
      for (const [name, schema] of Object.entries(body?.properties ?? {})) properties[name] ??= field(resolve(doc, schema));
      for (const name of body?.required ?? []) if (!required.includes(name)) required.push(name);
      // At most 64 characters, and unique: a name cut short that another already took gets a number.
      let name = op.operationId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
      for (let n = 2; taken.has(name); n++) name = `${name.slice(0, 64 - String(n).length - 1)}_${n}`;
      taken.add(name);
      tools.push({
        name,
        title: op.summary,
        description: op.description,
        inputSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
        path: route,
        method: method.toUpperCase(),
      });
    }
  }
  return tools;
}
