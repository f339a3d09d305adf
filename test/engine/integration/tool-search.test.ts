/**
 * `toolSearch()` through /mcp, on both revisions (docs/tools-at-scale.md), with the fixture app
 * test/engine/app/surface-app.ts: tools/list lists `search_tools` and `call_tool` only; a search
 * finds tools by what they do, never one the caller may not call; `call_tool` answers what a direct
 * `tools/call` answers; and every inner call is an operation: the middleware sees the inner tool's
 * name (and asks to confirm a destructive one), its scopes are the outer request's 403 step-up, its
 * rate limit counts, its questions go through the outer call, and it has its own log line.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthFailure, createMcpWorker, defineApp, defineTool, toolSearch, type TokenVerifier } from "../../../src/mcp";
import { checkApp } from "../../../src/engine/mcp/check-app";
import surfaceApp, { seenByMiddleware, surfaceLimiter } from "../app/surface-app";
import { buildModernRequest, responseIn, type RpcMessage } from "../helpers/mcp";
import { cancelAllReaders, sse } from "../helpers/legacy";

/** `s-<principal>`: `s-writer` holds notes:write, `s-root` admin and dice:roll too, the others nothing. */
const SCOPES: Record<string, string[]> = { writer: ["notes:write"], root: ["admin", "notes:write", "dice:roll"] };
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith("s-")) throw new AuthFailure("invalid_token", "unknown");
  const id = token.slice(2);
  return { id, scopes: SCOPES[id] ?? [] };
};
const worker = createMcpWorker(surfaceApp, { verifyToken });
const bound = env as unknown as Record<string, DurableObjectNamespace>;
const surfaceEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_SURFACE, SURFACE_LIMIT: surfaceLimiter } as never;
const ELICIT = { elicitation: { form: {} } };
const WRITER = "s-writer";

let lines: string[];
beforeEach(() => {
  lines = [];
  seenByMiddleware.length = 0;
  for (const level of ["log", "warn"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cancelAllReaders();
});

/** Not waiting on the execution context when a stream must stay open (a 2025 call waiting for an answer). */
async function post(token: string, body: object, headers: Record<string, string>, wait = true): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...headers, Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const res = await worker.fetch(request, surfaceEnv, ctx);
  if (wait) await waitOnExecutionContext(ctx);
  return res;
}

type Rpc = (method: string, params: Record<string, unknown>) => Promise<{ status: number; body: RpcMessage; res: Response }>;

const modern =
  (token: string): Rpc =>
  async (method, params) => {
    const { message, headers } = buildModernRequest(method, params, { capabilities: ELICIT });
    const res = await post(token, message, headers);
    return { status: res.status, body: responseIn(res, await res.text()), res };
  };

const legacyHeaders = (sessionId?: string): Record<string, string> => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
});

async function openLegacy(token: string): Promise<{ sessionId: string; rpc: Rpc }> {
  const init = await post(
    token,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: ELICIT, clientInfo: { name: "t", version: "1" } },
    },
    legacyHeaders(),
  );
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  expect(sessionId).toBeTruthy();
  await post(token, { jsonrpc: "2.0", method: "notifications/initialized" }, legacyHeaders(sessionId));
  let id = 0;
  const rpc: Rpc = async (method, params) => {
    const res = await post(token, { jsonrpc: "2.0", id: ++id, method, params }, legacyHeaders(sessionId));
    return { status: res.status, body: responseIn(res, await res.text()), res };
  };
  return { sessionId, rpc };
}

const legacy = async (token: string) => (await openLegacy(token)).rpc;

const REVISIONS: [string, (token: string) => Promise<Rpc> | Rpc][] = [
  ["2026-07-28", modern],
  ["2025-11-25", legacy],
];

const names = (result: Record<string, unknown> | undefined) => (result!.tools as { name: string }[]).map((t) => t.name);
const found = async (rpc: Rpc, query: string) => {
  const { body } = await rpc("tools/call", { name: "search_tools", arguments: { query } });
  const tools = (body.result!.structuredContent as { tools: { name: string }[] }).tools;
  return tools.map((t) => t.name);
};

describe.each(REVISIONS)("%s: toolSearch", (_revision, open) => {
  it("tools/list lists search_tools and call_tool in place of the app's tools", async () => {
    const rpc = await open(WRITER);
    const { body } = await rpc("tools/list", {});
    expect(names(body.result)).toEqual(["search_tools", "call_tool"]);
    const search = (body.result!.tools as Record<string, any>[])[0]!;
    expect(search.inputSchema.properties.query.type).toBe("string");
  });

  it("search_tools finds tools by what they do, with what a model needs to call them", async () => {
    const rpc = await open(WRITER);
    const { body } = await rpc("tools/call", { name: "search_tools", arguments: { query: "remove a note", limit: 2 } });
    const tools = (body.result!.structuredContent as { tools: Record<string, any>[] }).tools;
    expect(tools[0]).toMatchObject({ name: "notes_delete", title: "Delete a note", description: "Delete a note for good." });
    expect(tools[0]!.inputSchema.required).toEqual(["title"]);
    expect(tools.length).toBeLessThanOrEqual(2);
    // The text block carries the same, for a client that reads no structured content.
    expect(JSON.parse((body.result!.content as { text: string }[])[0]!.text)).toEqual(body.result!.structuredContent);
  });

  it("search_tools never shows a tool the caller may not call (its scopes), nor the surface's own", async () => {
    const reader = await open("s-reader");
    expect(await found(reader, "delete note")).not.toContain("notes_delete");
    expect(await found(reader, "audit log")).not.toContain("audit_log");
    expect(await found(reader, "search tools call tool")).not.toContain("search_tools");
    const admin = await open("s-root");
    expect((await found(admin, "audit log"))[0]).toBe("audit_log");
  });

  it("searches and calls a mounted server's tools, filtered by their scopes too", async () => {
    const root = await open("s-root");
    expect(await found(root, "roll dice")).toContain("ex_roll_dice");
    expect(await found(await open("s-reader"), "roll dice")).not.toContain("ex_roll_dice");
    const args = { value: 100, from: "celsius" };
    const direct = await root("tools/call", { name: "ex_convert_temperature", arguments: args });
    const inner = await root("tools/call", { name: "call_tool", arguments: { name: "ex_convert_temperature", arguments: args } });
    expect(inner.body.result!.structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
    expect(inner.body.result).toEqual(direct.body.result);
  });

  it("call_tool answers exactly what a direct tools/call answers, results and tool errors alike", async () => {
    const rpc = await open(WRITER);
    for (const args of [{ title: "welcome" }, { title: "missing" }, { title: 42 }]) {
      const direct = await rpc("tools/call", { name: "notes_read", arguments: args });
      const inner = await rpc("tools/call", { name: "call_tool", arguments: { name: "notes_read", arguments: args } });
      expect(inner.body.result).toEqual(direct.body.result);
    }
    const listed = await rpc("tools/call", { name: "call_tool", arguments: { name: "notes_list" } });
    expect(listed.body.result!.structuredContent).toEqual({ titles: ["welcome"] });
  });

  it("call_tool of a name no tool has is a tool error pointing to search_tools; the surface's own are not callable through it", async () => {
    const rpc = await open(WRITER);
    for (const name of ["no_such_tool", "call_tool", "search_tools"]) {
      const { status, body } = await rpc("tools/call", { name: "call_tool", arguments: { name } });
      expect(status).toBe(200);
      expect(body.result!.isError).toBe(true);
      expect((body.result!.content as { text: string }[])[0]!.text).toMatch(/search_tools finds the tools/);
    }
  });

  it("the app's tools stay callable directly, though not listed", async () => {
    const rpc = await open(WRITER);
    const { body } = await rpc("tools/call", { name: "notes_list", arguments: {} });
    expect(body.result!.structuredContent).toEqual({ titles: ["welcome"] });
  });

  it("an inner call the caller lacks the scopes for is the outer request's 403 step-up challenge", async () => {
    const rpc = await open("s-reader");
    const { status, body, res } = await rpc("tools/call", {
      name: "call_tool",
      arguments: { name: "notes_delete", arguments: { title: "x" } },
    });
    expect(status).toBe(403);
    expect(body.error?.code).toBe(-32003);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/insufficient_scope/);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/notes:write/);
  });

  it("the middleware sees the inner tool's name after the outer call's", async () => {
    const rpc = await open(WRITER);
    await rpc("tools/call", { name: "call_tool", arguments: { name: "notes_read", arguments: { title: "welcome" } } });
    expect(seenByMiddleware).toEqual(["call_tool", "notes_read"]);
  });

  it("the inner tool's per-tool rate limit counts its calls through call_tool", async () => {
    const rpc = await open(`s-limited-${_revision.replaceAll("-", "")}`);
    const call = () => rpc("tools/call", { name: "call_tool", arguments: { name: "echo_limited", arguments: { word: "hi" } } });
    expect((await call()).body.result).toMatchObject({ content: [{ type: "text", text: "hi" }] });
    const second = (await call()).body.result!;
    expect(second.isError).toBe(true);
    expect((second.content as { text: string }[])[0]!.text).toMatch(/Rate limit reached for the tool echo_limited/);
  });

  it("the inner call has its own log line, beside the outer call's", async () => {
    const rpc = await open(WRITER);
    await rpc("tools/call", { name: "call_tool", arguments: { name: "notes_read", arguments: { title: "welcome" } } });
    const requests = lines.flatMap((l) => {
      try {
        const j = JSON.parse(l) as Record<string, unknown>;
        return j.mcp === "request" && j.method === "tools/call" ? [j.name] : [];
      } catch {
        return [];
      }
    });
    expect(requests).toEqual(["notes_read", "call_tool"]);
  });
});

describe("2026-07-28: an inner call's questions go through the outer call", () => {
  const callTool = (rpc: Rpc, name: string, extra: Record<string, unknown> = {}) =>
    rpc("tools/call", { name: "call_tool", arguments: { name, arguments: { title: "welcome" } }, ...extra });

  it("the middleware asks to confirm a destructive inner call; declined, the tool does not run; accepted, it does", async () => {
    const rpc = modern(WRITER);
    const first = (await callTool(rpc, "notes_delete")).body.result as Record<string, any>;
    expect(first.resultType).toBe("input_required");
    const [key] = Object.keys(first.inputRequests);
    expect(key).toBe("notes_delete#0/sure");
    expect(first.inputRequests[key!].params.message).toBe("Really run notes_delete?");
    const declined = await callTool(rpc, "notes_delete", {
      requestState: first.requestState,
      inputResponses: { [key!]: { action: "decline" } },
    });
    expect(declined.body.result).toMatchObject({ content: [{ type: "text", text: "notes_delete was not confirmed" }], isError: true });
    const accepted = await callTool(rpc, "notes_delete", {
      requestState: first.requestState,
      inputResponses: { [key!]: { action: "accept", content: { yes: true } } },
    });
    expect(accepted.body.result).toMatchObject({ content: [{ type: "text", text: "Deleted welcome" }] });
    expect(accepted.body.result!.isError).toBeUndefined();
  });

  it("a tool that asks the user asks through call_tool, and completes on the retry", async () => {
    const rpc = modern(WRITER);
    const first = (await callTool(rpc, "notes_rename")).body.result as Record<string, any>;
    expect(Object.keys(first.inputRequests)).toEqual(["notes_rename#0/name"]);
    const done = await callTool(rpc, "notes_rename", {
      requestState: first.requestState,
      inputResponses: { "notes_rename#0/name": { action: "accept", content: { title: "hello" } } },
    });
    expect(done.body.result).toMatchObject({ content: [{ type: "text", text: "Renamed welcome to hello" }] });
  });
});

describe("2025-11-25: an inner call's questions go through the outer call", () => {
  it("a tool that asks the user asks on the call_tool stream, and the answer completes it", async () => {
    const { sessionId } = await openLegacy(WRITER);
    const call = { name: "call_tool", arguments: { name: "notes_rename", arguments: { title: "welcome" } } };
    const reader = sse(
      await post(WRITER, { jsonrpc: "2.0", id: "outer", method: "tools/call", params: call }, legacyHeaders(sessionId), false),
    );
    await reader.next(); // the priming event
    const ask = (await reader.nextMessage())!.message!;
    expect(ask).toMatchObject({ method: "elicitation/create", params: { message: "New title for welcome?" } });
    const answer = { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { title: "hello" } } };
    expect((await post(WRITER, answer, legacyHeaders(sessionId), false)).status).toBe(202);
    const final = (await reader.rest(5000)).find((e) => e.message && "result" in e.message)!.message!;
    expect(final).toMatchObject({ id: "outer", result: { content: [{ type: "text", text: "Renamed welcome to hello" }] } });
  });
});

describe("the app check knows the surface", () => {
  const info = { name: "t", version: "1" };
  it("names a tool of the app that takes a surface tool's name", () => {
    const app = defineApp({ info, tools: [defineTool({ name: "search_tools", handler: () => "x" })], surface: toolSearch() });
    expect(checkApp(app as never)).toEqual([expect.stringMatching(/"search_tools".*toolSearch/)]);
  });
  it("names options that do not fit", () => {
    const app = defineApp({ info, tools: [], surface: toolSearch({ limit: 0, maxLimit: 500 }) });
    const problems = checkApp(app as never);
    expect(problems).toEqual([expect.stringMatching(/toolSearch: limit/), expect.stringMatching(/toolSearch: maxLimit/)]);
  });
  it("names a surface that is not one", () => {
    const app = defineApp({ info, tools: [], surface: {} as never });
    expect(checkApp(app as never)).toEqual([expect.stringMatching(/surface: .*toolSearch\(\)/)]);
  });
});
