/**
 * What an operator looks for is in the request's log line, and what a client made up stays out of it
 * (docs/observability.md): a method a client invented never names a line's method (nor a span or a
 * metrics row), every client string a line carries is bounded, and a 403 scope refusal leaves its
 * line like any other outcome, on both revisions.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import scopedApp from "../app/scoped-engine-app";
import { call, openSession } from "../helpers/legacy";
import { buildModernRequest } from "../helpers/mcp";

let lines: string[];
beforeEach(() => {
  lines = [];
  for (const level of ["log", "warn", "error", "info"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** The engine's request log lines. */
const requests = () =>
  lines.flatMap((l) => {
    try {
      const j = JSON.parse(l) as Record<string, unknown>;
      return j.mcp === "request" ? [{ line: l, record: j }] : [];
    } catch {
      return [];
    }
  });

describe("client-made strings in log lines (2025-11-25)", () => {
  it("a made-up method of 20,000 characters is logged as an unknown method, in a short line", async () => {
    const s = await openSession();
    const answer = await call(s.id, "x".repeat(20_000), {});
    expect(answer.error).toMatchObject({ code: -32601 });
    const logged = requests().filter((r) => r.record.outcome === "error" && r.record.errorCode === -32601);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.record.method).toBe("unknown method");
    expect(logged[0]!.line.length).toBeLessThan(600);
  });

  it("a tool name of 20,000 characters is cut short in its line", async () => {
    const s = await openSession();
    await call(s.id, "tools/call", { name: "t".repeat(20_000), arguments: {} });
    const logged = requests().find((r) => r.record.method === "tools/call");
    expect((logged!.record.name as string).length).toBeLessThanOrEqual(129);
    expect(logged!.line.length).toBeLessThan(600);
  });
});

describe("a 403 scope refusal leaves a log line", () => {
  const verifyToken: TokenVerifier = async (token) => {
    if (token !== "low") throw new AuthFailure("invalid_token", "unknown");
    return { id: "log-user", scopes: [] };
  };
  const worker = createMcpWorker(scopedApp, { verifyToken });
  const scopedEnv = { ...env, MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
  const send = async (init: RequestInit) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://localhost/mcp", init), scopedEnv as never, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  const roll = { name: "roll_dice", arguments: { sides: 6 } };

  it("2026-07-28", async () => {
    const { message, headers } = buildModernRequest("tools/call", roll);
    const res = await send({ method: "POST", headers: { ...headers, Authorization: "Bearer low" }, body: JSON.stringify(message) });
    expect(res.status).toBe(403);
    expect(requests().map((r) => r.record)).toEqual([
      expect.objectContaining({ lane: "modern", method: "tools/call", name: "roll_dice", outcome: "error", errorCode: -32003 }),
    ]);
  });

  it("2025-11-25", async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: "Bearer low" };
    const init = await send({
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    const res = await send({
      method: "POST",
      headers: { ...headers, "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: roll }),
    });
    expect(res.status).toBe(403);
    expect(requests().map((r) => r.record)).toEqual([
      expect.objectContaining({ lane: "legacy", method: "tools/call", name: "roll_dice", outcome: "error", errorCode: -32003 }),
    ]);
  });
});
