/**
 * A Worker deployed without MCP_STATE_SECRET: one clear error in its log at its first request, and
 * each 2026-07-28 call whose handler asks for input fails with -32603 naming the secret, logged as
 * the error it is (not as an input round the client never got).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/app";
import { buildModernRequest } from "../helpers/mcp";

let lines: string[];
beforeEach(() => {
  lines = [];
  for (const level of ["log", "warn", "error", "info"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

const records = (kind: string) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((j) => j.mcp === kind);

it("logs one missing_secret error, and an input round fails -32603 and is logged as an error", async () => {
  const worker = createMcpWorker(app);
  const noSecret = { ...env, MCP_STATE_SECRET: undefined };
  const send = async (method: string, params: Record<string, unknown>, id: number) => {
    const { message, headers } = buildModernRequest(method, params, { id, capabilities: { elicitation: { form: {} } } });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      noSecret as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return {
      status: res.status,
      body: (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } },
    };
  };

  const plain = await send("tools/call", { name: "convert_temperature", arguments: { value: 0, from: "celsius" } }, 1);
  expect(plain.body.result?.isError).toBeUndefined();
  const asks = await send("tools/call", { name: "greet", arguments: {} }, 2);
  expect(asks.status).toBe(200); // a request that was processed and failed: the error is in the body
  expect(asks.body.error).toMatchObject({ code: -32603, message: expect.stringContaining("MCP_STATE_SECRET is not set") });

  const said = records("missing_secret");
  expect(said).toHaveLength(1);
  expect(String(said[0]!.message)).toContain("wrangler secret put MCP_STATE_SECRET");
  expect(records("request").map((r) => [r.name, r.outcome, r.errorCode])).toEqual([
    ["convert_temperature", "result", undefined],
    ["greet", "error", -32603],
  ]);
});
