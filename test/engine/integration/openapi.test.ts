/**
 * `fromOpenApi` through /mcp (2026-07-28): a notes API of our own (test/engine/openapi-app/notes-app.ts)
 * served as tools. Names are sanitised, unique and at most 64 characters; arguments are flat, with a
 * body kept whole where a property has a parameter's name; a bad argument is a tool error naming the
 * field and nothing is sent; annotations follow the method; the scopes of `security` are the usual
 * 403 step-up; the headers function gets env and the caller, and its credential never reaches a
 * result; a slow upstream and an oversized answer are bounded.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import app, { LONG_ID, sent } from "../openapi-app/notes-app";
import { buildModernRequest, responseIn, type RpcMessage } from "../helpers/mcp";

const TOKENS: Record<string, string[]> = { reader: ["notes:read"], writer: ["notes:read", "notes:write"] };
const verifyToken: TokenVerifier = async (token) => {
  if (!Object.hasOwn(TOKENS, token)) throw new AuthFailure("invalid_token", "unknown");
  return { id: `user-${token}`, scopes: TOKENS[token]! };
};
const worker = createMcpWorker(app, { verifyToken });
const SECRET = "upstream-secret-never-shown";

async function modern(method: string, params: Record<string, unknown>, token = "writer"): Promise<{ res: Response; body: RpcMessage }> {
  const { message, headers } = buildModernRequest(method, params);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(message),
    }),
    { ...env, NOTES_TOKEN: SECRET } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { res, body: responseIn(res, await res.text()) };
}

const call = async (name: string, args: Record<string, unknown>, token?: string) =>
  (await modern("tools/call", { name, arguments: args }, token)).body.result;
const listed = async () => (await modern("tools/list", {})).body.result.tools as Record<string, any>[];

beforeEach(() => {
  sent.length = 0;
});

describe("fromOpenApi: the tools a document makes", () => {
  it("one tool per operation, named from its operationId (sanitised, unique, ≤ 64), summary as title, the filters applied", async () => {
    const tools = await listed();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "notes_get",
        "notes_delete",
        "notes_create",
        "vars_update",
        "dup_name",
        "dup_name_2",
        "get_things_thingId",
        "local_ping",
      ]),
    );
    const long = names.find((n) => n.startsWith("reports_"))!;
    expect(long).toBe(LONG_ID.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64));
    expect(names.every((n) => n.length <= 64)).toBe(true);
    // exclude: { paths: ["/admin"] }
    expect(names).not.toContain("admin_purge");
    const get = tools.find((t) => t.name === "notes_get")!;
    expect(get.title).toBe("Get a note");
    expect(get.description).toBe("Returns one note.");
    expect(tools.find((t) => t.name === "dup_name_2")!.title).toBe("Second of two");
  });

  it("the input schema is the union of the parameters and the body's properties, the document's required fields required", async () => {
    const tools = await listed();
    const create = tools.find((t) => t.name === "notes_create")!.inputSchema;
    expect(Object.keys(create.properties)).toEqual(["title", "text", "tags"]);
    expect(create.required).toEqual(["title"]);
    expect(create.additionalProperties).toBe(false);
    const get = tools.find((t) => t.name === "notes_get")!.inputSchema;
    expect(get.properties.id).toEqual({ type: "string", description: "The note's id." });
    expect(get.required).toEqual(["id"]);
    const vars = tools.find((t) => t.name === "vars_update")!.inputSchema;
    expect(Object.keys(vars.properties)).toEqual(["name", "body"]);
    expect(vars.required).toEqual(["name", "body"]);
  });

  it("annotations follow the method: GET reads, DELETE destroys, every operation reaches outside", async () => {
    const tools = await listed();
    const hints = (name: string) => tools.find((t) => t.name === name)!.annotations;
    expect(hints("notes_get")).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    expect(hints("notes_delete")).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(hints("notes_create")).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
  });
});

describe("fromOpenApi: calls", () => {
  it("a GET with path and query arguments: the request carries them, the JSON answer is the structured content", async () => {
    const result = await call("notes_get", { id: "a/b", fields: ["title", "text"] });
    expect(result.isError).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("GET");
    // A path value is one segment, whatever it holds.
    expect(sent[0]!.url).toBe("https://notes.example/api/notes/a%2Fb?fields=title&fields=text");
    expect(result.structuredContent).toEqual({ ok: true, method: "GET", path: "/notes/a%2Fb", received: null });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  });

  it("a POST with flat arguments sends them as the JSON body; a body kept whole is sent as given", async () => {
    const created = await call("notes_create", { title: "Groceries", tags: ["home"], text: null });
    expect(created.structuredContent.received).toEqual({ title: "Groceries", tags: ["home"], text: null });
    expect(sent[0]!.headers["content-type"]).toBe("application/json");
    const updated = await call("vars_update", { name: "colour", body: { name: "colour", value: "blue" } });
    expect(updated.structuredContent).toMatchObject({ path: "/vars/colour", received: { name: "colour", value: "blue" } });
  });

  it("a list answer is structured content under result; an empty 204 says so", async () => {
    expect((await call("list", {})).structuredContent).toEqual({ result: [{ id: "1" }, { id: "2" }] });
    const deleted = await call("notes_delete", { id: "n1" });
    expect(deleted.isError).toBeUndefined();
    expect(deleted.structuredContent).toEqual({ status: 204 });
  });

  it("a bad argument is a tool error naming the field, and nothing is sent", async () => {
    for (const [args, field] of [
      [{}, /title: required/],
      [{ title: "" }, /title: at least 1 characters/],
      [{ title: "t", tags: "home" }, /tags: expected array, got string/],
      [{ title: "t", colour: "red" }, /colour: not an argument of this tool/],
    ] as const) {
      const result = await call("notes_create", args);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^Invalid arguments for notes_create: /);
      expect(result.content[0].text).toMatch(field);
    }
    const badPath = await call("notes_get", { id: ".." });
    expect(badPath.isError).toBe(true);
    expect(badPath.content[0].text).toMatch(/id: ".." is not a path segment/);
    expect((await call("get_things_thingId", { thingId: "seven" })).content[0].text).toMatch(/thingId: expected integer/);
    expect(sent).toEqual([]);
  });

  it("the headers function gets env and the caller; its credential reaches the upstream and never the result", async () => {
    const result = await call("notes_get", { id: "n1" }, "reader");
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent[0]!.headers["x-caller"]).toBe("user-reader");
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("an operation's OAuth scopes are enforced: a token without them gets the 403 step-up, and nothing is sent", async () => {
    const { res, body } = await modern("tools/call", { name: "notes_create", arguments: { title: "t" } }, "reader");
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/scope="notes:write"/);
    expect(body.error?.code).toBe(-32003);
    expect(sent).toEqual([]);
    // The document-wide requirement (notes:read) holds for the operations that name none of their own.
    const { res: allowed } = await modern("tools/call", { name: "dup_name", arguments: {} }, "reader");
    expect(allowed.status).toBe(200);
  });

  it("an upstream error is a tool error with its status and a bounded excerpt", async () => {
    const result = await call("fail", {});
    expect(result.isError).toBe(true);
    const text = result.content[0].text as string;
    expect(text).toMatch(/^Notes API answered fail with 503 Service Unavailable: upstream trouble !+…$/);
    expect(text.length).toBeLessThan(700);
  });

  it("an upstream that does not answer in time, or answers more than the limit, is a tool error and the server goes on", async () => {
    const slow = await call("slow", {});
    expect(slow.isError).toBe(true);
    expect(slow.content[0].text).toBe("Notes API did not answer slow within 300 ms");
    // The limit holds until the answer is read whole, not only until its headers arrive.
    const stalled = await call("stall", {});
    expect(stalled.isError).toBe(true);
    expect(stalled.content[0].text).toBe("Notes API did not answer stall within 300 ms");
    const big = await call("big", {});
    expect(big.isError).toBe(true);
    expect(big.content[0].text).toMatch(/answered big with more than 16384 bytes/);
    expect((await call("local_ping", {})).content[0].text).toBe("pong");
  });
});
