/**
 * The client checks a tool's structuredContent against the outputSchema the
 * tool listed: against the engine (whose results fit) and a scripted server
 * whose tools answer what the test says.
 */
import { describe, expect, it } from "vitest";
import { McpClient, McpClientError } from "../../../src/engine/client";
import { MCP_URL, engineFetch, scripted } from "../helpers/client";

const MODERN = "2026-07-28";

/** Each tool: its outputSchema and the structuredContent it answers with (undefined: none). */
function serverOf(tools: Record<string, { schema: unknown; out: unknown; isError?: boolean }>) {
  return scripted((m) => {
    if (m.method === "server/discover")
      return { resultType: "complete", supportedVersions: [MODERN], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public" };
    if (m.method === "tools/list") {
      return {
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "public",
        tools: Object.entries(tools).map(([name, t]) => ({ name, inputSchema: { type: "object" }, outputSchema: t.schema })),
      };
    }
    const t = tools[m.params?.name as string]!;
    return {
      resultType: "complete",
      content: [],
      ...(t.out !== undefined ? { structuredContent: t.out } : {}),
      ...(t.isError ? { isError: true } : {}),
    };
  });
}

const point = {
  type: "object",
  properties: { x: { type: "number" }, y: { type: "number" } },
  required: ["x", "y"],
  additionalProperties: false,
};

describe("client: structuredContent against outputSchema", () => {
  it("the engine's structured results pass, on both revisions", async () => {
    for (const protocol of [MODERN, "2025-11-25"] as const) {
      const client = await McpClient.connect(MCP_URL, { protocol, fetch: engineFetch, sessionStream: false });
      await client.listTools();
      const r = await client.callTool("convert_temperature", { value: 0, from: "celsius" });
      expect(r.structuredContent).toEqual({ celsius: 0, fahrenheit: 32, kelvin: 273.15 });
      await client.close();
    }
  });

  const cases: [string, unknown, unknown, boolean][] = [
    ["a fitting object", point, { x: 1, y: 2.5 }, true],
    ["a missing required key", point, { x: 1 }, false],
    ["a wrong type", point, { x: 1, y: "2" }, false],
    ["an extra key where additionalProperties is false", point, { x: 1, y: 2, z: 3 }, false],
    ["a local $ref", { $defs: { p: point }, type: "object", properties: { at: { $ref: "#/$defs/p" } } }, { at: { x: "no", y: 1 } }, false],
    ["an enum value", { type: "object", properties: { c: { enum: ["red", "green"] } } }, { c: "blue" }, false],
    ["an integer where one is asked", { type: "object", properties: { n: { type: "integer" } } }, { n: 1.5 }, false],
    ["anyOf with one match", { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } }, { v: 3 }, true],
    [
      "array items and bounds",
      { type: "object", properties: { l: { type: "array", items: { type: "string", pattern: "^a" }, maxItems: 2 } } },
      { l: ["ab", "b"] },
      false,
    ],
    [
      "a keyword the checker does not know",
      { type: "object", properties: { s: { type: "string", format: "email", contentMediaType: "text/x" } } },
      { s: "not an email" },
      true,
    ],
    ["a 2026-07-28 schema whose root is not an object", { type: "array", items: { type: "number" } }, [1, 2, 3], true],
  ];
  for (const [label, schema, out, ok] of cases) {
    it(`${ok ? "accepts" : "rejects"} ${label}`, async () => {
      const client = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch: serverOf({ t: { schema, out } }) });
      const call = client.callTool("t", {});
      if (ok) expect((await call).structuredContent).toEqual(out);
      else await expect(call).rejects.toThrow(/does not fit its outputSchema \(structuredContent/);
    });
  }

  it("a result without structuredContent fails; an error result and validateOutput: false are not checked", async () => {
    const fetch = serverOf({ none: { schema: point, out: undefined }, failed: { schema: point, out: undefined, isError: true } });
    const client = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch });
    await expect(client.callTool("none", {})).rejects.toBeInstanceOf(McpClientError);
    await expect(client.callTool("none", {})).rejects.toThrow(/no structuredContent/);
    expect((await client.callTool("failed", {})).isError).toBe(true);
    const lenient = await McpClient.connect("http://scripted.test/mcp", { protocol: MODERN, fetch, validateOutput: false });
    expect((await lenient.callTool("none", {})).structuredContent).toBeUndefined();
  });
});
