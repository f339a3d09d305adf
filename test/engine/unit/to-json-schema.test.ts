/**
 * The Worker's valibot → JSON Schema (src/engine/mcp/to-json-schema.ts) gives what `@valibot/to-json-schema`
 * gives with `{ target: "draft-2020-12", errorMode: "warn" }`: the same JSON, key order included,
 * and the same warnings in the same order, for every schema and action kind either knows.
 */
import { toJsonSchema as library } from "@valibot/to-json-schema";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toJsonSchema } from "../../../src/engine/mcp/to-json-schema";

afterEach(() => vi.restoreAllMocks());

/** The JSON text and the warnings of one conversion. */
function run(convert: () => unknown): { json: string; warnings: string[] } {
  const warnings: string[] = [];
  const spy = vi.spyOn(console, "warn").mockImplementation((m: unknown) => void warnings.push(String(m)));
  try {
    return { json: JSON.stringify(convert()), warnings };
  } finally {
    spy.mockRestore();
  }
}

const theLibrary = (schema: v.GenericSchema) =>
  run(() => {
    const { $schema: _dialect, ...json } = library(schema, { target: "draft-2020-12", errorMode: "warn" });
    return json;
  });
const ours = (schema: v.GenericSchema) => run(() => toJsonSchema(schema as never));

const str = v.string();
const num = v.number();
type Node = v.GenericSchema;
const tree: Node = v.object({ name: str, children: v.array(v.lazy(() => tree)) });
const self: Node = v.lazy(() => v.object({ next: v.optional(self) }));

const CASES: Record<string, Node> = {
  primitives: v.object({ s: str, n: num, b: v.boolean(), z: v.null(), a: v.any(), u: v.unknown(), never: v.never() }),
  "optional, nullish, defaults": v.object({
    o: v.optional(str),
    od: v.optional(num, 3),
    of: v.optional(str, () => "x"),
    eo: v.exactOptional(str),
    un: v.undefinedable(num, 1),
    nl: v.nullable(str, "d"),
    ns: v.nullish(num),
  }),
  "objects of each kind": v.object({
    loose: v.looseObject({ a: str }),
    strict: v.strictObject({ a: str }),
    rest: v.objectWithRest({ a: str }, num),
  }),
  "arrays and tuples": v.object({
    arr: v.array(v.array(num)),
    t: v.tuple([str, num]),
    lt: v.looseTuple([str]),
    st: v.strictTuple([str, v.boolean()]),
    tr: v.tupleWithRest([str], num),
  }),
  records: v.object({
    r: v.record(str, num),
    bad: v.record(v.picklist(["a", "b"]), num),
    piped: v.record(v.pipe(str, v.minLength(2)), str),
  }),
  "literals, enums, picklists": v.object({
    l: v.literal("x"),
    ln: v.literal(4),
    lb: v.literal(true),
    big: v.literal(1n),
    p: v.picklist(["a", "b"]),
    pn: v.picklist([1, 2]),
    mixed: v.picklist(["a", 1]),
    bad: v.picklist([Infinity, 1]),
    e: v.enum({ A: "a", B: "b" }),
  }),
  "unions, variants, intersections": v.object({
    u: v.union([str, num]),
    va: v.variant("kind", [v.object({ kind: v.literal("a") }), v.object({ kind: v.literal("b"), x: num })]),
    i: v.intersect([v.object({ a: str }), v.object({ b: num })]),
  }),
  "lazy: recursion and a shared schema": v.object({ tree, again: tree, self }),
  "schemas without JSON Schema": v.object({
    d: v.date(),
    c: v.custom<string>(() => true),
    i: v.instance(Date),
    big: v.bigint(),
    f: v.function(),
    m: v.map(str, num),
  }),
  "string actions": v.object({
    email: v.pipe(str, v.email()),
    rfc: v.pipe(str, v.rfcEmail()),
    url: v.pipe(str, v.url()),
    uuid: v.pipe(str, v.uuid()),
    ip4: v.pipe(str, v.ipv4()),
    ip6: v.pipe(str, v.ipv6()),
    date: v.pipe(str, v.isoDate()),
    dt: v.pipe(str, v.isoDateTime()),
    ts: v.pipe(str, v.isoTimestamp()),
    time: v.pipe(str, v.isoTime()),
    b64: v.pipe(str, v.base64()),
    regexes: v.object({
      bic: v.pipe(str, v.bic()),
      cuid2: v.pipe(str, v.cuid2()),
      decimal: v.pipe(str, v.decimal()),
      digits: v.pipe(str, v.digits()),
      domain: v.pipe(str, v.domain()),
      emoji: v.pipe(str, v.emoji()),
      hash: v.pipe(str, v.hash(["md5"])),
      hex: v.pipe(str, v.hexadecimal()),
      color: v.pipe(str, v.hexColor()),
      isrc: v.pipe(str, v.isrc()),
      sec: v.pipe(str, v.isoTimeSecond()),
      week: v.pipe(str, v.isoWeek()),
      ksuid: v.pipe(str, v.ksuid()),
      mac: v.pipe(str, v.mac()),
      mac48: v.pipe(str, v.mac48()),
      mac64: v.pipe(str, v.mac64()),
      nanoid: v.pipe(str, v.nanoid()),
      octal: v.pipe(str, v.octal()),
      slug: v.pipe(str, v.slug()),
      ulid: v.pipe(str, v.ulid()),
      jws: v.pipe(str, v.jwsCompact()),
    }),
    rx: v.pipe(str, v.regex(/^a+$/)),
    flags: v.pipe(str, v.regex(/a/i)),
    two: v.pipe(str, v.regex(/a/), v.startsWith("b")),
    sw: v.pipe(str, v.startsWith("a.b")),
    ew: v.pipe(str, v.endsWith("$x")),
    inc: v.pipe(str, v.includes("(y)")),
  }),
  "length actions": v.object({
    sl: v.pipe(str, v.minLength(2), v.maxLength(9), v.length(5)),
    al: v.pipe(v.array(num), v.minLength(1), v.maxLength(3), v.length(2)),
    empty: v.pipe(str, v.empty()),
    emptyArr: v.pipe(v.array(num), v.empty()),
    ne: v.pipe(str, v.nonEmpty()),
    neArr: v.pipe(v.array(num), v.nonEmpty(), v.nonEmpty()),
    onNumber: v.pipe(
      num,
      v.check(() => true),
      v.transform((n) => n),
    ),
    bounds: v.pipe(str, v.maxLength(5), v.maxLength(9), v.minLength(3), v.minLength(1)),
  }),
  "numeric actions": v.object({
    n: v.pipe(num, v.minValue(1), v.maxValue(9), v.gtValue(0), v.ltValue(10), v.multipleOf(2)),
    i: v.pipe(num, v.integer(), v.minValue(-5)),
    safe: v.pipe(num, v.safeInteger(), v.minValue(0)),
    onString: v.pipe(str, v.minValue("a"), v.gtValue("b")),
    infinite: v.pipe(num, v.maxValue(Infinity), v.ltValue(-Infinity)),
  }),
  "value and entries actions": v.object({
    val: v.pipe(num, v.value(3)),
    clash: v.pipe(v.literal(2), v.value(3 as 2)),
    vals: v.pipe(v.picklist(["a", "b", "c"]), v.values(["b", "c", "d" as "a"])),
    none: v.pipe(v.picklist(["a"]), v.values(["z" as "a"])),
    fresh: v.pipe(str, v.values(["x", "x", "y"])),
    nv: v.pipe(num, v.notValue(1), v.notValue(2)),
    nvs: v.pipe(str, v.notValues(["a", "a"]), v.notValues([])),
    entries: v.pipe(v.record(str, num), v.minEntries(1), v.maxEntries(5), v.entries(3)),
  }),
  "metadata actions": v.object({
    d: v.pipe(str, v.title("T"), v.description("D"), v.examples(["a"]), v.examples(["b"])),
    m: v.pipe(num, v.metadata({ title: "M", description: "about", examples: [1], deprecated: true, "x-mcp-header": "Num" })),
    both: v.pipe(str, v.examples(["a"]), v.metadata({ examples: ["b"] })),
  }),
  "pipes in pipes, and a second schema": v.object({
    nested: v.pipe(v.pipe(str, v.minLength(1)), v.maxLength(4)),
    second: v.pipe(
      str,
      v.transform((s) => s.length),
      v.number(),
      v.minValue(1),
    ),
  }),
};

describe("valibot → JSON Schema, as @valibot/to-json-schema gives it (draft 2020-12, warnings)", () => {
  for (const [name, schema] of Object.entries(CASES))
    it(name, () => {
      const expected = theLibrary(schema);
      expect(ours(schema)).toEqual(expected);
    });

  it("the cases cover warnings as well as schemas", () => {
    const warnings = Object.values(CASES).flatMap((s) => theLibrary(s).warnings);
    expect(warnings.length).toBeGreaterThan(15);
  });
});

describe("mayDeclareHeaders: whether a call must make the argument schema to find its header arguments", () => {
  // Typed loosely: the action sits in pipes of several types.
  const header = (name: string) => v.metadata({ "x-mcp-header": name }) as never;
  const shapes: [string, v.ObjectSchema<any, any>][] = [
    ["a piped property", v.object({ r: v.pipe(v.string(), header("R")) })],
    ["an optional one", v.object({ r: v.optional(v.pipe(v.string(), header("R"))) })],
    ["an integer with a default", v.object({ r: v.optional(v.pipe(v.number(), v.integer(), header("R")), 1) })],
    ["a pipe in a pipe", v.object({ r: v.pipe(v.pipe(v.boolean(), v.description("d")), header("R")) })],
    ["annotated after the schema's own pipe", v.object({ r: v.pipe(v.optional(v.string()), header("R")) })],
    ["among plain properties", v.object({ a: v.string(), b: v.array(v.object({ c: v.string() })), r: v.pipe(v.string(), header("R")) })],
  ];
  const plain: [string, v.ObjectSchema<any, any>][] = [
    ["plain properties", v.object({ a: v.string(), b: v.optional(v.number()) })],
    ["metadata without the key", v.object({ a: v.pipe(v.string(), v.metadata({ title: "A", "x-other": 1 })) })],
    ["a recursive schema", v.object({ tree: v.lazy(() => v.object({ kids: v.array(v.string()) })) })],
  ];

  it.each(shapes)("finds %s, whose JSON Schema has a header argument", async (_, schema) => {
    const { mayDeclareHeaders, mcpHeaderParams, objectJsonSchema } = await import("../../../src/engine/mcp/json-schema");
    expect(mcpHeaderParams(objectJsonSchema(schema, "t")).size).toBe(1);
    expect(mayDeclareHeaders(schema)).toBe(true);
  });

  it.each(plain)("passes over %s, which has none", async (_, schema) => {
    const { mayDeclareHeaders, mcpHeaderParams, objectJsonSchema } = await import("../../../src/engine/mcp/json-schema");
    expect(mcpHeaderParams(objectJsonSchema(schema, "t")).size).toBe(0);
    expect(mayDeclareHeaders(schema)).toBe(false);
  });

  it("ends on a schema that holds itself", async () => {
    const { mayDeclareHeaders } = await import("../../../src/engine/mcp/json-schema");
    const loop: Record<string, unknown> = { type: "object", entries: {} };
    (loop.entries as Record<string, unknown>).self = loop;
    expect(mayDeclareHeaders(loop)).toBe(false);
  });
});
