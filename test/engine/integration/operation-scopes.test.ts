/**
 * Operations beyond calls and reads need the scopes of what they name (docs/authorization.md):
 * completing a prompt's arguments or a template's variables needs that prompt's or template's scopes,
 * subscribing to a resource needs what reading it needs, and a 2026 listen stream honours only the
 * resource URIs its caller may read. Both revisions, over /mcp.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  AuthFailure,
  createMcpWorker,
  defineApp,
  defineAuthorization,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  text,
  type TokenVerifier,
} from "../../../src/mcp";
import scopedApp from "../app/scoped-engine-app";
import { SseReader, buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const AS = "https://as.example.test";

const app = defineApp({
  info: { name: "operation-scopes", version: "0" },
  resources: [
    defineResource({ uri: "vault://index", name: "vault_index", scopes: ["vault:admin"], read: () => "the keys" }),
    defineResource({ uri: "notes://public", name: "public_notes", scopes: ["notes:read"], read: () => "hello" }),
  ],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: "vault://{key}",
      name: "vault_entry",
      scopes: ["vault:admin"],
      read: ({ key }) => `secret ${key}`,
      complete: { key: (value) => ["launch-codes", "payroll"].filter((k) => k.startsWith(value)) },
    }),
    defineResourceTemplate({
      uriTemplate: "zones://{zone}/{id}",
      name: "zone_note",
      scopes: ({ zone }: { zone?: string }) => {
        if (!zone) throw new Error("no zone");
        return [`notes:${zone}`];
      },
      read: ({ id }) => `note ${id}`,
      complete: { id: (value) => ["1", "2"].filter((k) => k.startsWith(value)) },
    }),
  ],
  prompts: [
    definePrompt({
      name: "audit",
      scopes: ["vault:admin"],
      arguments: [{ name: "key", required: true }],
      get: ({ key = "" }) => [{ role: "user", content: text(`Audit ${key}`) }],
      complete: { key: (value) => ["launch-codes"].filter((k) => k.startsWith(value)) },
    }),
  ],
  authorization: defineAuthorization(),
});

const TOKENS: Record<string, string[]> = { notes: ["notes:read", "notes:eu"], admin: ["vault:admin", "notes:read"] };
const verifyToken: TokenVerifier = async (token) => {
  if (!Object.hasOwn(TOKENS, token)) throw new AuthFailure("invalid_token", "unknown");
  return { id: `user-${token}`, scopes: TOKENS[token]! };
};
const worker = createMcpWorker(app, { verifyToken, authorizationServers: [AS] });

async function send(init: RequestInit, wait = true): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(MCP, init), env as never, ctx);
  if (wait) await waitOnExecutionContext(ctx);
  return res;
}

const modern = (method: string, params: Record<string, unknown>, token: string): RequestInit => {
  const { message, headers } = buildModernRequest(method, params);
  return { method: "POST", headers: { ...headers, Authorization: `Bearer ${token}` }, body: JSON.stringify(message) };
};

const completeTemplate = (uri: string, name: string, context?: Record<string, string>) => ({
  ref: { type: "ref/resource", uri },
  argument: { name, value: "" },
  ...(context ? { context: { arguments: context } } : {}),
});
const completePrompt = { ref: { type: "ref/prompt", name: "audit" }, argument: { name: "key", value: "l" } };

const scopesOf = (res: Response) => /scope="([^"]*)"/.exec(res.headers.get("WWW-Authenticate") ?? "")?.[1];

describe("completion/complete needs the scopes of the prompt or template it completes (2026-07-28)", () => {
  it("a notes:read token cannot enumerate the keys of an admin-only template; an admin token can", async () => {
    const refused = await send(modern("completion/complete", completeTemplate("vault://{key}", "key"), "notes"));
    expect(refused.status).toBe(403);
    expect(scopesOf(refused)).toBe("vault:admin");
    expect(JSON.stringify(await refused.json())).not.toContain("launch-codes");
    const served = await send(modern("completion/complete", completeTemplate("vault://{key}", "key"), "admin"));
    expect(served.status).toBe(200);
    expect(((await served.json()) as RpcMessage).result.completion.values).toEqual(["launch-codes", "payroll"]);
  });

  it("a scoped prompt's arguments are completed only for a caller with its scopes", async () => {
    const refused = await send(modern("completion/complete", completePrompt, "notes"));
    expect(refused.status).toBe(403);
    expect(scopesOf(refused)).toBe("vault:admin");
    const served = await send(modern("completion/complete", completePrompt, "admin"));
    expect(((await served.json()) as RpcMessage).result.completion.values).toEqual(["launch-codes"]);
  });

  it("a template whose scopes are a function is judged on context.arguments, and refused without them", async () => {
    const eu = await send(modern("completion/complete", completeTemplate("zones://{zone}/{id}", "id", { zone: "eu" }), "notes"));
    expect(eu.status).toBe(200);
    expect(((await eu.json()) as RpcMessage).result.completion.values).toEqual(["1", "2"]);
    const us = await send(modern("completion/complete", completeTemplate("zones://{zone}/{id}", "id", { zone: "us" }), "notes"));
    expect(us.status).toBe(403);
    expect(scopesOf(us)).toBe("notes:us");
    const unknown = await send(modern("completion/complete", completeTemplate("zones://{zone}/{id}", "id"), "admin"));
    const body = (await unknown.json()) as RpcMessage;
    expect(body.error).toMatchObject({ code: -32602 });
    expect(body.result).toBeUndefined();
  });
});

describe("subscriptions/listen honours only the resources the caller may read (2026-07-28)", () => {
  const open: SseReader[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.cancel()));
  });

  it("the acknowledgement echoes the readable subset", async () => {
    const res = await send(
      modern(
        "subscriptions/listen",
        { notifications: { resourceSubscriptions: ["vault://index", "notes://public", "vault://payroll"] } },
        "notes",
      ),
      false,
    );
    expect(res.status).toBe(200);
    const reader = new SseReader(res);
    open.push(reader);
    const ack = await reader.next(3000);
    expect(ack?.method).toBe("notifications/subscriptions/acknowledged");
    expect(ack!.params.notifications).toEqual({ resourceSubscriptions: ["notes://public"] });
  });
});

/**
 * 2025-11-25, in the scoped engine app's own sessions (test/engine/app/scoped-engine-app.ts): its units
 * template and explain_unit prompt need `units:read`.
 */
describe("2025-11-25: completion and resources/subscribe are authorized as reads are (in the session's object)", () => {
  const SESSION_TOKENS: Record<string, string[]> = { low: [], units: ["units:read"] };
  const sessionWorker = createMcpWorker(scopedApp, {
    verifyToken: async (token) => {
      if (!Object.hasOwn(SESSION_TOKENS, token)) throw new AuthFailure("invalid_token", "unknown");
      return { id: "session-user", scopes: SESSION_TOKENS[token]! };
    },
    authorizationServers: [AS],
  });
  const scopedEnv = { ...env, MCP_SESSION: (env as unknown as { MCP_SESSION_SCOPED: DurableObjectNamespace }).MCP_SESSION_SCOPED };
  const headers = (token: string, sessionId?: string) => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const post = async (token: string, body: object, sessionId?: string) => {
    const ctx = createExecutionContext();
    const res = await sessionWorker.fetch(
      new Request(MCP, { method: "POST", headers: headers(token, sessionId), body: JSON.stringify(body) }),
      scopedEnv as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  };
  const open = async () => {
    const init = await post("low", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    return init.headers.get("Mcp-Session-Id")!;
  };
  const completions = [
    completeTemplate("units://{unit}", "unit"),
    { ref: { type: "ref/prompt", name: "explain_unit" }, argument: { name: "unit", value: "k" } },
  ];

  it("completing a scoped template's variables or prompt's arguments is the 403 step-up challenge; with the scope, the values", async () => {
    const sessionId = await open();
    for (const params of completions) {
      const refused = await post("low", { jsonrpc: "2.0", id: 2, method: "completion/complete", params }, sessionId);
      expect(refused.status).toBe(403);
      expect(scopesOf(refused)).toBe("units:read");
      expect(((await refused.json()) as RpcMessage).error).toMatchObject({ code: -32003, data: { scopes: ["units:read"] } });
      const served = await post("units", { jsonrpc: "2.0", id: 3, method: "completion/complete", params }, sessionId);
      expect(served.status).toBe(200);
      expect(((await served.json()) as RpcMessage).result.completion.values).toContain("kelvin");
    }
  });

  it("subscribing to a resource needs the scopes reading it needs; the session goes on", async () => {
    const sessionId = await open();
    const subscribe = { jsonrpc: "2.0", id: 4, method: "resources/subscribe", params: { uri: "units://kelvin" } };
    const refused = await post("low", subscribe, sessionId);
    expect(refused.status).toBe(403);
    expect(scopesOf(refused)).toBe("units:read");
    const stepped = await post("units", subscribe, sessionId);
    expect(stepped.status).toBe(200);
    expect(((await stepped.json()) as RpcMessage).result).toEqual({});
  });
});
