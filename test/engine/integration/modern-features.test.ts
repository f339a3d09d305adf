/**
 * The example app (src/server.ts) as a 2026-07-28 client sees it: discover,
 * lists with caching fields and pagination, each tool, resources, prompts,
 * completions, and request-scoped progress/logging over SSE.
 */
import { describe, expect, it } from "vitest";
import { META, SseReader, VERSION, modernCall, modernPost, modernResult, readSse } from "../helpers/mcp";

const InvalidParams = -32602;
const SERVER_INFO = { name: "engine-test-app", version: "0.1.0" };

/** Fields every complete cacheable 2026 result carries. */
function expectCacheable(result: any) {
  expect(result.resultType).toBe("complete");
  expect(Number.isInteger(result.ttlMs)).toBe(true);
  expect(result.ttlMs).toBeGreaterThanOrEqual(0);
  expect(["public", "private"]).toContain(result.cacheScope);
  expect(result._meta?.[META.serverInfo]).toMatchObject(SERVER_INFO);
}

describe("server/discover", () => {
  it("2026-07-28: server/discover reports versions, capabilities, instructions, caching fields and serverInfo in _meta", async () => {
    const result = await modernResult("server/discover");
    expectCacheable(result);
    expect(result.supportedVersions).toContain(VERSION);
    expect(result.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(result.capabilities.tasks).toBeUndefined();
    expect(typeof result.instructions).toBe("string");
    // 2026-07-28 has no top-level serverInfo: identity lives in _meta.
    expect(result.serverInfo).toBeUndefined();
  });

  it("2026-07-28: server/discover answers an anonymous request with a public cache scope", async () => {
    const result = await modernResult("server/discover");
    expect(result.cacheScope).toBe("public");
  });
});

describe("tools/list and pagination", () => {
  it("2026-07-28: tools/list returns the example tools in registration order with caching fields", async () => {
    const result = await modernResult("tools/list");
    expectCacheable(result);
    expect(result.tools.map((t: any) => t.name)).toEqual([
      "convert_temperature",
      "roll_dice",
      "greet",
      "countdown",
      "chatter",
      "prepare_report",
      "quick_task",
      "announce",
    ]);
    // 2026-07-28 dropped `execution.taskSupport`: a task tool is listed like any other.
    expect(result.tools.find((t: any) => t.name === "prepare_report").execution).toBeUndefined();
    expect(result.nextCursor).toBeUndefined();
  });

  it("2026-07-28: tools/list is identical across requests (deterministic, not per connection)", async () => {
    const a = await modernResult("tools/list");
    const b = await modernResult("tools/list", {}, { capabilities: { elicitation: {} } });
    expect(JSON.stringify(b.tools)).toBe(JSON.stringify(a.tools));
  });

  it("2026-07-28: every tool has an object inputSchema, and convert_temperature an outputSchema", async () => {
    const { tools } = await modernResult("tools/list");
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
    const convert = tools.find((t: any) => t.name === "convert_temperature");
    expect(convert.outputSchema.type).toBe("object");
    expect(convert.inputSchema.required).toEqual(expect.arrayContaining(["value", "from"]));
    expect(convert.inputSchema.$schema).toBeUndefined();
  });

  it("2026-07-28: an empty-string cursor is a valid cursor for the first page", async () => {
    const first = await modernResult("tools/list");
    const again = await modernResult("tools/list", { cursor: "" });
    expect(again.tools).toEqual(first.tools);
  });

  it("2026-07-28: an invalid cursor is answered -32602", async () => {
    const body = await modernCall("tools/list", { cursor: "not-a-cursor" }, { id: 101 });
    expect(body.id).toBe(101);
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: a non-string cursor is answered -32602 on every list", async () => {
    for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
      const body = await modernCall(method, { cursor: 5 });
      expect(body.error?.code, method).toBe(InvalidParams);
    }
  });
});

describe("tools/call", () => {
  it("2026-07-28: convert_temperature returns structuredContent and the same JSON as a text block", async () => {
    const result = await modernResult("tools/call", { name: "convert_temperature", arguments: { value: 100, from: "celsius" } });
    expect(result.resultType).toBe("complete");
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
    expect(result.content).toHaveLength(1);
    expect(result.content[0].type).toBe("text");
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result._meta?.[META.serverInfo]).toMatchObject(SERVER_INFO);
    // tools/call results are not cacheable.
    expect(result.ttlMs).toBeUndefined();
    expect(result.cacheScope).toBeUndefined();
  });

  it("2026-07-28: convert_temperature converts from fahrenheit and kelvin", async () => {
    const f = await modernResult("tools/call", { name: "convert_temperature", arguments: { value: 32, from: "fahrenheit" } });
    expect(f.structuredContent).toEqual({ celsius: 0, fahrenheit: 32, kelvin: 273.15 });
    const k = await modernResult("tools/call", { name: "convert_temperature", arguments: { value: 0, from: "kelvin" } });
    expect(k.structuredContent).toEqual({ celsius: -273.15, fahrenheit: -459.67, kelvin: 0 });
  });

  it("2026-07-28: a tool that fails (below absolute zero) answers an isError result, not a protocol error", async () => {
    const result = await modernResult("tools/call", { name: "convert_temperature", arguments: { value: -300, from: "celsius" } });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/absolute zero/);
    expect(result.structuredContent).toBeUndefined();
  });

  it("2026-07-28: invalid arguments answer an isError result naming the argument", async () => {
    const result = await modernResult("tools/call", { name: "convert_temperature", arguments: { value: "hot", from: "rankine" } });
    expect(result.resultType).toBe("complete");
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/value/);
    expect(result.content[0].text).toMatch(/from/);
  });

  it("2026-07-28: roll_dice rolls the requested dice and reports a consistent total", async () => {
    const result = await modernResult("tools/call", { name: "roll_dice", arguments: { sides: 20, count: 5 } });
    const m = /^Rolled 5d20: ((?:\d+, ){4}\d+) \(total (\d+)\)$/.exec(result.content[0].text);
    expect(m, result.content[0].text).not.toBeNull();
    const rolls = m![1]!.split(", ").map(Number);
    for (const r of rolls) {
      expect(r).toBeGreaterThanOrEqual(1);
      expect(r).toBeLessThanOrEqual(20);
    }
    expect(rolls.reduce((a, b) => a + b, 0)).toBe(Number(m![2]));
  });

  it("2026-07-28: roll_dice applies its defaults (one six-sided die) when arguments are omitted", async () => {
    const result = await modernResult("tools/call", { name: "roll_dice" });
    expect(result.content[0].text).toMatch(/^Rolled 1d6: [1-6] \(total [1-6]\)$/);
  });

  it("2026-07-28: roll_dice with out-of-range arguments answers an isError result", async () => {
    const result = await modernResult("tools/call", { name: "roll_dice", arguments: { sides: 1 } });
    expect(result.isError).toBe(true);
  });

  it("2026-07-28: countdown without progressToken or logLevel answers plain JSON", async () => {
    const res = await modernPost("tools/call", { name: "countdown", arguments: { from: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = (await res.json()) as any;
    expect(body.result.content[0].text).toBe("Liftoff!");
  });

  it("2026-07-28: an unknown tool is answered -32602 with the request id", async () => {
    const body = await modernCall("tools/call", { name: "no_such_tool", arguments: {} }, { id: "t-404" });
    expect(body.id).toBe("t-404");
    expect(body.error?.code).toBe(InvalidParams);
    expect(body.error?.message).toMatch(/no_such_tool/);
  });

  it("2026-07-28: tools/call with non-object arguments is answered -32602", async () => {
    const body = await modernCall("tools/call", { name: "roll_dice", arguments: [6] });
    expect(body.error?.code).toBe(InvalidParams);
  });
});

describe("resources", () => {
  it("2026-07-28: resources/list lists info://about with caching fields", async () => {
    const result = await modernResult("resources/list");
    expectCacheable(result);
    expect(result.resources).toEqual([expect.objectContaining({ uri: "info://about", name: "about", mimeType: "text/markdown" })]);
  });

  it("2026-07-28: resources/templates/list lists units://{unit} without its completer", async () => {
    const result = await modernResult("resources/templates/list");
    expectCacheable(result);
    expect(result.resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "units://{unit}", name: "unit" })]);
    expect(result.resourceTemplates[0].complete).toBeUndefined();
  });

  it("2026-07-28: resources/read of info://about returns markdown text with caching fields", async () => {
    const result = await modernResult("resources/read", { uri: "info://about" });
    expectCacheable(result);
    expect(result.contents).toEqual([
      { uri: "info://about", mimeType: "text/markdown", text: expect.stringContaining("# Engine test app") },
    ]);
  });

  it("2026-07-28: resources/read of units://kelvin is served by the template", async () => {
    const result = await modernResult("resources/read", { uri: "units://kelvin" });
    expectCacheable(result);
    expect(result.contents).toEqual([{ uri: "units://kelvin", mimeType: "text/plain", text: expect.stringContaining("absolute zero") }]);
  });

  it("2026-07-28: resources/read decodes percent-encoded template variables", async () => {
    const result = await modernResult("resources/read", { uri: "units://cel%73ius" });
    expect(result.contents[0].text).toMatch(/^Degrees Celsius/);
  });

  it("2026-07-28: an unknown resource is answered -32602 with data.uri (never -32002 or empty contents)", async () => {
    const body = await modernCall("resources/read", { uri: "info://nothing-here" }, { id: 131 });
    expect(body.id).toBe(131);
    expect(body.result).toBeUndefined();
    expect(body.error?.code).toBe(InvalidParams);
    expect(body.error?.data).toEqual({ uri: "info://nothing-here" });
  });

  it("2026-07-28: a URI that only looks like the template (extra path segment) is not found", async () => {
    const body = await modernCall("resources/read", { uri: "units://kelvin/extra" });
    expect(body.error?.code).toBe(InvalidParams);
    expect(body.error?.data).toEqual({ uri: "units://kelvin/extra" });
  });
});

describe("prompts", () => {
  it("2026-07-28: prompts/list lists explain_unit with its required argument and caching fields", async () => {
    const result = await modernResult("prompts/list");
    expectCacheable(result);
    expect(result.prompts).toEqual([
      expect.objectContaining({ name: "explain_unit", arguments: [expect.objectContaining({ name: "unit", required: true })] }),
    ]);
    expect(result.prompts[0].complete).toBeUndefined();
  });

  it("2026-07-28: prompts/get renders the prompt with its argument", async () => {
    const result = await modernResult("prompts/get", { name: "explain_unit", arguments: { unit: "kelvin" } });
    expect(result.resultType).toBe("complete");
    expect(result.messages).toEqual([{ role: "user", content: { type: "text", text: expect.stringContaining("kelvin") } }]);
    expect(result.ttlMs).toBeUndefined();
  });

  it("2026-07-28: prompts/get without a required argument is answered -32602", async () => {
    const body = await modernCall("prompts/get", { name: "explain_unit", arguments: {} }, { id: 141 });
    expect(body.id).toBe(141);
    expect(body.error?.code).toBe(InvalidParams);
    expect(body.error?.message).toMatch(/unit/);
  });

  it("2026-07-28: prompts/get of an unknown prompt is answered -32602", async () => {
    const body = await modernCall("prompts/get", { name: "nope", arguments: {} });
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: prompts/get with a non-string argument value is answered -32602", async () => {
    const body = await modernCall("prompts/get", { name: "explain_unit", arguments: { unit: 5 } });
    expect(body.error?.code).toBe(InvalidParams);
  });
});

describe("completion/complete", () => {
  it("2026-07-28: completion/complete completes the explain_unit prompt argument", async () => {
    const result = await modernResult("completion/complete", {
      ref: { type: "ref/prompt", name: "explain_unit" },
      argument: { name: "unit", value: "k" },
    });
    expect(result.resultType).toBe("complete");
    expect(result.completion).toEqual({ values: ["kelvin"], total: 1, hasMore: false });
  });

  it("2026-07-28: completion/complete completes the units://{unit} template variable", async () => {
    const result = await modernResult("completion/complete", {
      ref: { type: "ref/resource", uri: "units://{unit}" },
      argument: { name: "unit", value: "" },
    });
    expect(result.completion.values).toEqual(["celsius", "fahrenheit", "kelvin"]);
    expect(result.completion.hasMore).toBe(false);
  });

  it("2026-07-28: completion/complete for an unknown prompt is answered -32602", async () => {
    const body = await modernCall("completion/complete", {
      ref: { type: "ref/prompt", name: "nope" },
      argument: { name: "unit", value: "" },
    });
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: completion/complete without an argument is answered -32602", async () => {
    const body = await modernCall("completion/complete", { ref: { type: "ref/prompt", name: "explain_unit" } });
    expect(body.error?.code).toBe(InvalidParams);
  });
});

describe("progress and logging (request-scoped notifications)", () => {
  const countdown = { name: "countdown", arguments: { from: 2 } };

  it("2026-07-28: with a progressToken and logLevel the answer is SSE: notifications first, then the result", async () => {
    const res = await modernPost("tools/call", countdown, { id: 151, meta: { progressToken: "p-1", [META.logLevel]: "info" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("X-Accel-Buffering")).toBe("no");
    const messages = await readSse(res);

    const last = messages.at(-1)!;
    expect(last.id).toBe(151);
    expect(last.result.content[0].text).toBe("Liftoff!");
    const notes = messages.slice(0, -1);
    expect(notes.every((m) => m.id === undefined && typeof m.method === "string")).toBe(true);

    const progress = notes.filter((m) => m.method === "notifications/progress").map((m) => m.params);
    expect(progress.map((p) => p.progress)).toEqual([0, 1, 2]);
    for (const p of progress) expect(p).toMatchObject({ progressToken: "p-1", total: 2 });

    const logs = notes.filter((m) => m.method === "notifications/message").map((m) => m.params);
    expect(logs).toEqual([
      { level: "info", data: "countdown at 2" },
      { level: "info", data: "countdown at 1" },
    ]);
    // Request-scoped notifications never carry a subscription id.
    for (const n of notes) expect(n.params?._meta?.[META.subscriptionId]).toBeUndefined();
  });

  it("2026-07-28: an integer progressToken is echoed as an integer", async () => {
    const messages = await readSse(await modernPost("tools/call", countdown, { meta: { progressToken: 7 } }));
    const progress = messages.filter((m) => m.method === "notifications/progress");
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.params.progressToken).toBe(7);
  });

  it("2026-07-28: with a progressToken but no logLevel no log messages are sent", async () => {
    const messages = await readSse(await modernPost("tools/call", countdown, { meta: { progressToken: "p-2" } }));
    expect(messages.some((m) => m.method === "notifications/progress")).toBe(true);
    expect(messages.some((m) => m.method === "notifications/message")).toBe(false);
    expect(messages.at(-1)!.result.content[0].text).toBe("Liftoff!");
  });

  it("2026-07-28: logs below the requested level are not sent (info logs with logLevel warning)", async () => {
    const messages = await readSse(
      await modernPost("tools/call", countdown, { meta: { progressToken: "p-3", [META.logLevel]: "warning" } }),
    );
    expect(messages.some((m) => m.method === "notifications/message")).toBe(false);
    expect(messages.some((m) => m.method === "notifications/progress")).toBe(true);
  });

  it("2026-07-28: logs at or above the requested level are sent (info logs with logLevel debug)", async () => {
    const messages = await readSse(await modernPost("tools/call", countdown, { meta: { [META.logLevel]: "debug" } }));
    expect(messages.filter((m) => m.method === "notifications/message")).toHaveLength(2);
    expect(messages.some((m) => m.method === "notifications/progress")).toBe(false);
  });

  it("2026-07-28: with a logLevel above every log the tool writes, the answer stays plain JSON", async () => {
    const res = await modernPost("tools/call", countdown, { meta: { [META.logLevel]: "error" } });
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = (await res.json()) as any;
    expect(body.result.content[0].text).toBe("Liftoff!");
  });

  it("2026-07-28: a client closing the SSE stream early does not break later requests", async () => {
    const res = await modernPost("tools/call", { name: "countdown", arguments: { from: 10 } }, { meta: { progressToken: "p-4" } });
    const reader = new SseReader(res);
    const first = await reader.next(2000);
    expect(first?.method).toBe("notifications/progress");
    await reader.cancel();
    const after = await modernResult("tools/list");
    expect(after.tools.length).toBe(8);
  });
});
