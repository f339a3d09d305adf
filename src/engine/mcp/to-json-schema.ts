/**
 * valibot → JSON Schema (draft 2020-12), as the Worker needs it: the same schema, key for key and
 * warning for warning, that `@valibot/to-json-schema` gives with `{ target: "draft-2020-12",
 * errorMode: "warn" }` (a unit test holds the two side by side), written for that one setting: no
 * other targets, options or hooks, table lookups where the library has a case each, so the Worker
 * carries about a third of the bytes. The app check still asks the library itself (check-app.ts).
 */

import { isScalar } from "./guards";

type Json = Record<string, any>;
/** A valibot schema or pipe action, as far as the conversion reads it. */
type Node = { kind?: string; type: string; [key: string]: any };

interface Context {
  defs: Json;
  refs: Map<object, string>;
  getters: Map<unknown, Node>;
}

/** Actions whose requirement is a RegExp that becomes `pattern`. */
const REGEX_ACTIONS = new Set(
  "bic cuid2 decimal digits domain emoji hash hexadecimal hex_color isrc iso_time_second iso_week ksuid mac mac48 mac64 nanoid octal slug ulid jws_compact regex".split(
    " ",
  ),
);
/** Actions that become a `format`. */
const FORMATS: Record<string, string> = {
  email: "email",
  rfc_email: "email",
  ipv4: "ipv4",
  ipv6: "ipv6",
  iso_date: "date",
  iso_date_time: "date-time",
  iso_timestamp: "date-time",
  iso_time: "time",
  url: "uri",
  uuid: "uuid",
};

/**
 * Warnings go out as they arise: the library collects them per schema and reports them after the
 * schema's children, which is the order here too (a record's comes after its key's and value's).
 * Returns undefined, so `ok || warn(...)` is false on the warning.
 */
const warn = (message: string): undefined => void console.warn(message);
/** Sets a bound unless the one already there is tighter (a non-number there is replaced); `lower`: the larger wins. */
const bound = (json: Json, key: string, value: number, lower?: boolean) => {
  const current = json[key];
  if (!Number.isFinite(current) || (lower ? value > current : value < current)) json[key] = value;
};
const not = (current: unknown, value: Json) => (current !== undefined ? { anyOf: [current, value] } : value);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const flatten = (pipe: Node[]): Node[] => pipe.flatMap((item) => ("pipe" in item ? flatten(item.pipe) : item));
const withDefault = (json: Json, schema: Node) => {
  if (schema.default !== undefined) json.default = typeof schema.default === "function" ? schema.default() : schema.default;
};

/** The JSON Schema of a valibot schema (without `$schema`: draft 2020-12 is the dialect assumed). */
export function toJsonSchema(schema: Node): Json {
  const ctx: Context = { defs: {}, refs: new Map(), getters: new Map() };
  const json = convert({}, schema, ctx);
  if (ctx.refs.size) json.$defs = ctx.defs;
  return json;
}

function convert(json: Json, schema: Node, ctx: Context, skipRef = false): Json {
  const id = skipRef ? undefined : ctx.refs.get(schema);
  if (id) {
    json.$ref = `#/$defs/${id}`;
    return json;
  }
  if ("pipe" in schema) {
    flatten(schema.pipe).forEach((item, i) => {
      if (item.kind !== "schema") return void (json = action(json, item));
      if (i > 0) warn('Set the "typeMode" config to "input" or "output" to convert pipelines with multiple schemas.');
      json = convert(json, item, ctx, true);
    });
    return json;
  }
  const sub = (s: Node) => convert({}, s, ctx);
  const type = schema.type;
  switch (type) {
    case "boolean":
    case "null":
    case "number":
    case "string":
      json.type = type;
      break;
    case "array":
      json.type = "array";
      json.items = sub(schema.item);
      break;
    case "tuple":
    case "tuple_with_rest":
    case "loose_tuple":
    case "strict_tuple":
      json.type = "array";
      json.prefixItems = schema.items.map(sub);
      json.minItems = schema.items.length;
      if (type === "tuple_with_rest") json.items = sub(schema.rest);
      else if (type === "strict_tuple") json.items = false;
      break;
    case "object":
    case "object_with_rest":
    case "loose_object":
    case "strict_object":
      json.type = "object";
      json.properties = {};
      json.required = [];
      for (const key in schema.entries) {
        const entry = schema.entries[key];
        json.properties[key] = sub(entry);
        if (entry.type !== "exact_optional" && entry.type !== "nullish" && entry.type !== "optional") json.required.push(key);
      }
      if (type === "object_with_rest") json.additionalProperties = sub(schema.rest);
      else if (type === "strict_object") json.additionalProperties = false;
      break;
    case "record":
      json.type = "object";
      json.propertyNames = sub(schema.key);
      json.additionalProperties = sub(schema.value);
      if (schema.key.type !== "string")
        warn(`The "record" schema with the "${schema.key.type}" schema for the key cannot be converted to JSON Schema.`);
      break;
    case "any":
    case "unknown":
      break;
    case "never":
      json.not = {};
      break;
    case "nullable":
    case "nullish":
      json.anyOf = [sub(schema.wrapped), { type: "null" }];
      withDefault(json, schema);
      break;
    case "exact_optional":
    case "optional":
    case "undefinedable":
      json = convert(json, schema.wrapped, ctx);
      withDefault(json, schema);
      break;
    case "literal":
      if (isScalar(schema.literal)) json.const = schema.literal;
      else warn('The value of the "literal" schema is not JSON compatible.');
      break;
    case "enum":
    case "picklist": {
      const options: unknown[] = schema.options;
      const all = (t: string) => options.every((o) => typeof o === t);
      if (!options.every((o) => typeof o !== "boolean" && isScalar(o))) {
        warn(`An option of the "${type}" schema is not JSON compatible.`);
        break;
      }
      json.enum = options;
      json.type = all("string") ? "string" : all("number") ? "number" : ["string", "number"];
      break;
    }
    case "union":
    case "variant":
    case "intersect":
      json[type === "union" ? "anyOf" : type === "variant" ? "oneOf" : "allOf"] = schema.options.map(sub);
      break;
    case "lazy": {
      let wrapped = ctx.getters.get(schema.getter);
      if (!wrapped) ctx.getters.set(schema.getter, (wrapped = schema.getter(undefined) as Node));
      let ref = ctx.refs.get(wrapped);
      if (!ref) {
        // Ids count the definitions: 0, 1, 2…
        ctx.refs.set(wrapped, (ref = String(ctx.refs.size)));
        ctx.defs[ref] = convert({}, wrapped, ctx, true);
      }
      json.$ref = `#/$defs/${ref}`;
      break;
    }
    default:
      warn(`The "${type}" schema cannot be converted to JSON Schema.`);
  }
  return json;
}

function action(json: Json, a: Node): Json {
  const type = a.type;
  const req = a.requirement;
  const notOnType = () => warn(`The "${type}" action is not supported on type "${json.type}".`);
  const notJson = (what: string) => warn(`${what} of the "${type}" action is not JSON compatible.`);
  const pattern = (p: string) => {
    if (json.pattern) warn(`The "${type}" action is not supported in combination with another regex action.`);
    else json.pattern = p;
  };
  /** A count (length, entries): false, with the error, unless a non-negative integer. */
  const count = () =>
    (Number.isInteger(req) && req >= 0) || warn(`The requirement of the "${type}" action must be a non-negative integer.`);
  /** A numeric bound: false, with the error, on a non-number or a non-finite requirement. */
  const numeric = () =>
    json.type !== "number" && json.type !== "integer" ? notOnType() : Number.isFinite(req) || notJson("The requirement");
  /** Items on an array, length on anything else (which should be a string). */
  const size = (min: number | undefined, max: number | undefined) => {
    const array = json.type === "array";
    if (!array && json.type !== "string") notOnType();
    if (min !== undefined) bound(json, array ? "minItems" : "minLength", min, true);
    if (max !== undefined) bound(json, array ? "maxItems" : "maxLength", max);
  };
  const examples = (more: unknown[]) => (json.examples = Array.isArray(json.examples) ? [...json.examples, ...more] : more);

  if (Object.hasOwn(FORMATS, type)) json.format = FORMATS[type];
  else if (REGEX_ACTIONS.has(type)) {
    if (type === "regex" && req.flags) warn("RegExp flags are not supported by JSON Schema.");
    pattern(req.source);
  } else
    switch (type) {
      case "base64":
        json.contentEncoding = "base64";
        break;
      case "description":
      case "title":
        json[type] = a[type];
        break;
      case "ends_with":
        pattern(`${escape(req)}$`);
        break;
      case "starts_with":
        pattern(`^${escape(req)}`);
        break;
      case "includes":
        pattern(escape(req));
        break;
      case "empty":
        if (json.type === "array") json.maxItems = 0;
        else {
          if (json.type !== "string") notOnType();
          json.maxLength = 0;
        }
        break;
      case "non_empty":
        size(1, undefined);
        break;
      case "length":
        if (count()) size(req, req);
        break;
      case "min_length":
        if (count()) size(req, undefined);
        break;
      case "max_length":
        if (count()) size(undefined, req);
        break;
      case "entries":
        if (count()) bound(json, "minProperties", req, true), bound(json, "maxProperties", req);
        break;
      case "min_entries":
        if (count()) bound(json, "minProperties", req, true);
        break;
      case "max_entries":
        if (count()) bound(json, "maxProperties", req);
        break;
      case "examples":
        examples(a.examples);
        break;
      case "gt_value":
        if (numeric()) bound(json, "exclusiveMinimum", req, true);
        break;
      case "lt_value":
        if (numeric()) bound(json, "exclusiveMaximum", req);
        break;
      case "min_value":
        if (numeric()) bound(json, "minimum", req, true);
        break;
      case "max_value":
        if (numeric()) bound(json, "maximum", req);
        break;
      case "integer":
        json.type = "integer";
        break;
      case "safe_integer":
        json.type = "integer";
        bound(json, "minimum", Number.MIN_SAFE_INTEGER, true);
        bound(json, "maximum", Number.MAX_SAFE_INTEGER);
        break;
      case "multiple_of":
        json.multipleOf = req;
        break;
      case "metadata": {
        const meta = a.metadata;
        if (typeof meta.title === "string") json.title = meta.title;
        if (typeof meta.description === "string") json.description = meta.description;
        if (Array.isArray(meta.examples)) examples(meta.examples);
        for (const key of Object.keys(meta))
          if (key !== "title" && key !== "description" && key !== "examples" && key !== "__proto__") json[key] = meta[key];
        break;
      }
      case "not_value":
        if (isScalar(req)) json.not = not(json.not, { const: req });
        else notJson("The requirement");
        break;
      case "not_values":
        if (!req.every(isScalar)) notJson("A requirement");
        else if (req.length) json.not = not(json.not, { enum: [...new Set(req)] });
        break;
      case "value":
        if (!isScalar(req)) notJson("The requirement");
        else if ("const" in json && json.const !== req)
          warn(`The "value" action is not supported in combination with a different "const" restriction.`);
        else json.const = req;
        break;
      case "values": {
        if (!req.every(isScalar)) {
          notJson("A requirement");
          break;
        }
        // What is left of an enum already there; none left means no value passes.
        const kept: unknown[] = json.enum ? json.enum.filter((x: unknown) => req.includes(x)) : req;
        if (kept.length) json.enum = [...new Set(kept)];
        else delete json.enum, (json.not = not(json.not, {}));
        break;
      }
      default:
        warn(`The "${type}" action cannot be converted to JSON Schema.`);
    }
  return json;
}
