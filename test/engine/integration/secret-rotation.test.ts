/**
 * MCP_STATE_SECRET rotation and per-purpose keys. Every seal (a 2025 session
 * id, a 2026 requestState) names its secret by a key id; after a rotation the
 * old secret, set as MCP_STATE_SECRET_PREVIOUS, still opens what it sealed, so
 * live sessions and input rounds in flight survive; nothing new is sealed with
 * it; a seal naming any other key is refused. Session ids and request states
 * are signed with keys of their own, so one never opens as the other.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toBase64url } from "../../../src/engine/mcp/base64url";
import { sign, unseal, type SealedState } from "../../../src/engine/http/seal";
import { openSessionId, sealSessionId } from "../../../src/engine/http/session-id";
import worker from "../app/index";
import { MCP_URL, buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { LEGACY_VERSION, initializeHeaders, initializeMessage, legacyHeaders, requestMessage } from "../wire/index.ts";

const OLD = "the-secret-before-rotation";
const NEW = "the-secret-after-rotation";
const ROTATED = { MCP_STATE_SECRET: NEW, MCP_STATE_SECRET_PREVIOUS: OLD };

async function post(settings: Record<string, string>, headers: Record<string, string>, body: object): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(MCP_URL, { method: "POST", headers, body: JSON.stringify(body) }),
    { ...env, ...settings } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

async function initializeWith(settings: Record<string, string>): Promise<string> {
  const res = await post(settings, initializeHeaders(), initializeMessage({}));
  expect(res.status).toBe(200);
  await res.body?.cancel();
  return res.headers.get("Mcp-Session-Id")!;
}

async function pingStatus(settings: Record<string, string>, id: string): Promise<number> {
  const res = await post(settings, legacyHeaders(id), requestMessage("ping", {}, 1));
  await res.body?.cancel();
  return res.status;
}

const keyId = (sealed: string) => sealed.split(".").at(-2);

describe("rotating MCP_STATE_SECRET", () => {
  it("2025-11-25: a session sealed with the old secret goes on after the rotation while the old one is MCP_STATE_SECRET_PREVIOUS; without it, 404", async () => {
    const id = await initializeWith({ MCP_STATE_SECRET: OLD });
    expect(await pingStatus({ MCP_STATE_SECRET: OLD }, id)).toBe(200);
    expect(await pingStatus(ROTATED, id)).toBe(200);
    expect(await pingStatus({ MCP_STATE_SECRET: NEW }, id)).toBe(404);
    // New sessions are sealed with the new secret only: the old one alone does not open them.
    const fresh = await initializeWith(ROTATED);
    expect(keyId(fresh)).not.toBe(keyId(id));
    expect(await pingStatus({ MCP_STATE_SECRET: NEW }, fresh)).toBe(200);
    expect(await pingStatus({ MCP_STATE_SECRET: OLD }, fresh)).toBe(404);
  });

  it("2025-11-25: an id whose key id names no secret of this server is 404", async () => {
    const id = await initializeWith(ROTATED);
    const parts = id.split(".");
    parts[2] = parts[2] === "AAAA" ? "BBBB" : "AAAA";
    expect(await pingStatus(ROTATED, parts.join("."))).toBe(404);
    expect(await pingStatus(ROTATED, await initializeWith({ MCP_STATE_SECRET: "a-third-secret" }))).toBe(404);
  });

  it("2026-07-28: an input round started before the rotation completes after it", async () => {
    const greet = { name: "greet", arguments: {} };
    const ELICIT = { elicitation: {} };
    const round1 = buildModernRequest("tools/call", greet, { capabilities: ELICIT });
    const first = (await (await post({ MCP_STATE_SECRET: OLD }, round1.headers, round1.message)).json()) as RpcMessage;
    expect(first.result.resultType).toBe("input_required");
    const params = {
      ...greet,
      requestState: first.result.requestState,
      inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
    };
    const retry = buildModernRequest("tools/call", params, { capabilities: ELICIT, id: "retry" });
    const done = (await (await post(ROTATED, retry.headers, retry.message)).json()) as RpcMessage;
    expect(done.result?.content?.[0]?.text).toMatch(/Ada/);
    const refused = (await (await post({ MCP_STATE_SECRET: NEW }, retry.headers, retry.message)).json()) as RpcMessage;
    expect(refused.error?.code).toBe(-32602);
  });
});

describe("a key per purpose", () => {
  const secrets = { stateSecret: "one-secret-for-both" };
  const state: SealedState = { m: "tools/call", t: "greet", p: "", d: "digest", e: Math.floor(Date.now() / 1000) + 60, a: {}, k: {} };
  const expectOf = { method: "tools/call", target: "greet", principal: "", digest: "digest" };

  it("a requestState signed with the session-id key is refused; the same bytes with the state key open", async () => {
    const payload = new TextEncoder().encode(JSON.stringify(state));
    const asSession = `${toBase64url(payload)}${await sign(secrets, "session-id", payload)}`;
    await expect(unseal(asSession, expectOf, secrets)).rejects.toMatchObject({ code: -32602 });
    const asState = `${toBase64url(payload)}${await sign(secrets, "request-state", payload)}`;
    expect(await unseal(asState, expectOf, secrets)).toMatchObject({ t: "greet" });
  });

  it("a session id signed with the request-state key does not open; the one sealed for sessions does", async () => {
    const start = { principal: "", protocolVersion: LEGACY_VERSION, clientCapabilities: {}, createdAt: Date.now() };
    const id = (await sealSessionId(start, secrets))!;
    const [name, record] = id.split(".");
    const forged = `${name}.${record}${await sign(secrets, "request-state", new TextEncoder().encode(`${name}.${record}\n`))}`;
    expect(await openSessionId(forged, "", secrets, 86_400_000)).toBeNull();
    expect(await openSessionId(id, "", secrets, 86_400_000)).toMatchObject({ sessionId: id });
  });
});
