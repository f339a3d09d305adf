/**
 * mountServer through /mcp: the engine test app, mounted over a service binding, served by the mount
 * fixture app (test/engine/app/mount-app.ts) as its own tools on both revisions, whichever revision
 * the upstream speaks; its scopes and policy applied to a mounted tool; an elicitation the upstream
 * asks relayed to this server's client; an upstream error, an unreachable upstream and one that breaks
 * off mid-call answered as errors, never a 5xx.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import mountApp, { changingUpstream, recordedAuthorization } from "../app/mount-app";
import { SseReader, buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { cancelAllReaders, publish, sse } from "../helpers/legacy";

/** `mount-<principal>`: alice holds dice:roll, the others nothing. */
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith("mount-")) throw new AuthFailure("invalid_token", "unknown");
  const id = token.slice("mount-".length);
  return { id, scopes: id === "alice" ? ["dice:roll"] : [] };
};
const worker = createMcpWorker(mountApp, { verifyToken });
const bound = env as unknown as Record<string, DurableObjectNamespace>;
const mountEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_MOUNT } as never;
const TOKEN = "mount-alice";

/** The metrics data points of the requests this file makes (MCP_METRICS). */
const points: { blobs: string[]; indexes: string[] }[] = [];
/** Settings of this server's own for the next requests (MCP_DEV). */
let vars: Record<string, string> = {};
const metrics = { writeDataPoint: (p: (typeof points)[number]) => void points.push(p) };

async function post(token: string, body: object, headers: Record<string, string>): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { ...headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
    { ...(mountEnv as object), ...vars, MCP_METRICS: metrics } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const ELICIT = { capabilities: { elicitation: { form: {} } } };

async function modern(method: string, params: Record<string, unknown>, token = TOKEN): Promise<{ status: number; body: RpcMessage }> {
  const { message, headers } = buildModernRequest(method, params, ELICIT);
  const res = await post(token, message, headers);
  const text = await res.text();
  // A streamed answer: its last `data:` line is the response.
  const json = res.headers.get("Content-Type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .filter((d) => d.includes('"id"'))
        .pop()!
    : text;
  return { status: res.status, body: JSON.parse(json) as RpcMessage };
}

async function legacySession(token = TOKEN) {
  const headersOf = (sessionId?: string): Record<string, string> => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const init = await post(
    token,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    headersOf(),
  );
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  expect(sessionId).toBeTruthy();
  await post(token, { jsonrpc: "2.0", method: "notifications/initialized" }, headersOf(sessionId));
  let id = 0;
  return async (method: string, params: Record<string, unknown>) => {
    const res = await post(token, { jsonrpc: "2.0", id: ++id, method, params }, headersOf(sessionId));
    expect(res.status).toBe(200);
    const text = await res.text();
    const json = res.headers.get("Content-Type")?.includes("text/event-stream")
      ? text
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .filter((d) => d.includes('"id"'))
          .pop()!
      : text;
    return JSON.parse(json) as RpcMessage;
  };
}

afterEach(cancelAllReaders);

const names = (result: Record<string, unknown> | undefined) => (result!.tools as { name: string }[]).map((t) => t.name);
const textOf = (result: Record<string, unknown> | undefined) => (result!.content as { text: string }[])[0]!.text;

describe("mountServer: another server's tools served as this server's own", () => {
  it("2026-07-28 downstream: lists the app's tools, then each mount's under its prefix (both upstream revisions)", async () => {
    const { status, body } = await modern("tools/list", {});
    expect(status).toBe(200);
    const listed = names(body.result);
    expect(listed[0]).toBe("local_echo");
    expect(listed).toEqual(expect.arrayContaining(["ex_roll_dice", "ex_greet", "ex_convert_temperature", "old_roll_dice", "old_greet"]));
    // An unreachable mount leaves its tools out rather than failing the list.
    expect(listed.some((n) => n.startsWith("down_"))).toBe(false);
    const dice = (body.result!.tools as Record<string, unknown>[]).find((t) => t.name === "ex_roll_dice")!;
    expect(dice).toMatchObject({ description: "Rolls dice and reports each roll and the total.", inputSchema: { type: "object" } });
  });

  it("2026-07-28 downstream: calls a mounted tool on a 2026 upstream and on a 2025 session upstream", async () => {
    const dice = await modern("tools/call", { name: "ex_roll_dice", arguments: { sides: 6, count: 2 } });
    expect(textOf(dice.body.result)).toMatch(/^Rolled 2d6: /);
    const converted = await modern("tools/call", { name: "old_convert_temperature", arguments: { value: 100, from: "celsius" } });
    expect(converted.body.result?.structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
  });

  it("2025-11-25 downstream: lists and calls mounted tools in a session", async () => {
    const rpc = await legacySession();
    expect(names((await rpc("tools/list", {})).result)).toEqual(expect.arrayContaining(["local_echo", "ex_roll_dice", "old_greet"]));
    expect(textOf((await rpc("tools/call", { name: "ex_roll_dice", arguments: { count: 1 } })).result)).toMatch(/^Rolled 1d6: /);
    expect(
      (await rpc("tools/call", { name: "old_convert_temperature", arguments: { value: 0, from: "celsius" } })).result?.structuredContent,
    ).toEqual({ celsius: 0, fahrenheit: 32, kelvin: 273.15 });
  });

  it("serves the upstream's prompts under the prefix, listed and got on both revisions", async () => {
    const listed = (await modern("prompts/list", {})).body.result!.prompts as { name: string }[];
    expect(listed.map((p) => p.name)).toEqual(expect.arrayContaining(["ex_explain_unit", "old_explain_unit"]));
    const got = await modern("prompts/get", { name: "ex_explain_unit", arguments: { unit: "kelvin" } });
    expect(JSON.stringify(got.body.result?.messages)).toMatch(/kelvin/i);
    const rpc = await legacySession();
    expect(((await rpc("prompts/list", {})).result!.prompts as { name: string }[]).map((p) => p.name)).toContain("ex_explain_unit");
    expect(
      JSON.stringify((await rpc("prompts/get", { name: "old_explain_unit", arguments: { unit: "celsius" } })).result?.messages),
    ).toMatch(/celsius/i);
    // The upstream's error for a prompt it does not have is this server's.
    expect((await modern("prompts/get", { name: "ex_nope", arguments: {} })).body.error?.code).toBe(-32602);
  });

  it("completes a mounted prompt's arguments and a mounted template's variables upstream, on both revisions", async () => {
    const prompt = await modern("completion/complete", {
      ref: { type: "ref/prompt", name: "ex_explain_unit" },
      argument: { name: "unit", value: "k" },
    });
    expect(prompt.body.result?.completion).toMatchObject({ values: ["kelvin"] });
    const template = await modern("completion/complete", {
      ref: { type: "ref/resource", uri: "ex+units://{unit}" },
      argument: { name: "unit", value: "c" },
    });
    expect(template.body.result?.completion).toMatchObject({ values: ["celsius"] });
    const rpc = await legacySession();
    const legacy = await rpc("completion/complete", {
      ref: { type: "ref/prompt", name: "old_explain_unit" },
      argument: { name: "unit", value: "f" },
    });
    expect(legacy.result?.completion).toMatchObject({ values: ["fahrenheit"] });
  });

  it("serves the upstream's resources and templates with its prefix before their URIs, on both revisions", async () => {
    const resources = (await modern("resources/list", {})).body.result!.resources as { uri: string }[];
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["ex+info://about", "old+info://about"]));
    const templates = (await modern("resources/templates/list", {})).body.result!.resourceTemplates as { uriTemplate: string }[];
    expect(templates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(["ex+units://{unit}"]));
    const about = (await modern("resources/read", { uri: "ex+info://about" })).body.result!.contents as { uri: string; text: string }[];
    expect(about).toEqual([
      expect.objectContaining({ uri: "ex+info://about", mimeType: "text/markdown", text: expect.stringMatching(/^# Engine test app/) }),
    ]);
    const rpc = await legacySession();
    const kelvin = (await rpc("resources/read", { uri: "old+units://kelvin" })).result!.contents as { uri: string; text: string }[];
    expect(kelvin[0]).toMatchObject({ uri: "old+units://kelvin" });
    // Not found upstream is not found here.
    const missing = await modern("resources/read", { uri: "ex+units://nowhere" });
    expect(missing.status).toBeLessThan(500);
    expect(missing.body.error?.code).toBeDefined();
  });

  it("counts a mounted call in the metrics under its name, as a local one; a made-up name under none", async () => {
    await modern("tools/list", {});
    points.length = 0;
    await modern("tools/call", { name: "ex_roll_dice", arguments: {} });
    await modern("tools/call", { name: `ex_made_up_${crypto.randomUUID()}`, arguments: {} });
    expect(points.map((p) => p.indexes[0])).toEqual(["ex_roll_dice", "tools/call"]);
  });

  it("applies this server's scopes to a mounted tool: without dice:roll, 403 with the scope to step up to", async () => {
    const { status, body } = await modern("tools/call", { name: "ex_roll_dice", arguments: {} }, "mount-bob");
    expect(status).toBe(403);
    expect(JSON.stringify(body)).toContain("dice:roll");
  });

  it("applies this server's policy to a mounted tool", async () => {
    const refused = await modern(
      "tools/call",
      { name: "ex_convert_temperature", arguments: { value: 1, from: "celsius" } },
      "mount-refused-carol",
    );
    expect(refused.body.result).toMatchObject({ isError: true, content: [{ type: "text", text: "Conversions are not for you" }] });
  });

  it("relays the upstream's elicitation to this server's client, and its answer back", async () => {
    const first = await modern("tools/call", { name: "ex_greet", arguments: {} });
    expect(first.body.result?.resultType).toBe("input_required");
    const requests = first.body.result!.inputRequests as Record<string, { method: string; params: { message: string } }>;
    expect(Object.keys(requests)).toEqual(["ex:0"]);
    expect(requests["ex:0"]).toMatchObject({ method: "elicitation/create", params: { message: "What is your name?" } });
    const second = await modern("tools/call", {
      name: "ex_greet",
      arguments: {},
      inputResponses: { "ex:0": { action: "accept", content: { name: "Ada" } } },
      requestState: first.body.result!.requestState,
    });
    expect(textOf(second.body.result)).toBe("Hello, Ada!");
  });

  it("sends the upstream the mount's own credentials, never the caller's token", async () => {
    recordedAuthorization.length = 0;
    const { body } = await modern("tools/call", { name: "rec_roll_dice", arguments: {} });
    expect(textOf(body.result)).toMatch(/^Rolled 1d6: /);
    expect(recordedAuthorization.length).toBeGreaterThan(0);
    expect(new Set(recordedAuthorization)).toEqual(new Set(["Bearer upstream-static"]));
    expect(JSON.stringify(recordedAuthorization)).not.toContain(TOKEN);
  });

  it("a mounted call reuses the upstream's discover and tool list within their ttlMs: one request upstream per call", async () => {
    await modern("tools/call", { name: "rec_roll_dice", arguments: {} });
    recordedAuthorization.length = 0;
    const { body } = await modern("tools/call", { name: "rec_roll_dice", arguments: { sides: 4 } });
    expect(textOf(body.result)).toMatch(/^Rolled 1d4: /);
    expect(recordedAuthorization).toHaveLength(1);
  });

  it("2025-11-25 downstream: relays the upstream's elicitation as a request on the call's stream, and the answer back", async () => {
    const headersOf = (sessionId?: string): Record<string, string> => ({
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${TOKEN}`,
      ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
    });
    // Not waiting on the execution context: the call's stream stays open until the answer is in.
    const send = (body: object, sessionId?: string) =>
      worker.fetch(
        new Request("http://localhost/mcp", { method: "POST", headers: headersOf(sessionId), body: JSON.stringify(body) }),
        mountEnv,
        createExecutionContext(),
      );
    const init = await send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "1" } },
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    await send({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
    const reader = sse(
      await send({ jsonrpc: "2.0", id: "greet", method: "tools/call", params: { name: "ex_greet", arguments: {} } }, sessionId),
    );
    await reader.next(); // the priming event
    const ask = (await reader.nextMessage())!.message!;
    expect(ask).toMatchObject({ method: "elicitation/create", params: { message: "What is your name?" } });
    expect((await send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Grace" } } }, sessionId)).status).toBe(
      202,
    );
    const final = (await reader.rest(5000)).find((e) => e.message && "result" in e.message)!.message!;
    expect(final).toMatchObject({ id: "greet", result: { content: [{ type: "text", text: "Hello, Grace!" }] } });
  });

  it("an upstream's JSON-RPC error is the downstream's error, not a 5xx", async () => {
    const { status, body } = await modern("tools/call", { name: "ex_no_such_tool", arguments: {} });
    expect(status).toBeLessThan(500);
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toMatch(/no_such_tool/);
  });

  it("an unreachable upstream is a tool error naming the mount", async () => {
    vars = { MCP_DEV: "on" };
    try {
      const { status, body } = await modern("tools/call", { name: "down_anything", arguments: {} });
      expect(status).toBe(200);
      expect(body.result?.isError).toBe(true);
      expect(textOf(body.result)).toMatch(/mounted server "down" could not be reached/);
      expect(textOf(body.result)).not.toMatch(/plain http/);
    } finally {
      vars = {};
    }
  });

  it("a local http upstream is mounted under npm run dev (MCP_DEV=on) only: deployed, plain http and private addresses are refused", async () => {
    const { status, body } = await modern("tools/call", { name: "down_anything", arguments: {} });
    expect(status).toBe(200);
    expect(body.result?.isError).toBe(true);
    expect(textOf(body.result)).toMatch(/mounted server "down" could not be reached/);
    expect(textOf(body.result)).toMatch(/http:\/\/127\.0\.0\.1:9\/mcp is plain http; the client will not use it/);
    // The refusal names what allows such an upstream for a mount, not a client option mountServer does not have.
    expect(textOf(body.result)).toMatch(/npm run dev/);
    expect(textOf(body.result)).not.toMatch(/allowHttp/);
  });

  it("an upstream that breaks off mid-call is a tool error naming the mount", async () => {
    const { status, body } = await modern("tools/call", { name: "cut_countdown", arguments: { from: 3 } });
    expect(status).toBe(200);
    expect(body.result?.isError, JSON.stringify(body)).toBe(true);
    expect(textOf(body.result)).toMatch(/mounted server "cut"/);
  });

  it("relays a change of the upstream's list to this server's listeners, and serves the new list", async () => {
    // A 2026 client listening here for tool list changes.
    const { message, headers } = buildModernRequest(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { id: "mount-listen" },
    );
    const listening = await worker.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...headers, Authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(message),
      }),
      mountEnv,
      createExecutionContext(),
    );
    const reader = new SseReader(listening);
    try {
      expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
      expect(names((await modern("tools/list", {})).body.result)).toContain("chg_greet");
      changingUpstream.renamed = true;
      const listed = names((await modern("tools/list", {})).body.result);
      expect(listed).toContain("chg_hello");
      expect(listed).not.toContain("chg_greet");
      const heard = await reader.next(3000);
      expect(heard?.method).toBe("notifications/tools/list_changed");
      // The same list again is no change: the next thing the listener hears is a marked notification
      // published after that list was served (a relay is sent before the list is answered, and the hub
      // keeps one publisher's order), not a second list_changed.
      await modern("tools/list", {});
      await publish({ method: "notifications/tools/list_changed", params: { _meta: { "test/barrier": "after the same list" } } });
      const next = await reader.next(3000);
      expect(next?.params?._meta?.["test/barrier"], JSON.stringify(next)).toBe("after the same list");
    } finally {
      changingUpstream.renamed = false;
      await reader.cancel();
    }
  });
});
