/**
 * An app with tools only (test/engine/app/tools-only-app.ts) answers the methods of prompts,
 * resources and completions, whose code comes only with their definitions, exactly as an app
 * without the capability always has: -32601 "Method not found" on both revisions, through /mcp.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import toolsOnlyApp from "../app/tools-only-app";
import { MCP_URL, buildModernRequest } from "../helpers/mcp";
import { legacyHeaders, openLegacySession, requestMessage, type Send } from "../wire/index.ts";

const worker = createMcpWorker(toolsOnlyApp);
const testEnv = env as unknown as Record<string, unknown>;
const toolsOnlyEnv = { ...testEnv, MCP_SESSION: testEnv.MCP_SESSION_TOOLS_ONLY };

const post = (headers: Record<string, string>, body: unknown) =>
  worker.fetch(
    new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(body) }),
    toolsOnlyEnv as never,
    createExecutionContext(),
  );

const send: Send = async ({ method, headers, body }) => {
  const res = await worker.fetch(new Request(MCP_URL, { method, headers, body }), toolsOnlyEnv as never, createExecutionContext());
  return { status: res.status, header: (name) => res.headers.get(name), text: await res.text() };
};

/** Each method an app without prompts, resources or completers lacks, with params a client could send. */
const ABSENT: [string, Record<string, unknown>][] = [
  ["prompts/list", {}],
  ["prompts/get", { name: "x" }],
  ["resources/list", {}],
  ["resources/templates/list", {}],
  ["resources/read", { uri: "a://b" }],
  ["completion/complete", { ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "" } }],
  ["completion/complete", { ref: { type: "ref/resource", uri: "a://b" }, argument: { name: "a", value: "" } }],
  // Names an object's prototype has: the methods the definitions brought are looked up by own name only.
  ["constructor", {}],
  ["__proto__", {}],
  ["toString", {}],
];

const notFound = (id: number, method: string) => ({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });

describe("an app with tools only", () => {
  it("2026-07-28: declares tools and logging only, and answers each absent method with 404 and -32601", async () => {
    const discover = buildModernRequest("server/discover", {}, { id: 1 });
    const caps = ((await (await post(discover.headers, discover.message)).json()) as any).result.capabilities;
    expect(caps).toEqual({ tools: { listChanged: true }, logging: {} });
    for (const [method, params] of ABSENT) {
      const { message, headers } = buildModernRequest(method, params, { id: 1 });
      const res = await post(headers, message);
      expect(res.status, method).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(await res.text(), method).toBe(JSON.stringify(notFound(1, method)));
    }
  });

  it("2025-11-25: answers each absent method, and resources/subscribe, with -32601 in the session", async () => {
    const session = await openLegacySession(send);
    expect(session.init.capabilities).toEqual({ tools: { listChanged: true }, logging: {} });
    for (const [method, params] of [
      ...ABSENT,
      ["resources/subscribe", { uri: "a://b" }] as const,
      ["resources/unsubscribe", { uri: "a://b" }] as const,
    ]) {
      const res = await post(legacyHeaders(session.id), requestMessage(method, params, 2));
      expect(res.status, method).toBe(200);
      expect(await res.text(), method).toBe(JSON.stringify(notFound(2, method)));
    }
    const tools = await post(
      legacyHeaders(session.id),
      requestMessage("tools/call", { name: "roll_dice", arguments: { sides: 2, count: 1 } }, 3),
    );
    expect(((await tools.json()) as any).result.content[0].text).toMatch(/^Rolled 1d2: [12] \(total [12]\)$/);
  });
});
