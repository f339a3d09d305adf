/**
 * The pure rules of `fromOpenApi` (src/engine/openapi/): how an operation is named (sanitised, cut
 * at 64, made unique with a stable suffix), how its arguments are flattened (parameters by name, a
 * JSON body's properties beside them, the body whole under `body` when it cannot be), how 3.0
 * schemas become 2020-12 ones, which scopes `security` gives, and what the argument check refuses.
 */
import { describe, expect, it } from "vitest";
import { compactOpenApi } from "../../../src/engine/openapi/compact";
import { fromOpenApi } from "../../../src/engine/openapi";
import { baseName, uniqueNames } from "../../../src/engine/openapi/names";
import { shortText } from "../../../src/engine/openapi/text";
import { problemsOf } from "../../../src/engine/openapi/validate";

const doc = (paths: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "Test API", version: "1" },
  servers: [{ url: "https://api.example.com/{version}", variables: { version: { default: "v2" } } }],
  paths,
  ...more,
});
const opOf = (d: Record<string, unknown>, name: string) => compactOpenApi(d).operations.find((o) => o.name === name)!;

describe("tool names", () => {
  it("every character outside [A-Za-z0-9_-] becomes _, and an operation without an id is named by method and path", () => {
    expect(baseName("issues/create", "post", "/x")).toBe("issues_create");
    expect(baseName("users/get-by-username", "get", "/x")).toBe("users_get-by-username");
    expect(baseName("a.b c:d", "get", "/x")).toBe("a_b_c_d");
    expect(baseName(undefined, "get", "/repos/{owner}/{repo}")).toBe("get_repos_owner_repo");
    expect(baseName("", "delete", "/")).toBe("delete");
  });

  it("a name is at most 64 characters; names that meet get _2, _3 in document order, within 64", () => {
    const long = "x".repeat(80);
    expect(baseName(long, "get", "/")).toHaveLength(64);
    const names = uniqueNames(["a", "b", "a", "A", "x".repeat(64), "x".repeat(64)]);
    expect(names).toEqual(["a", "b", "a_2", "A_3", "x".repeat(64), `${"x".repeat(62)}_2`]);
    expect(names.every((n) => n.length <= 64)).toBe(true);
  });

  it("the same document gives the same names, and a renaming is a note naming the operation", () => {
    const d = doc({
      "/a": { get: { operationId: "items/list" } },
      "/b": { get: { operationId: "items.list" } },
    });
    const first = compactOpenApi(d);
    expect(first.operations.map((o) => o.name)).toEqual(["items_list", "items_list_2"]);
    expect(compactOpenApi(d).operations.map((o) => o.name)).toEqual(["items_list", "items_list_2"]);
    expect(first.notes.join("\n")).toMatch(/"items\.list" is named "items_list_2"/);
  });
});

describe("flat arguments", () => {
  const issues = doc(
    {
      "/repos/{owner}/{repo}/issues": {
        parameters: [{ $ref: "#/components/parameters/owner" }, { name: "repo", in: "path", required: true, schema: { type: "string" } }],
        post: {
          operationId: "issues/create",
          summary: "Create an issue",
          description: "Creates an issue.\n\nMore about it that a model does not need.",
          parameters: [{ name: "dry", in: "query", schema: { type: "boolean" } }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/new-issue" } } },
          },
        },
      },
    },
    {
      components: {
        parameters: { owner: { name: "owner", in: "path", required: true, schema: { type: "string" } } },
        schemas: {
          "new-issue": {
            type: "object",
            required: ["title"],
            properties: {
              title: { type: "string", description: "The title." },
              body: { type: "string", nullable: true },
              id: { type: "integer", readOnly: true },
              milestone: { oneOf: [{ type: "string" }, { type: "integer" }], nullable: true },
            },
          },
        },
      },
    },
  );

  it("path and query parameters by name, the body's properties beside them, the document's required fields required", () => {
    const op = opOf(issues, "issues_create");
    expect(op).toMatchObject({
      method: "POST",
      path: "/repos/{owner}/{repo}/issues",
      title: "Create an issue",
      description: "Creates an issue.",
    });
    expect(op.in).toEqual({ owner: "path", repo: "path", dry: "query", title: "body", body: "body", milestone: "body" });
    expect(op.body).toEqual({ type: "application/json" });
    expect(op.inputSchema).toMatchObject({ type: "object", required: ["owner", "repo", "title"], additionalProperties: false });
    const props = op.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(["owner", "repo", "dry", "title", "body", "milestone"]);
    // 3.0's nullable is 3.1's null type (or a branch of its own); readOnly fields are never sent.
    expect(props.body).toEqual({ type: ["string", "null"] });
    expect(props.milestone).toEqual({ oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] });
    expect(compactOpenApi(issues).server).toBe("https://api.example.com/v2");
  });

  it("a body property with a parameter's name, or a body that is not a plain object, is the argument body", () => {
    const d = doc({
      "/vars/{name}": {
        patch: {
          operationId: "vars/update",
          parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", required: ["name"], properties: { name: { type: "string" }, value: { type: "string" } } },
              },
            },
          },
        },
      },
      "/labels": {
        post: {
          operationId: "labels/add",
          requestBody: {
            content: { "application/json": { schema: { oneOf: [{ type: "array", items: { type: "string" } }, { type: "string" }] } } },
          },
        },
      },
      "/raw": { post: { operationId: "raw", requestBody: { required: true, content: { "text/plain": { schema: { type: "string" } } } } } },
    });
    const update = opOf(d, "vars_update");
    expect(update.in).toEqual({ name: "path", body: "body" });
    expect(update.body).toEqual({ type: "application/json", whole: "body" });
    expect(update.inputSchema.required).toEqual(["name", "body"]);
    expect((update.inputSchema.properties as any).body).toMatchObject({ type: "object", required: ["name"] });
    expect(compactOpenApi(d).notes.join("\n")).toMatch(/vars_update.*"name" has a parameter's name/);
    // An optional body that is not an object: under body, not required.
    const labels = opOf(d, "labels_add");
    expect(labels.body).toEqual({ type: "application/json", whole: "body" });
    expect(labels.inputSchema.required).toBeUndefined();
    expect(opOf(d, "raw")).toMatchObject({ body: { type: "text/plain", whole: "body" }, inputSchema: { required: ["body"] } });
  });

  it("a body the operation may leave out makes none of its fields required", () => {
    const d = doc({
      "/x": {
        put: {
          operationId: "x",
          requestBody: {
            content: { "application/json": { schema: { type: "object", required: ["a"], properties: { a: { type: "string" } } } } },
          },
        },
      },
    });
    expect(opOf(d, "x").inputSchema.required).toBeUndefined();
  });

  it("a schema that refers to itself is cut where it recurs, and a ref that leads nowhere is any value", () => {
    const d = doc(
      {
        "/tree": {
          post: {
            operationId: "tree",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/node" } } } },
            parameters: [{ name: "q", in: "query", schema: { $ref: "#/components/schemas/missing" } }],
          },
        },
      },
      {
        components: {
          schemas: { node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/components/schemas/node" } } } },
        },
      },
    );
    const props = opOf(d, "tree").inputSchema.properties as any;
    expect(props.child).toEqual({});
    expect(props.q).toEqual({});
  });
});

describe("scopes and documents", () => {
  const secured = (security: unknown, docSecurity?: unknown) =>
    doc(
      { "/n": { get: { operationId: "notes/list", ...(security === undefined ? {} : { security }) } } },
      {
        ...(docSecurity ? { security: docSecurity } : {}),
        components: {
          securitySchemes: {
            oauth: { type: "oauth2", flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {} } } },
            key: { type: "apiKey", in: "header", name: "X-Key" },
          },
        },
      },
    );

  it("the OAuth scopes an operation's security names; the document's when it names none; none for an API key", () => {
    expect(opOf(secured([{ oauth: ["notes:read", "notes:list"] }]), "notes_list").scopes).toEqual(["notes:read", "notes:list"]);
    expect(opOf(secured(undefined, [{ oauth: ["notes:read"] }]), "notes_list").scopes).toEqual(["notes:read"]);
    expect(opOf(secured([], [{ oauth: ["notes:read"] }]), "notes_list").scopes).toBeUndefined();
    expect(opOf(secured([{ key: [] }, { oauth: ["notes:read"] }]), "notes_list").scopes).toEqual(["notes:read"]);
    expect(opOf(secured([{ key: ["x"] }]), "notes_list").scopes).toBeUndefined();
  });

  it("refuses what is not an OpenAPI 3.0 or 3.1 document", () => {
    expect(() => compactOpenApi({ swagger: "2.0", paths: {} })).toThrow(/not an OpenAPI 3\.0 or 3\.1 document/);
  });
});

describe("descriptions", () => {
  it("the first paragraph, links reduced to their words, cut at a sentence or a word", () => {
    expect(shortText("See [the docs](https://x.y/z) for **more**.\n\nSecond paragraph.", 300)).toBe("See the docs for more.");
    expect(shortText("One sentence here. Another sentence that is long enough to be cut off.", 30)).toBe("One sentence here.");
    expect(shortText("word ".repeat(40), 20)).toBe("word word word…");
    expect(shortText("   ", 10)).toBeUndefined();
  });
});

describe("the argument check", () => {
  const schema = {
    type: "object",
    properties: {
      owner: { type: "string", minLength: 1 },
      per_page: { type: "integer", minimum: 1, maximum: 100 },
      state: { type: "string", enum: ["open", "closed"] },
      labels: { type: "array", items: { type: "string" }, maxItems: 2 },
      milestone: { oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      meta: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
    },
    required: ["owner"],
    additionalProperties: false,
  };

  it("names each bad field: missing, wrong type, out of range, not in the enum, unknown, nested", () => {
    expect(problemsOf(schema, { owner: "o", per_page: 30, state: "open", labels: ["a"], milestone: null, meta: { a: 1 } })).toEqual([]);
    expect(problemsOf(schema, {})).toEqual(["owner: required"]);
    expect(problemsOf(schema, { owner: 7 })).toEqual(["owner: expected string, got integer"]);
    expect(problemsOf(schema, { owner: "o", per_page: 1.5 })).toEqual(["per_page: expected integer, got number"]);
    expect(problemsOf(schema, { owner: "o", per_page: 500 })).toEqual(["per_page: must be at most 100"]);
    expect(problemsOf(schema, { owner: "o", state: "merged" })).toEqual(['state: must be one of "open", "closed"']);
    expect(problemsOf(schema, { owner: "o", colour: "red" })).toEqual(["colour: not an argument of this tool"]);
    expect(problemsOf(schema, { owner: "o", labels: ["a", 2] })).toEqual(["labels[1]: expected string, got integer"]);
    expect(problemsOf(schema, { owner: "o", labels: ["a", "b", "c"] })).toEqual(["labels: at most 2 items"]);
    expect(problemsOf(schema, { owner: "o", milestone: true })).toEqual(["milestone: matches none of the 3 forms it may take"]);
    expect(problemsOf(schema, { owner: "o", meta: {} })).toEqual(["meta.a: required"]);
    expect(problemsOf(schema, { owner: "" })).toEqual(["owner: at least 1 characters"]);
  });
});

describe("fromOpenApi's options", () => {
  const api = doc({
    "/issues": {
      get: { operationId: "issues/list", tags: ["issues"] },
      post: { operationId: "issues/create", tags: ["issues"] },
    },
    "/issues/{n}": { delete: { operationId: "issues/delete", tags: ["issues"], parameters: [{ name: "n", in: "path", required: true }] } },
    "/users": { get: { operationId: "users/list", tags: ["users"] } },
  });
  const names = (options: Parameters<typeof fromOpenApi>[1]) => fromOpenApi(api, options).map((t) => t.name);

  it("include and exclude by tag, method, path (and its sub-paths) or name, or by a function", () => {
    expect(names({})).toEqual(["issues_list", "issues_create", "issues_delete", "users_list"]);
    expect(names({ include: { tags: ["issues"] }, exclude: { methods: ["DELETE"] } })).toEqual(["issues_list", "issues_create"]);
    expect(names({ include: { paths: ["/issues"] } })).toEqual(["issues_list", "issues_create", "issues_delete"]);
    expect(names({ include: { paths: ["/iss"] } })).toEqual([]);
    expect(names({ exclude: { names: ["users_list"] } })).toEqual(["issues_list", "issues_create", "issues_delete"]);
    expect(names({ include: (op) => op.method === "GET" })).toEqual(["issues_list", "users_list"]);
  });

  it("names do not depend on the filters: the same operation keeps its name whatever else is imported", () => {
    const clash = doc({ "/a": { get: { operationId: "x.y" } }, "/b": { get: { operationId: "x/y" } } });
    expect(fromOpenApi(clash, { exclude: { paths: ["/a"] } }).map((t) => t.name)).toEqual(["x_y_2"]);
  });

  it("the compact form makes the same tools as the document", () => {
    const strip = (tools: ReturnType<typeof fromOpenApi>) => JSON.parse(JSON.stringify(tools));
    expect(strip(fromOpenApi(JSON.parse(JSON.stringify(compactOpenApi(api)))))).toEqual(strip(fromOpenApi(api)));
  });

  it("scopes from options in place of security's; a document with no absolute server needs baseUrl", () => {
    const tools = fromOpenApi(api, { scopes: (op) => (op.method === "GET" ? ["api:read"] : ["api:write"]) });
    expect(tools.map((t) => t.scopes)).toEqual([["api:read"], ["api:write"], ["api:write"], ["api:read"]]);
    const { servers: _servers, ...serverless } = api;
    expect(() => fromOpenApi(serverless)).toThrow(/Test API needs options\.baseUrl/);
    expect(fromOpenApi(serverless, { baseUrl: (env: { URL: string }) => env.URL })).toHaveLength(4);
  });
});

describe("a call's mistakes that are the app's", () => {
  it("a base URL from env that is missing is a tool error naming the setting, and nothing is sent", async () => {
    const sent: string[] = [];
    const [tool] = fromOpenApi(doc({ "/x": { get: { operationId: "x" } } }), {
      baseUrl: (env: { API_URL?: string }) => env.API_URL as string,
      fetcher: () => ({ fetch: (async (url: string) => (sent.push(url), Response.json({}))) as unknown as typeof fetch }),
    });
    const ctx = { env: {}, signal: new AbortController().signal } as never;
    await expect(Promise.resolve(tool!.handler({}, ctx))).rejects.toThrow(
      /base URL of x's API is not a URL \("undefined"\): check options\.baseUrl/,
    );
    expect(sent).toEqual([]);
  });
});
