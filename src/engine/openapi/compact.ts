/**
 * An OpenAPI 3.0 or 3.1 document reduced to what its tools need (the compact form): per operation
 * its tool name, title, short description, method, path template, where each argument goes, the flat
 * input schema and the OAuth scopes its `security` names. `npm run openapi` writes it at build time
 * (scripts/openapi.mjs), so a Worker carries a few hundred KiB instead of the document's megabytes;
 * `fromOpenApi` makes it at start-up from a full document. The same function does both, so either
 * way the tools are the same.
 */
import { isObject } from "../mcp/guards";
import { baseName, uniqueNames } from "./names";
import { resolved } from "./refs";
import { compactSchema, type Schema } from "./schema";
import { shortText } from "./text";

/** Marks the compact form; a full document has `openapi` instead. */
export const COMPACT_FORMAT = "mcp-openapi-tools/1";

type ArgumentLocation = "path" | "query" | "header" | "body";

export interface CompactOperation {
  name: string;
  title?: string;
  description?: string;
  /** Upper case: GET, POST… */
  method: string;
  /** The path template, `/repos/{owner}/{repo}/issues`. */
  path: string;
  tags?: string[];
  /** Where each argument goes; a body property is `body` (one sent at the top level of a JSON body). */
  in: Record<string, ArgumentLocation>;
  /** The request body's media type, and the argument that carries the whole body when it is not flattened. */
  body?: { type: string; whole?: string };
  /** The union of the parameters and the flattened body: what tools/list shows and the call checks. */
  inputSchema: Schema;
  /** The OAuth scopes the operation's `security` names; absent: none. */
  scopes?: string[];
  deprecated?: boolean;
}

export interface CompactDocument {
  format: typeof COMPACT_FORMAT;
  info: { title: string; version: string };
  /** The first server's URL, its variables at their defaults; absent when the document names none. */
  server?: string;
  operations: CompactOperation[];
  /** What the import had to decide for the document (a renamed operation, a body kept whole): the app check prints them. */
  notes: string[];
}

export interface CompactOptions {
  /** The longest tool description kept (default 300 characters); the summary is the title. */
  descriptionMax?: number;
  /** The longest description kept on an argument or a nested field (default 160). */
  argumentDescriptionMax?: number;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** What a document cannot set as an argument's header: the request's own, or the upstream's credentials (options.headers). */
const RESERVED_HEADERS = /^(authorization|content-type|content-length|accept|cookie|host|proxy-authorization)$/i;
/** The most notes kept: a document with thousands of quirks needs a sample, not a book. */
const MAX_NOTES = 50;

/** The compact form of `doc` (a parsed OpenAPI 3.x document, internal `$ref`s followed here). */
export function compactOpenApi(doc: Record<string, unknown>, options: CompactOptions = {}): CompactDocument {
  if (typeof doc.openapi !== "string" || !/^3\.[01]\./.test(doc.openapi))
    throw new Error(`fromOpenApi: this is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(doc.openapi)})`);
  const notes: string[] = [];
  const note = (text: string) => {
    if (notes.length < MAX_NOTES) notes.push(text);
  };
  const descriptionMax = options.descriptionMax ?? 300;
  const argumentMax = options.argumentDescriptionMax ?? 160;
  const found: { op: Record<string, unknown>; item: Record<string, unknown>; method: string; path: string }[] = [];
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = resolved(doc, rawItem);
    if (!item) continue;
    for (const method of METHODS) {
      const op = resolved(doc, item[method]);
      if (op) found.push({ op, item, method, path });
    }
  }
  const bases = found.map(({ op, method, path }) => baseName(op.operationId, method, path));
  const names = uniqueNames(bases, (i, base, name) => {
    const id = found[i]!.op.operationId;
    note(
      `Operation ${typeof id === "string" ? `"${id}"` : `${found[i]!.method.toUpperCase()} ${found[i]!.path}`} is named "${name}": "${base}" was taken`,
    );
  });
  for (const [i, { op }] of found.entries()) {
    const id = op.operationId;
    if (typeof id === "string" && id.length > 64 && !notes.some((n) => n.includes(`"${id}"`)))
      note(`Operation "${id}" is named "${names[i]}": tool names are cut at 64 characters`);
  }
  const security = doc.security;
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const operations = found.map(({ op, item, method, path }, i): CompactOperation => {
    const name = names[i]!;
    const args = argumentsOf(doc, op, item, name, { descriptionMax: argumentMax }, note);
    const title = shortText(op.summary, 200);
    const description =
      shortText(op.description, descriptionMax) ?? (title ? undefined : shortText(`${method.toUpperCase()} ${path}`, 200));
    const scopes = scopesOf(doc, op.security ?? security, schemes);
    const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
    return {
      name,
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      method: method.toUpperCase(),
      path,
      ...(tags.length ? { tags } : {}),
      in: args.in,
      ...(args.body ? { body: args.body } : {}),
      inputSchema: args.schema,
      ...(scopes.length ? { scopes } : {}),
      ...(op.deprecated === true ? { deprecated: true } : {}),
    };
  });
  const info = isObject(doc.info) ? doc.info : {};
  const server = serverOf(doc);
  return {
    format: COMPACT_FORMAT,
    info: { title: String(info.title ?? "API"), version: String(info.version ?? "") },
    ...(server ? { server } : {}),
    operations,
    notes,
  };
}

/**
 * The flat arguments of one operation: its path, query and header parameters by name (the operation's
 * own over its path's), then the JSON body's properties beside them. The body stays whole, under
 * `body`, when it is not a plain object or one of its properties has a parameter's name.
 */
function argumentsOf(
  doc: Record<string, unknown>,
  op: Record<string, unknown>,
  item: Record<string, unknown>,
  name: string,
  schemaOptions: { descriptionMax: number },
  note: (text: string) => void,
): { in: Record<string, ArgumentLocation>; body?: CompactOperation["body"]; schema: Schema } {
  const where: Record<string, ArgumentLocation> = {};
  const properties: Schema = {};
  const required: string[] = [];
  const params = new Map<string, Record<string, unknown>>();
  for (const raw of [...asList(item.parameters), ...asList(op.parameters)]) {
    const p = resolved(doc, raw);
    if (p && typeof p.name === "string" && typeof p.in === "string") params.set(`${p.in}:${p.name}`, p);
  }
  for (const p of params.values()) {
    const at = p.in as string;
    const pName = p.name as string;
    if (at !== "path" && at !== "query" && at !== "header") continue;
    if (at === "header" && RESERVED_HEADERS.test(pName)) continue;
    if (pName in where) {
      note(`Tool "${name}": the ${at} parameter "${pName}" has the name of another parameter; it is left out`);
      continue;
    }
    // A parameter described by `content` (one media type) has its schema there.
    const content = isObject(p.content) ? Object.values(p.content).map((c) => resolved(doc, c))[0] : undefined;
    const schema = compactSchema(doc, p.schema ?? content?.schema, schemaOptions);
    const description = shortText(p.description, schemaOptions.descriptionMax);
    properties[pName] = description && !schema.description ? { ...schema, description } : schema;
    where[pName] = at;
    if (at === "path" || p.required === true) required.push(pName);
  }
  const body = bodyOf(doc, op);
  if (!body) return { in: where, schema: objectSchema(properties, required) };
  const flat = body.json && isPlainObject(body.schema) ? Object.keys(body.schema.properties as object) : undefined;
  const clash = flat?.filter((p) => p in where) ?? [];
  if (flat && clash.length === 0) {
    const bodySchema = compactSchema(doc, body.schema, schemaOptions);
    for (const [prop, schema] of Object.entries((bodySchema.properties ?? {}) as Schema)) {
      properties[prop] = schema;
      where[prop] = "body";
    }
    // A body the operation may leave out makes none of its fields required.
    if (body.required) for (const r of (bodySchema.required ?? []) as string[]) required.push(r);
    return { in: where, body: { type: body.type }, schema: objectSchema(properties, required) };
  }
  if (clash.length)
    note(`Tool "${name}": its body's ${clash.map((c) => `"${c}"`).join(", ")} has a parameter's name, so the body is the argument "body"`);
  const whole = "body" in where ? "request_body" : "body";
  properties[whole] = body.json
    ? compactSchema(doc, body.schema, schemaOptions)
    : { type: "string", description: `The request body (${body.type}).` };
  where[whole] = "body";
  if (body.required) required.push(whole);
  return { in: where, body: { type: body.type, whole }, schema: objectSchema(properties, required) };
}

/** The request body an operation takes: JSON by preference, else its first media type (sent as text). */
function bodyOf(doc: Record<string, unknown>, op: Record<string, unknown>) {
  const rb = resolved(doc, op.requestBody);
  if (!rb || !isObject(rb.content)) return undefined;
  const types = Object.keys(rb.content);
  const type = types.find(isJson) ?? types[0];
  if (!type) return undefined;
  const media = resolved(doc, rb.content[type]);
  return { type, json: isJson(type), schema: resolved(doc, media?.schema), required: rb.required === true };
}

/** A JSON media type: `application/json`, `application/vnd.github+json`… */
export const isJson = (type: string) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);

/** A body whose properties can sit at the top level: an object schema with properties and no alternatives. */
const isPlainObject = (s: Record<string, unknown> | undefined): s is Record<string, unknown> =>
  !!s &&
  (s.type === "object" || s.type === undefined) &&
  isObject(s.properties) &&
  !s.oneOf &&
  !s.anyOf &&
  !s.allOf &&
  s.nullable !== true &&
  !(isObject(s.additionalProperties) || s.additionalProperties === true);

/** Closed: an argument no operation takes is a mistake the model hears of, not one dropped in silence. */
const objectSchema = (properties: Schema, required: string[]): Schema => ({
  type: "object",
  properties,
  ...(required.length ? { required: [...new Set(required)] } : {}),
  additionalProperties: false,
});

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The scopes an operation's `security` names for OAuth 2 or OpenID Connect schemes. Requirements are
 * alternatives; the first that names scopes is taken (the app maps others with `options.scopes`).
 */
function scopesOf(doc: Record<string, unknown>, security: unknown, schemes: Record<string, unknown>): string[] {
  for (const requirement of asList(security)) {
    if (!isObject(requirement)) continue;
    const scopes: string[] = [];
    for (const [scheme, list] of Object.entries(requirement)) {
      const type = resolved(doc, schemes[scheme])?.type;
      if ((type === "oauth2" || type === "openIdConnect") && Array.isArray(list))
        for (const s of list) if (typeof s === "string" && !scopes.includes(s)) scopes.push(s);
    }
    if (scopes.length) return scopes;
  }
  return [];
}

/** The document's first server URL with its variables at their defaults. */
function serverOf(doc: Record<string, unknown>): string | undefined {
  const server = asList(doc.servers).find(isObject);
  if (!server || typeof server.url !== "string") return undefined;
  const vars = isObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^}]+)\}/g, (whole, v: string) => {
    const d = isObject(vars[v]) ? vars[v].default : undefined;
    return typeof d === "string" ? d : whole;
  });
}
