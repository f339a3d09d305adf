/**
 * Results that fit the host (docs/results.md) through /mcp: a tool result over the app's budget is
 * answered with the part that fits, cut at a line and marked, and a resource_link to the whole, which
 * resources/read serves to the same principal only (an anonymous caller's: to whoever holds the link),
 * until it expires; on both revisions, for structured results and for a task's result. The
 * result-budget fixture app (test/engine/app/results-app.ts) with its own session and task classes.
 */
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { checkApp } from "../../../src/engine/mcp/check-app";
import { AuthFailure, createMcpWorker, defineApp, defineTool, resultBudget, type TokenVerifier } from "../../../src/mcp";
import resultsApp, { RESULTS_MAX_CHARS, lines, resultsTools } from "../app/results-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { untilTask } from "../helpers/tasks";

const TOKEN_PREFIX = "results-";
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith(TOKEN_PREFIX)) throw new AuthFailure("invalid_token", "unknown");
  return { id: token.slice(TOKEN_PREFIX.length), scopes: [] };
};
const bound = env as unknown as Record<string, DurableObjectNamespace>;
const resultsEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_RESULTS, MCP_TASK: bound.MCP_TASK_RESULTS } as never;
const worker = createMcpWorker(resultsApp, { verifyToken });
const anonymousWorker = createMcpWorker(resultsApp);
/** The same tools kept one second, for the expiry. */
const briefWorker = createMcpWorker(
  defineApp({
    info: { name: "results-brief", version: "1.0.0" },
    results: resultBudget({ maxChars: RESULTS_MAX_CHARS, keepSeconds: 1 }),
    tools: resultsTools,
  }),
  { verifyToken },
);

const fresh = (name: string) => `${name}-${crypto.randomUUID()}`;
type Worker = ReturnType<typeof createMcpWorker>;

async function post(principal: string | undefined, body: object, headers: Record<string, string>, w: Worker): Promise<Response> {
  const ctx = createExecutionContext();
  const auth: Record<string, string> = principal ? { Authorization: `Bearer ${TOKEN_PREFIX}${principal}` } : {};
  const res = await w.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers: { ...headers, ...auth }, body: JSON.stringify(body) }),
    resultsEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const TASKS = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };

/** One 2026-07-28 request as `principal` (undefined: anonymous, to the Worker without authorization). */
async function modern(principal: string | undefined, method: string, params: Record<string, unknown>, w?: Worker): Promise<RpcMessage> {
  const { message, headers } = buildModernRequest(method, params, TASKS);
  const res = await post(principal, message, headers, w ?? (principal ? worker : anonymousWorker));
  expect(res.status).toBe(200);
  return (await res.json()) as RpcMessage;
}

type Block = { type: string; text?: string; uri?: string; mimeType?: string };
const contentOf = (msg: RpcMessage) => (msg.result?.content ?? []) as Block[];
const linkOf = (content: Block[]) => content.find((c) => c.type === "resource_link")?.uri;
/** Every character the result's content carries. */
const charsOf = (content: Block[]) => content.reduce((n, c) => n + (c.text?.length ?? 0), 0);

/** The part that fits, the note and the link, as a cut result must be. */
function expectCut(msg: RpcMessage, whole: string, budget = RESULTS_MAX_CHARS, boundary = "\n"): string {
  const content = contentOf(msg);
  expect(msg.result?.isError, JSON.stringify(msg)).not.toBe(true);
  expect(charsOf(content)).toBeLessThanOrEqual(budget);
  const part = content[0]!.text!;
  // Cut at a boundary: a prefix of the whole that ends where one of its lines (or words) ends.
  expect(whole.startsWith(part)).toBe(true);
  expect(part.endsWith(boundary)).toBe(true);
  expect(part.length).toBeGreaterThan(budget / 2);
  const uri = linkOf(content)!;
  expect(uri).toMatch(/^mcp-result:\/\/[A-Za-z0-9_-]{22}$/);
  expect(content.some((c) => c.text?.includes("Result cut") && c.text.includes(uri))).toBe(true);
  return uri;
}

/** The whole result read back from a link, as a CallToolResult. */
async function readWhole(read: (uri: string) => Promise<RpcMessage>, uri: string): Promise<Record<string, any>> {
  const msg = await read(uri);
  expect(msg.error, JSON.stringify(msg)).toBeUndefined();
  const [contents] = msg.result!.contents as { uri: string; mimeType: string; text: string }[];
  expect(contents!.uri).toBe(uri);
  expect(contents!.mimeType).toBe("application/json");
  return JSON.parse(contents!.text);
}
const modernRead = (principal: string | undefined, w?: Worker) => (uri: string) => modern(principal, "resources/read", { uri }, w);

/** A 2025-11-25 session of `principal`. */
async function legacySession(principal: string) {
  const headersOf = (sessionId?: string): Record<string, string> => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const init = await post(
    principal,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    headersOf(),
    worker,
  );
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  expect(sessionId).toBeTruthy();
  await post(principal, { jsonrpc: "2.0", method: "notifications/initialized" }, headersOf(sessionId), worker);
  let id = 0;
  return async (method: string, params: Record<string, unknown>) => {
    const res = await post(principal, { jsonrpc: "2.0", id: ++id, method, params }, headersOf(sessionId), worker);
    expect(res.status).toBe(200);
    return (await res.json()) as RpcMessage;
  };
}

describe("results that fit the host: cut, linked, kept for the same caller", () => {
  it("2026-07-28: a text result over the budget is cut at a line, marked, and linked to the whole", async () => {
    const alice = fresh("alice");
    const whole = lines(500);
    const uri = expectCut(await modern(alice, "tools/call", { name: "long_text", arguments: { lines: 500 } }), whole);
    const kept = await readWhole(modernRead(alice), uri);
    expect(kept.content).toEqual([{ type: "text", text: whole }]);
  });

  it("a result within the budget goes whole, with no link", async () => {
    const msg = await modern(fresh("alice"), "tools/call", { name: "long_text", arguments: { lines: 50 } });
    expect(contentOf(msg)).toEqual([{ type: "text", text: lines(50) }]);
  });

  it("only the same principal reads the whole: another one, and an anonymous caller, get not found", async () => {
    const alice = fresh("alice");
    const uri = expectCut(await modern(alice, "tools/call", { name: "long_text", arguments: { lines: 300 } }), lines(300));
    for (const msg of [await modernRead(fresh("mallory"))(uri), await modernRead(undefined)(uri)]) {
      expect(msg.result).toBeUndefined();
      expect(msg.error?.code).toBe(-32602);
      expect(msg.error?.message).toContain("Resource not found");
    }
    // A made-up link finds nothing either.
    expect((await modernRead(alice)("mcp-result://AAAAAAAAAAAAAAAAAAAAAA")).error?.code).toBe(-32602);
    expect((await readWhole(modernRead(alice), uri)).content[0].text).toBe(lines(300));
  });

  it("an anonymous caller's result is read by the link alone", async () => {
    const uri = expectCut(await modern(undefined, "tools/call", { name: "long_text", arguments: { lines: 300 } }), lines(300));
    expect((await readWhole(modernRead(undefined), uri)).content[0].text).toBe(lines(300));
  });

  it("structured content over the budget is linked the same way, not sent cut", async () => {
    const alice = fresh("alice");
    const rows = lines(400).split("\n").filter(Boolean);
    const msg = await modern(alice, "tools/call", { name: "long_structured", arguments: { lines: 400 } });
    expect(msg.result?.structuredContent).toBeUndefined();
    // Its text, the JSON on one line, is cut after a word.
    const uri = expectCut(msg, JSON.stringify({ rows }), RESULTS_MAX_CHARS, " ");
    expect((await readWhole(modernRead(alice), uri)).structuredContent).toEqual({ rows });
  });

  it("a tool's own budget replaces the app's", async () => {
    const alice = fresh("alice");
    // 6,000 characters: over the app's 2,000, within the tool's 10,000.
    expect(contentOf(await modern(alice, "tools/call", { name: "roomy", arguments: { lines: 300 } }))).toEqual([
      { type: "text", text: lines(300) },
    ]);
    expectCut(await modern(alice, "tools/call", { name: "roomy", arguments: { lines: 800 } }), lines(800), 10_000);
  });

  it("a kept result expires: not found after its time, and its object empties at the alarm", async () => {
    const alice = fresh("alice");
    const uri = expectCut(await modern(alice, "tools/call", { name: "long_text", arguments: { lines: 200 } }, briefWorker), lines(200));
    expect((await readWhole(modernRead(alice, briefWorker), uri)).content[0].text).toBe(lines(200));
    // Two seconds on, by the clock the Worker and the object read (both run in this isolate): past the
    // one second it is kept, without waiting for it. The alarm runs now (it may have run by itself).
    const realNow = Date.now.bind(Date);
    const later = vi.spyOn(Date, "now").mockImplementation(() => realNow() + 2000);
    const stub = bound.MCP_TASK_RESULTS!.get(bound.MCP_TASK_RESULTS!.idFromName(`result:${uri.slice("mcp-result://".length)}`));
    try {
      expect((await modernRead(alice, briefWorker)(uri)).error?.message).toContain("Resource not found");
      await runDurableObjectAlarm(stub);
    } finally {
      later.mockRestore();
    }
    const tables = await runInDurableObject(stub, (_o, state: DurableObjectState) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("2025-11-25: a session's result is cut and linked, and the session reads the whole", async () => {
    const alice = fresh("alice");
    const rpc = await legacySession(alice);
    const uri = expectCut(await rpc("tools/call", { name: "long_text", arguments: { lines: 400 } }), lines(400));
    expect((await readWhole((u) => rpc("resources/read", { uri: u }), uri)).content[0].text).toBe(lines(400));
    // Another principal's session gets nothing (2025-11-25's code for a resource not found).
    const other = await legacySession(fresh("mallory"));
    expect((await other("resources/read", { uri })).error?.code).toBe(-32002);
  });

  it("a task's result is cut and linked like a call's", async () => {
    const alice = fresh("alice");
    const created = (await modern(alice, "tools/call", { name: "long_task", arguments: { lines: 600 } })).result!;
    expect(created.resultType, JSON.stringify(created)).toBe("task");
    const task = await untilTask(async () => (await modern(alice, "tasks/get", { taskId: created.taskId })).result!);
    expect(task.status, JSON.stringify(task)).toBe("completed");
    const uri = expectCut({ jsonrpc: "2.0", result: task.result } as RpcMessage, lines(600));
    expect((await readWhole(modernRead(alice), uri)).content[0].text).toBe(lines(600));
    expect((await modernRead(fresh("mallory"))(uri)).error?.code).toBe(-32602);
  });
});

describe("the app check: tools whose results cannot fit their budget", () => {
  const info = { name: "budget-check", version: "1.0.0" };
  /** A tool whose declared output holds a note of at least 3,000 characters. */
  const report = (maxResultChars?: number | false) =>
    defineTool({
      name: "report",
      maxResultChars,
      output: v.object({ note: v.pipe(v.string(), v.minLength(3_000)) }),
      handler: () => ({ note: "x".repeat(3_000) }),
    });

  it("names a tool whose declared output is over its budget, the app's or its own", () => {
    expect(checkApp(defineApp({ info, results: resultBudget({ maxChars: 2_000 }), tools: [report()] }))).toEqual([
      expect.stringMatching(/^Tool "report": its declared output takes at least 30\d\d characters as JSON, over its result budget of 2000/),
    ]);
    expect(checkApp(defineApp({ info, results: resultBudget(), tools: [report(1_000)] }))).toEqual([
      expect.stringContaining("over its result budget of 1000"),
    ]);
    expect(checkApp(defineApp({ info, results: resultBudget({ maxChars: 2_000 }), tools: [report(5_000)] }))).toEqual([]);
    expect(checkApp(defineApp({ info, results: resultBudget({ maxChars: 2_000 }), tools: [report(false)] }))).toEqual([]);
  });

  it("refuses a budget that is no positive whole number, and a tool's budget without resultBudget()", () => {
    expect(checkApp(defineApp({ info, results: resultBudget(), tools: [report(-1)] }))).toEqual([
      expect.stringContaining("maxResultChars is a positive whole number"),
    ]);
    expect(checkApp(defineApp({ info, tools: [report(5_000)] }))).toEqual([
      expect.stringContaining("maxResultChars needs defineApp({ results: resultBudget() })"),
    ]);
    expect(() => resultBudget({ maxChars: 0 })).toThrow(/positive whole numbers/);
  });
});
