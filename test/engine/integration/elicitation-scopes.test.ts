/**
 * In a 2025-11-25 session, the answer to a tool's question runs the tool again under the token that
 * answered: that token is checked against the tool's scopes like the call's was, so a token narrowed
 * mid-call cannot finish it (2026-07-28 retries and task answers are checked the same way). The scoped
 * engine app's greet needs `greet:ask` and asks the user's name (test/engine/app/scoped-engine-app.ts).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import scopedApp from "../app/scoped-engine-app";
import { cancelAllReaders, sse, type EventReader } from "../helpers/legacy";

afterEach(cancelAllReaders);

const TOKENS: Record<string, string[]> = { full: ["greet:ask"], narrowed: [] };
const verifyToken: TokenVerifier = async (token) => {
  if (!Object.hasOwn(TOKENS, token)) throw new AuthFailure("invalid_token", "unknown");
  return { id: "same-user", scopes: TOKENS[token]! };
};
const worker = createMcpWorker(scopedApp, { verifyToken });
const scopedEnv = { ...env, MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };

async function post(token: string, body: object, sessionId?: string): Promise<Response> {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  };
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) }),
    scopedEnv as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** Opens a session that can elicit, starts greet with the full token and reads up to its question. */
async function askedGreet(): Promise<{ sessionId: string; reader: EventReader; askId: string | number }> {
  const init = await post("full", {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "1" } },
  });
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  const res = await post(
    "full",
    { jsonrpc: "2.0", id: "greet-1", method: "tools/call", params: { name: "greet", arguments: {} } },
    sessionId,
  );
  const reader = sse(res);
  await reader.next(); // the priming event
  const ask = await reader.nextMessage();
  expect(ask?.message?.method).toBe("elicitation/create");
  return { sessionId, reader, askId: ask!.message!.id! };
}

/** The call's final response on its stream. */
async function finalOn(reader: EventReader) {
  const rest = await reader.rest(5000);
  return rest.find((e) => e.message && ("result" in e.message || "error" in e.message))?.message;
}

describe("2025-11-25: an answer to a tool's question is checked against the tool's scopes", () => {
  it("answered by a token narrowed since the call, the tool does not finish: the call ends with the insufficient-scope error", async () => {
    const { sessionId, reader, askId } = await askedGreet();
    const ack = await post(
      "narrowed",
      { jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Mallory" } } },
      sessionId,
    );
    expect(ack.status).toBe(202);
    const final = await finalOn(reader);
    expect(final).toMatchObject({ id: "greet-1", error: { code: -32003, data: { scopes: ["greet:ask"] } } });
    expect(JSON.stringify(final)).not.toContain("Mallory");
  });

  it("answered by a token that still holds them, the tool finishes", async () => {
    const { sessionId, reader, askId } = await askedGreet();
    expect(
      (await post("full", { jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Ada" } } }, sessionId)).status,
    ).toBe(202);
    expect(await finalOn(reader)).toMatchObject({ id: "greet-1", result: { content: [{ type: "text", text: "Hello, Ada!" }] } });
  });
});
