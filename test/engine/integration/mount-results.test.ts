/**
 * What a mount serves, through /mcp: in an app with an MCP Apps view, mounted resources are listed
 * and read; URIs inside mounted results (a tool's resource_link and embedded resource, a prompt's
 * embedded resource, a read's error) carry the mount's prefix; a 2025-11-25 session gets a mounted
 * result without 2026 fields or the upstream's identity; the list client declares what the mount
 * relays; an upstream's burst of list changes is one notification here; names outside the spec's
 * pattern are left out and logged; a list cut at its page bound is logged. Fixtures:
 * test/engine/app/mount-shapes-app.ts (with a view) and mount-app.ts (2025 sessions).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import mountApp from "../app/mount-app";
import shapesApp from "../app/mount-shapes-app";
import { SseReader, buildModernRequest, responseIn, type RpcMessage } from "../helpers/mcp";

const shapes = createMcpWorker(shapesApp);
const bound = env as unknown as Record<string, DurableObjectNamespace>;

/** The mount fixture without a view (mount-app.ts), its 2025 sessions in their own namespace. */
const plain = createMcpWorker(mountApp);
const plainEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_MOUNT } as never;

async function modern(method: string, params: Record<string, unknown>, worker = shapes): Promise<RpcMessage> {
  const { message, headers } = buildModernRequest(method, params);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
    worker === shapes ? env : plainEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBeLessThan(500);
  return (await res.json()) as RpcMessage;
}

/** The JSON log lines written while `run` ran, parsed. */
async function logged(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

const toolNames = (answer: RpcMessage) => ((answer.result?.tools ?? []) as { name: string }[]).map((t) => t.name);

afterEach(() => vi.restoreAllMocks());

describe("mounted results", () => {
  it("an app with an MCP Apps view lists and reads mounted resources beside its view's", async () => {
    const listed = ((await modern("resources/list", {})).result!.resources as { uri: string }[]).map((r) => r.uri);
    expect(listed).toEqual(expect.arrayContaining(["ui://shapes/view.html", "sh+notes://one"]));
    const read = await modern("resources/read", { uri: "sh+notes://one" });
    expect(read.result?.contents).toEqual([expect.objectContaining({ uri: "sh+notes://one", text: "the first note" })]);
  });

  it("gives URIs inside a mounted tool's result and a mounted prompt's messages the mount's prefix", async () => {
    const called = await modern("tools/call", { name: "sh_linked", arguments: {} });
    expect(called.result?.content).toEqual([
      expect.objectContaining({ type: "resource_link", uri: "sh+notes://one" }),
      expect.objectContaining({ type: "resource", resource: expect.objectContaining({ uri: "sh+notes://one" }) }),
    ]);
    const prompt = await modern("prompts/get", { name: "sh_cite", arguments: {} });
    expect(prompt.result?.messages).toEqual([
      expect.objectContaining({ content: expect.objectContaining({ resource: expect.objectContaining({ uri: "sh+notes://one" }) }) }),
    ]);
    // A link followed reads through the mount.
    const followed = await modern("resources/read", { uri: "sh+notes://one" });
    expect(followed.result?.contents).toHaveLength(1);
  });

  it("names a mounted resource that is not found by its URI here, not the upstream's", async () => {
    const missing = await modern("resources/read", { uri: "ex+info://nothing" }, plain);
    expect(missing.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("ex+info://nothing"),
      data: { uri: "ex+info://nothing" },
    });
    expect(JSON.stringify(missing.error)).not.toMatch(/[^+]info:\/\/nothing/);
  });

  it("lists to a mount the tools its upstream shows only to clients that can answer a question", async () => {
    expect(toolNames(await modern("tools/list", {}))).toContain("sh_asks");
  });

  it("relays an upstream's burst of 300 tools/list_changed on one call as one notification", async () => {
    const { message, headers } = buildModernRequest(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true, promptsListChanged: true } },
      { id: "burst-listen" },
    );
    const listening = await shapes.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
      env,
      createExecutionContext(),
    );
    const reader = new SseReader(listening);
    try {
      expect((await reader.next(3000))?.method).toBe("notifications/subscriptions/acknowledged");
      expect((await modern("tools/call", { name: "sh_burst", arguments: {} })).result?.content).toEqual([{ type: "text", text: "burst" }]);
      // The barrier: a prompts change told after the call must come right after one tools change.
      await modern("tools/call", { name: "local_prompts_changed", arguments: {} });
      const heard: string[] = [];
      for (let m = await reader.next(3000); m; m = await reader.next(3000)) {
        heard.push(m.method!);
        if (m.method === "notifications/prompts/list_changed") break;
      }
      expect(heard).toEqual(["notifications/tools/list_changed", "notifications/prompts/list_changed"]);
    } finally {
      await reader.cancel();
    }
  });

  it("leaves out, and logs, upstream tool names outside the spec's pattern; refuses a call by such a name", async () => {
    let listed: string[] = [];
    const lines = await logged(async () => {
      listed = toolNames(await modern("tools/list", {}));
    });
    expect(listed).toContain("odd_linked");
    expect(listed.filter((n) => n.startsWith("odd_")).every((n) => /^[A-Za-z0-9_.-]{1,128}$/.test(n))).toBe(true);
    const refused = lines.filter((l) => l.mcp === "mount_name_refused" && l.mount === "odd");
    expect(refused).toHaveLength(3);
    expect(refused.every((l) => String(l.message).length < 200 && !String(l.message).includes("\n"))).toBe(true);
    const call = await modern("tools/call", { name: `odd_${"x".repeat(5000)}`, arguments: {} });
    expect(call.error?.code).toBe(-32602);
  });

  it("a call that ends waiting on the upstream says where an upstream's question must go", async () => {
    const waited = await modern("tools/call", { name: "hush_linked", arguments: {} });
    expect(waited.result?.isError).toBe(true);
    const text = (waited.result!.content as { text: string }[])[0]!.text;
    expect(text).toMatch(/mounted server "hush" could not be reached for the tool linked: .*timed out/);
    expect(text).toMatch(/on the call's own stream \(relatedRequestId\): a mount does not open the standalone stream/);
  });

  it("says in a log line when a mounted list stops at its page bound", async () => {
    const lines = await logged(() => modern("tools/list", {}));
    expect(lines).toContainEqual(expect.objectContaining({ mcp: "mount_list_truncated", mount: "pg", what: "tools/list" }));
  });
});

describe("a mounted result on the 2025-11-25 lane", () => {
  it("carries no resultType and this server's identity only, though the upstream speaks 2026-07-28", async () => {
    const post = async (body: object, sessionId?: string) => {
      const ctx = createExecutionContext();
      const res = await plain.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
          },
          body: JSON.stringify(body),
        }),
        plainEnv,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const sessionId = init.headers.get("Mcp-Session-Id")!;
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ex_convert_temperature", arguments: { value: 0, from: "celsius" } } },
      sessionId,
    );
    const text = await res.text();
    const result = responseIn(res, text).result!;
    expect(result, text).toBeDefined();
    expect(result.structuredContent).toEqual({ celsius: 0, fahrenheit: 32, kelvin: 273.15 });
    expect(result).not.toHaveProperty("resultType");
    expect(JSON.stringify(result._meta ?? {})).not.toContain("serverInfo");
  });
});
