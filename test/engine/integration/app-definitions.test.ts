/**
 * The app check (src/engine/mcp/check-app.ts) names each definition mistake a fork can make, and lets a
 * tool that gives its own JSON Schema through; a Worker whose app has one says so in its log; a
 * prompt's ToolError reaches the client as -32602 with its message on both revisions.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkApp, checkAppWarnings } from "../../../src/engine/mcp/check-app";
import { compileApp } from "../../../src/engine/mcp/registry";
import {
  ToolError,
  createMcpWorker,
  defineApp,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  durableTask,
  testClient,
} from "../../../src/mcp";
import { buildModernRequest, modernCall } from "../helpers/mcp";
import { call, openSession } from "../helpers/legacy";

const ok = () => "ok";
const info = { name: "t", version: "1" };

describe("the app check's directory warnings (Claude's and ChatGPT's connector directories)", () => {
  const hints = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

  it("names each tool without a title, without an explicit hint, or with a name over 64 characters, and the rule; they are not problems", () => {
    const app = defineApp({
      info,
      tools: [
        defineTool({ name: "untitled", annotations: hints, handler: ok }),
        defineTool({ name: "hintless", title: "Hintless", handler: ok }),
        defineTool({ name: "half", title: "Half", annotations: { readOnlyHint: false, destructiveHint: true }, handler: ok }),
        defineTool({ name: "n".repeat(65), title: "Long", annotations: hints, handler: ok }),
        defineTool({ name: "ready", title: "Ready", annotations: hints, handler: ok }),
      ],
    });
    expect(checkApp(app)).toEqual([]);
    const warnings = checkAppWarnings(app);
    expect(warnings).toEqual([
      expect.stringMatching(/^Tool "untitled" has no title: Claude's and ChatGPT's directories require one/),
      expect.stringMatching(
        /^Tool "hintless" does not set annotations\.readOnlyHint, annotations\.destructiveHint, annotations\.openWorldHint to true or false: .*ChatGPT's directory/,
      ),
      expect.stringMatching(/^Tool "half" does not set annotations\.openWorldHint to true or false: .*openWorldHint: ChatGPT's directory/),
      expect.stringMatching(/^Tool "n{65}" has a name of 65 characters: Claude's directory allows at most 64/),
    ]);
  });

  it("accepts a title given in annotations.title, and a hint set to false", () => {
    const tool = defineTool({
      name: "t",
      annotations: { title: "T", readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      handler: ok,
    });
    expect(checkAppWarnings(defineApp({ info, tools: [tool] }))).toEqual([]);
  });
});

describe("the app check", () => {
  it("passes the engine's own apps", async () => {
    expect(checkApp((await import("../app/app")).default)).toEqual([]);
    expect(checkApp((await import("../conformance/app")).default)).toEqual([]);
  });

  it("names a tool defined twice and a tool name with a space", () => {
    const twice = defineTool({ name: "note", handler: ok });
    const problems = checkApp(defineApp({ info, tools: [twice, twice, defineTool({ name: "save note", handler: ok })] }));
    expect(problems).toContain('Tool "note" is defined twice');
    expect(problems.some((p) => p.startsWith('Tool "save note": a name is 1-128 characters'))).toBe(true);
  });

  it("names each field whose schema has no JSON Schema, by tool, input or output, and path", () => {
    const problems = checkApp(
      defineApp({
        info,
        tools: [
          defineTool({
            name: "remind",
            input: v.object({
              when: v.date(),
              meta: v.optional(v.object({ tags: v.array(v.custom<string>((x) => typeof x === "string")) })),
            }),
            output: v.object({ at: v.instance(Date) }),
            handler: () => ({ at: new Date() }),
          }),
        ],
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^Tool "remind" input field when: The "date" schema cannot be converted to JSON Schema; give the tool's JSON Schema as inputSchema/,
      ),
      expect.stringMatching(/^Tool "remind" input field meta\.tags\[\]: The "custom" schema cannot/),
      expect.stringMatching(/^Tool "remind" output field at: The "instance" schema cannot.*outputSchema/),
    ]);
  });

  it("lets actions without a JSON Schema through (they only loosen the schema)", () => {
    const tool = defineTool({
      name: "count",
      input: v.object({
        text: v.pipe(
          v.string(),
          v.transform((s) => s.length),
        ),
      }),
      handler: ok,
    });
    expect(checkApp(defineApp({ info, tools: [tool] }))).toEqual([]);
  });

  it("names a template with a repeated variable, with none, with an unsupported one, and one defined twice", () => {
    const read = () => "";
    const problems = checkApp(
      defineApp({
        info,
        resourceTemplates: [
          defineResourceTemplate({ uriTemplate: "notes://{id}/{id}", name: "a", read }),
          defineResourceTemplate({ uriTemplate: "notes://id", name: "b", read }),
          defineResourceTemplate({ uriTemplate: "notes://{+path}", name: "c", read }),
          defineResourceTemplate({ uriTemplate: "files://{name}", name: "d", read, complete: { nmae: () => [] } }),
          defineResourceTemplate({ uriTemplate: "files://{name}", name: "e", read }),
        ],
      }),
    );
    expect(problems).toEqual([
      'Resource template "notes://{id}/{id}": variable {id} appears twice',
      'Resource template "notes://id": has no {variable}; a fixed URI is a resource (defineResource)',
      'Resource template "notes://{+path}": {+path} is not supported (only {name}, RFC 6570 level 1)',
      'Resource template "files://{name}": complete.nmae names no variable of the template',
      'Resource template "files://{name}" is defined twice',
    ]);
  });

  it("names resources and prompts defined twice, a URI with no scheme, and a completion for no argument", () => {
    const problems = checkApp(
      defineApp({
        info,
        resources: [
          defineResource({ uri: "readme", name: "r", read: () => "" }),
          defineResource({ uri: "readme", name: "r", read: () => "" }),
        ],
        prompts: [
          definePrompt({ name: "p", arguments: [{ name: "unit" }], get: () => [], complete: { units: () => [] } }),
          definePrompt({ name: "p", get: () => [] }),
        ],
      }),
    );
    expect(problems).toEqual([
      'Resource "readme": its uri needs a scheme, e.g. notes://readme',
      'Resource "readme" is defined twice',
      'Resource "readme": its uri needs a scheme, e.g. notes://readme',
      'Prompt "p": complete.units names no declared argument',
      'Prompt "p" is defined twice',
    ]);
  });

  it("names a resource, template or prompt written as a plain object: the define… helper brings the code that serves it", () => {
    const read = () => "";
    const said = (app: Parameters<typeof checkApp>[0]) => checkApp(app);
    expect(said(defineApp({ info, resources: [{ uri: "notes://a", name: "a", read }] }))).toEqual([
      'Resource "notes://a": declare it with defineResource({ ... }), which brings the code that serves resources',
    ]);
    expect(said(defineApp({ info, resourceTemplates: [{ uriTemplate: "notes://{id}", name: "t", read }] }))).toEqual([
      'Resource template "notes://{id}": declare it with defineResourceTemplate({ ... }), which brings the code that serves it',
    ]);
    expect(said(defineApp({ info, prompts: [{ name: "p", get: () => [] }] }))).toEqual([
      'Prompt "p": declare it with definePrompt({ ... }), which brings the code that serves prompts',
    ]);
  });

  it("names a template declared with defineResource (possible from plain JavaScript): only defineResourceTemplate brings its compiler", () => {
    const template = defineResource({ uriTemplate: "notes://{id}", name: "t", read: () => "" } as never) as never;
    expect(() => compileApp(defineApp({ info, resourceTemplates: [template] }))).toThrow(
      '"t" is a resource template: use defineResourceTemplate',
    );
  });

  it("accepts a tool that gives its own JSON Schema; clients see it, and `input` still validates", async () => {
    const when = v.pipe(v.custom<string>((x) => typeof x === "string" && !Number.isNaN(Date.parse(x)), "not a date"));
    const tool = defineTool({
      name: "remind",
      input: v.object({ when }),
      inputSchema: { type: "object", properties: { when: { type: "string", format: "date-time" } }, required: ["when"] },
      outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      handler: () => "set",
    });
    const app = defineApp({ info, tools: [tool] });
    expect(checkApp(app)).toEqual([]);
    const c = testClient(app);
    expect((await c.listTools())[0]).toMatchObject({
      inputSchema: { properties: { when: { format: "date-time" } } },
      outputSchema: { properties: { ok: { type: "boolean" } } },
    });
    expect((await c.callTool("remind", { when: "yesterday-ish" })).isError).toBe(true);
    expect((await c.callTool("remind", { when: "2026-12-02T10:00:00Z" })).content).toEqual([{ type: "text", text: "set" }]);
  });
});

describe("the schemas tools/list publishes", () => {
  it("a tool without arguments is a closed empty object, a strict object is closed at every level, a plain one stays open", async () => {
    const app = defineApp({
      info,
      tools: [
        defineTool({ name: "none", handler: ok }),
        defineTool({ name: "strict", input: v.strictObject({ a: v.string(), inner: v.strictObject({ b: v.number() }) }), handler: ok }),
        defineTool({ name: "plain", input: v.object({ a: v.string() }), handler: ok }),
      ],
    });
    const { message, headers } = buildModernRequest("tools/list", {}, { id: "schemas" });
    const ctx = createExecutionContext();
    const res = await createMcpWorker(app).fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const tools = Object.fromEntries(((await res.json()) as any).result.tools.map((t: any) => [t.name, t.inputSchema]));
    expect(tools.none).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(tools.strict.additionalProperties).toBe(false);
    expect(tools.strict.properties.inner.additionalProperties).toBe(false);
    expect(tools.plain).not.toHaveProperty("additionalProperties");
  });
});

describe("a task tool", () => {
  // A plain value, as JS (or a cast) lets an app write it: the task runtime comes only with durableTask.
  const plain = (task: unknown) => defineTool({ name: "slow", task: task as never, handler: ok });

  it("declared without durableTask: the app check and createMcpWorker (at start-up) say what to write", () => {
    const app = defineApp({ info, tools: [plain("optional")] });
    const said = 'Tool "slow": declare its task as `task: durableTask("optional")`';
    expect(checkApp(app)).toEqual([expect.stringContaining(said)]);
    expect(() => createMcpWorker(app)).toThrow(said);
    expect(() => createMcpWorker(defineApp({ info, tools: [plain({ support: "required" })] }))).toThrow(
      '`task: durableTask({"support":"required"})`',
    );
  });

  it("with durableTask: checked as before, and a Worker whose tools declare none has a stand-in McpTask", () => {
    expect(checkApp(defineApp({ info, tools: [defineTool({ name: "slow", task: durableTask("optional"), handler: ok })] }))).toEqual([]);
    expect(checkApp(defineApp({ info, tools: [plain("sometimes")] }))).toEqual([
      'Tool "slow": task must be "forbidden", "optional" or "required"',
    ]);
    expect(
      checkApp(defineApp({ info, tools: [defineTool({ name: "slow", task: durableTask("sometimes" as never), handler: ok })] })),
    ).toEqual(['Tool "slow": task must be "forbidden", "optional" or "required"']);
    const withTasks = createMcpWorker(
      defineApp({ info, tools: [defineTool({ name: "slow", task: durableTask("optional"), handler: ok })] }),
    );
    const without = createMcpWorker(defineApp({ info, tools: [plain("forbidden")] }));
    expect("create" in withTasks.McpTask.prototype).toBe(true);
    expect("create" in without.McpTask.prototype).toBe(false);
  });
});

/**
 * Sends `requests` 2026 `method` requests to a Worker built from an app with a definition mistake:
 * each must be answered 500 -32603; returns the app_definition_invalid lines it logged.
 */
async function invalidAppSays(app: Parameters<typeof createMcpWorker>[0], method: string, requests: number): Promise<string[]> {
  const lines: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  const worker = createMcpWorker(app);
  for (let id = 1; id <= requests; id++) {
    const { message, headers } = buildModernRequest(method, {}, { id });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32603);
  }
  return lines.filter((l) => l.includes('"app_definition_invalid"'));
}

describe("a Worker whose app has a definition mistake", () => {
  afterEach(() => vi.restoreAllMocks());

  it("logs one line naming it, and answers -32603 rather than crashing", async () => {
    const twice = defineTool({ name: "note", handler: ok });
    const said = await invalidAppSays(defineApp({ info, tools: [twice, twice] }), "tools/list", 2);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('Tool \\"note\\" is defined twice');
  });

  it("names the mistake in its answer under `npm run dev` (MCP_DEV=on) only; deployed, the answer says nothing of it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const twice = defineTool({ name: "note", handler: ok });
    const worker = createMcpWorker(defineApp({ info, tools: [twice, twice] }));
    const answer = async (vars: Record<string, string>) => {
      const { message, headers } = buildModernRequest("tools/list", {}, { id: 3 });
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
        { ...env, ...vars } as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, error: ((await res.json()) as { error: { code: number; message: string } }).error };
    };
    expect(await answer({ MCP_DEV: "on" })).toEqual({
      status: 500,
      error: { code: -32603, message: 'Internal error: Tool "note" is defined twice' },
    });
    expect(await answer({})).toEqual({ status: 500, error: { code: -32603, message: "Internal error" } });
  });
});

describe("a Worker whose app has a prompt written as a plain object", () => {
  afterEach(() => vi.restoreAllMocks());

  it("logs the helper to use and answers -32603, as for any definition mistake: it has no code to serve the prompt", async () => {
    const said = await invalidAppSays(defineApp({ info, prompts: [{ name: "p", get: () => [] }] }), "prompts/list", 1);
    expect(said[0]).toContain('\\"p\\" is a plain object: use defineResource, defineResourceTemplate or definePrompt');
  });
});

describe("a prompt that throws ToolError", () => {
  it("2026-07-28: -32602 with the handler's message", async () => {
    const body = await modernCall("prompts/get", { name: "explain_unit", arguments: { unit: "rankine" } }, { id: 7 });
    expect(body.id).toBe(7);
    expect(body.error).toEqual({ code: -32602, message: "No unit called rankine; use celsius, fahrenheit or kelvin." });
  });

  it("2025-11-25: -32602 with the handler's message", async () => {
    const s = await openSession();
    const body = await call(s.id, "prompts/get", { name: "explain_unit", arguments: { unit: "rankine" } });
    expect(body.error).toEqual({ code: -32602, message: "No unit called rankine; use celsius, fahrenheit or kelvin." });
  });

  it("in-process through testClient: the same error", async () => {
    const app = defineApp({
      info,
      prompts: [
        definePrompt({
          name: "p",
          get: () => {
            throw new ToolError("no such thing");
          },
        }),
      ],
    });
    await expect(testClient(app).getPrompt("p")).rejects.toMatchObject({ code: -32602, message: "no such thing" });
  });
});

describe("a tool's JSON Schemas, made when it is first listed or its header arguments first checked", () => {
  const region = defineTool({
    name: "where",
    input: v.object({ region: v.pipe(v.string(), v.metadata({ "x-mcp-header": "Region" })), note: v.optional(v.string()) }),
    handler: ({ region: r }) => `region=${r}`,
  });

  /** A fresh Worker's first request: a 2026 tools/call of `where`, with `headers` added. */
  async function firstCall(headers: Record<string, string>) {
    const worker = createMcpWorker(defineApp({ info, tools: [region] }));
    const { message, headers: base } = buildModernRequest("tools/call", { name: "where", arguments: { region: "eu" } }, { id: 1, headers });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers: base, body: JSON.stringify(message) }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: (await res.json()) as { result?: { content: { text: string }[] }; error?: { message: string } } };
  }

  it("checks a header argument on a Worker's first request, a tools/call before any tools/list", async () => {
    const missing = await firstCall({});
    expect(missing.status).toBe(400);
    expect(missing.body.error?.message).toContain("Missing Mcp-Param-Region header for argument region");
    const wrong = await firstCall({ "Mcp-Param-Region": "us" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.message).toContain("Mcp-Param-Region header does not match the argument region");
    const right = await firstCall({ "Mcp-Param-Region": "eu" });
    expect(right.status).toBe(200);
    expect(right.body.result?.content[0]?.text).toBe("region=eu");
  });

  it("the app check still names a root that is no object and a header named twice, which only making the schemas finds", () => {
    const root = defineTool({ name: "root", input: v.string() as never, handler: ok });
    expect(checkApp(defineApp({ info, tools: [root] })).join("\n")).toContain("tool root input: the schema root must be an object schema");
    const twice = defineTool({
      name: "twice",
      input: v.object({
        a: v.pipe(v.string(), v.metadata({ "x-mcp-header": "Region" })),
        b: v.pipe(v.string(), v.metadata({ "x-mcp-header": "region" })),
      }),
      handler: ok,
    });
    expect(checkApp(defineApp({ info, tools: [twice] })).join("\n")).toContain('x-mcp-header "region" is used twice');
  });
});
