/**
 * Per-user state (ctx.user, docs/state.md) through /mcp: each principal's own values and tables, on
 * both revisions and in a task's runs; nothing stored for a caller who only reads; the bound on one
 * principal's state; forgetUser; anonymous callers refused. The user-state fixture app
 * (test/engine/app/user-state-app.ts) with its own session, task and user classes (vitest-index.ts).
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AuthFailure, createMcpWorker, forgetUser, testClient, userStore, UserStateError, type TokenVerifier } from "../../../src/mcp";
import userStateApp, { USER_STATE_MAX_BYTES } from "../app/user-state-app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { untilTask } from "../helpers/tasks";

const TOKEN_PREFIX = "state-";
const verifyToken: TokenVerifier = async (token) => {
  if (!token.startsWith(TOKEN_PREFIX)) throw new AuthFailure("invalid_token", "unknown");
  return { id: token.slice(TOKEN_PREFIX.length), scopes: [] };
};
const bound = env as unknown as Record<string, DurableObjectNamespace>;
const userEnv = { ...env, MCP_SESSION: bound.MCP_SESSION_USER, MCP_TASK: bound.MCP_TASK_USER } as never;
const worker = createMcpWorker(userStateApp, { verifyToken });
const anonymousWorker = createMcpWorker(userStateApp);

const fresh = (name: string) => `${name}-${crypto.randomUUID()}`;
const tokenOf = (principal: string) => `${TOKEN_PREFIX}${principal}`;

async function post(token: string | undefined, body: object, headers: Record<string, string>, w = worker): Promise<Response> {
  const ctx = createExecutionContext();
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const res = await w.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers: { ...headers, ...auth }, body: JSON.stringify(body) }),
    userEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const TASKS = { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } };

/** One 2026-07-28 request as `principal` (undefined: anonymous, to the Worker without authorization). */
async function modern(principal: string | undefined, method: string, params: Record<string, unknown>): Promise<RpcMessage> {
  const { message, headers } = buildModernRequest(method, params, TASKS);
  const res = await post(principal && tokenOf(principal), message, headers, principal ? worker : anonymousWorker);
  expect(res.status).toBe(200);
  return (await res.json()) as RpcMessage;
}
const textOf = (msg: RpcMessage) => (msg.result?.content as { text: string }[] | undefined)?.[0]?.text;
/** A tool's text answer (parsed when JSON), as `principal` on 2026-07-28. */
async function call(principal: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const msg = await modern(principal, "tools/call", { name, arguments: args });
  expect(msg.result?.isError, JSON.stringify(msg)).not.toBe(true);
  const text = textOf(msg)!;
  return text === "kept" ? text : JSON.parse(text);
}

/** A 2025-11-25 session of `principal`: its `call` answers like the 2026 one. */
async function legacySession(principal: string) {
  const headersOf = (sessionId?: string): Record<string, string> => ({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(sessionId ? { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" } : {}),
  });
  const capabilities = { tasks: { requests: { tools: { call: {} } } } };
  const init = await post(
    tokenOf(principal),
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } },
    },
    headersOf(),
  );
  const sessionId = init.headers.get("Mcp-Session-Id")!;
  expect(sessionId).toBeTruthy();
  await post(tokenOf(principal), { jsonrpc: "2.0", method: "notifications/initialized" }, headersOf(sessionId));
  let id = 0;
  const rpc = async (method: string, params: Record<string, unknown>) => {
    const res = await post(tokenOf(principal), { jsonrpc: "2.0", id: ++id, method, params }, headersOf(sessionId));
    expect(res.status).toBe(200);
    return (await res.json()) as RpcMessage;
  };
  return {
    rpc,
    async call(name: string, args: Record<string, unknown> = {}) {
      const msg = await rpc("tools/call", { name, arguments: args });
      expect(msg.result?.isError, JSON.stringify(msg)).not.toBe(true);
      const text = textOf(msg)!;
      return text === "kept" ? text : JSON.parse(text);
    },
  };
}

/** Whether the principal's object holds any table at all (the engine's or the app's). */
const tablesOf = (principal: string) =>
  runInDurableObject(bound.MCP_USER!.get(bound.MCP_USER!.idFromName(principal)), (_o, state: DurableObjectState) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((r) => r.name),
  );

/** Everything the principal's database holds: its schema's entries (tables, indexes) and its size. */
const schemaOf = (principal: string) =>
  runInDurableObject(bound.MCP_USER!.get(bound.MCP_USER!.idFromName(principal)), (_o, state: DurableObjectState) => ({
    entries: state.storage.sql.exec("SELECT name FROM sqlite_master").toArray().length,
    bytes: state.storage.sql.databaseSize,
  }));

const ended = (read: () => Promise<Record<string, any>>, ms = 5000) => untilTask(read, "completed", ms);

describe("ctx.user: each caller's own durable storage", () => {
  it("2026-07-28: keeps, reads, lists and deletes a principal's JSON values", async () => {
    const alice = fresh("alice");
    expect(await call(alice, "remember", { key: "prefs/theme", value: { dark: true } })).toBe("kept");
    await call(alice, "remember", { key: "prefs/lang", value: "fr" });
    await call(alice, "remember", { key: "draft", value: [1, 2, 3] });
    expect(await call(alice, "recall", { key: "prefs/theme" })).toEqual({ dark: true });
    expect(await call(alice, "keys", { prefix: "prefs/" })).toEqual([
      { key: "prefs/lang", value: "fr" },
      { key: "prefs/theme", value: { dark: true } },
    ]);
    expect(await call(alice, "keys", { prefix: "prefs/", after: "prefs/lang" })).toEqual([{ key: "prefs/theme", value: { dark: true } }]);
    expect(await call(alice, "keys", { limit: 1 })).toEqual([{ key: "draft", value: [1, 2, 3] }]);
    expect(await call(alice, "forget", { key: "draft" })).toBe(true);
    expect(await call(alice, "forget", { key: "draft" })).toBe(false);
    expect(await call(alice, "recall", { key: "draft" })).toBe(null);
  });

  it("isolates two principals on both revisions: the same keys and tables, each its own", async () => {
    const alice = fresh("alice");
    const bob = fresh("bob");
    await call(alice, "remember", { key: "secret", value: "alice's" });
    await call(alice, "add_note", { text: "alice's note" });
    // Bob, on a 2025 session, asks for the very same key and table and sees nothing of Alice's.
    const bobs = await legacySession(bob);
    expect(await bobs.call("recall", { key: "secret" })).toBe(null);
    expect(await bobs.call("keys", {})).toEqual([]);
    expect(await bobs.call("notes")).toEqual([]);
    await bobs.call("remember", { key: "secret", value: "bob's" });
    await bobs.call("add_note", { text: "bob's note" });
    // Alice's 2025 session sees what her 2026 calls kept, and only that.
    const alices = await legacySession(alice);
    expect(await alices.call("recall", { key: "secret" })).toBe("alice's");
    expect(await alices.call("notes")).toEqual([{ text: "alice's note" }]);
    expect(await call(bob, "recall", { key: "secret" })).toBe("bob's");
    expect(await call(bob, "notes")).toEqual([{ text: "bob's note" }]);
  });

  it("is the caller's own in a task's runs, on both revisions", async () => {
    const alice = fresh("alice");
    const bob = fresh("bob");
    await call(bob, "remember", { key: "k", value: "bob's" });
    const created = (await modern(alice, "tools/call", { name: "remember_task", arguments: { key: "k", value: "alice's" } })).result!;
    expect(created.resultType, JSON.stringify(created)).toBe("task");
    const done = await ended(async () => (await modern(alice, "tasks/get", { taskId: created.taskId })).result!);
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.result.content[0].text)).toEqual({ before: null, after: "alice's" });
    expect(await call(bob, "recall", { key: "k" })).toBe("bob's");

    const bobs = await legacySession(bob);
    const made = (await bobs.rpc("tools/call", { name: "remember_task", arguments: { key: "k", value: "bob's again" }, task: {} })).result!;
    const taskId = made.task.taskId;
    expect((await ended(async () => (await bobs.rpc("tasks/get", { taskId })).result!)).status).toBe("completed");
    const result = (await bobs.rpc("tasks/result", { taskId })).result!;
    expect(JSON.parse(result.content[0].text)).toEqual({ before: "bob's", after: "bob's again" });
    expect(await call(alice, "recall", { key: "k" })).toBe("alice's");
  });

  it("stores nothing for a caller who only reads: no table, no row", async () => {
    const reader = fresh("reader");
    expect(await call(reader, "recall", { key: "x" })).toBe(null);
    expect(await call(reader, "keys", {})).toEqual([]);
    expect(await call(reader, "forget", { key: "x" })).toBe(false);
    // The app's table, read before anything was written: empty, and the migration left nothing behind.
    expect(await call(reader, "notes")).toEqual([]);
    // Nothing at all in its database, not even the platform's own tables: one empty page.
    expect(await schemaOf(reader)).toEqual({ entries: 0, bytes: 4096 });
    // The first write makes the tables.
    await call(reader, "remember", { key: "x", value: 1 });
    expect((await tablesOf(reader)).sort()).toEqual(["mcp_user_kv", "mcp_user_meta", "notes"]);
  });

  it("refuses a write past the principal's bound with a tool error the model reads, and keeps what was there", async () => {
    const filler = fresh("filler");
    await call(filler, "remember", { key: "small", value: "kept" });
    let refused: RpcMessage | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const msg = await modern(filler, "tools/call", { name: "fill", arguments: { key: `fill-${i}`, bytes: 16 * 1024 } });
      if (msg.result?.isError) refused = msg;
    }
    expect(refused, "no write was refused").toBeDefined();
    expect(textOf(refused!)).toMatch(new RegExp(`bound of ${USER_STATE_MAX_BYTES} bytes`));
    expect(await call(filler, "recall", { key: "small" })).toBe("kept");
    // Deleting makes room again.
    const keys = (await call(filler, "keys", { prefix: "fill-" })) as { key: string }[];
    for (const { key } of keys) await call(filler, "forget", { key });
    expect(await call(filler, "fill", { key: "again", bytes: 16 * 1024 })).toBe("kept");
  });

  it("forgetUser erases a principal's values and tables, and no one else's", async () => {
    const alice = fresh("alice");
    const bob = fresh("bob");
    await call(alice, "remember", { key: "k", value: 1 });
    await call(alice, "add_note", { text: "n" });
    await call(bob, "remember", { key: "k", value: 2 });
    await forgetUser(env, alice);
    expect((await schemaOf(alice)).entries).toBe(0);
    expect(await call(alice, "recall", { key: "k" })).toBe(null);
    expect(await call(alice, "notes")).toEqual([]);
    expect(await call(bob, "recall", { key: "k" })).toBe(2);
    // After forgetting, the principal starts afresh: its migration runs again on the next write.
    await call(alice, "add_note", { text: "again" });
    expect(await call(alice, "notes")).toEqual([{ text: "again" }]);
  });

  it("is the same store from the app's own routes: userStore(env, principal)", async () => {
    const alice = fresh("alice");
    await call(alice, "remember", { key: "from-mcp", value: { n: 1 } });
    const store = userStore(env, alice);
    expect(await store.get("from-mcp")).toEqual({ n: 1 });
    await store.put("from-route", "hi");
    expect(await call(alice, "recall", { key: "from-route" })).toBe("hi");
  });

  it("an anonymous caller gets a tool error that says why, not a shared store nor a protocol error", async () => {
    const msg = await modern(undefined, "tools/call", { name: "remember", arguments: { key: "k", value: 1 } });
    expect(msg.error, JSON.stringify(msg)).toBeUndefined();
    expect(msg.result?.isError).toBe(true);
    expect(textOf(msg)).toMatch(/anonymous.*authenticated caller/);
  });

  it("bounds one value in UTF-8 bytes, not characters", async () => {
    // 40,000 characters of "é" are 80,002 bytes of JSON: over the fixture's 64 KiB, though under it in characters.
    const msg = await modern(fresh("accents"), "tools/call", { name: "remember", arguments: { key: "k", value: "é".repeat(40_000) } });
    expect(msg.result?.isError).toBe(true);
    expect(textOf(msg)).toBe(`A stored value is at most ${USER_STATE_MAX_BYTES} bytes of JSON (UTF-8); this one has 80002`);
  });

  it("userStore(env, principal) from a route applies the app's maxBytes, with one error type per failure", async () => {
    const store = userStore(env, fresh("route"));
    const tooBig = store.put("k", "x".repeat(USER_STATE_MAX_BYTES));
    await expect(tooBig).rejects.toBeInstanceOf(UserStateError);
    await expect(tooBig).rejects.toMatchObject({
      reason: "value",
      message: expect.stringContaining(`at most ${USER_STATE_MAX_BYTES} bytes`),
    });
    await expect(store.get("")).rejects.toMatchObject({ reason: "key" });
  });
});

describe("testClient(app, { principal, env }): each test principal's own state", () => {
  const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

  it("keeps each principal's values apart, with the bindings it is given, and forgetUser starts one afresh", async () => {
    const alice = testClient(userStateApp, { env: env as never, principal: fresh("alice") });
    const bobName = fresh("bob");
    const bob = testClient(userStateApp, { env: env as never, principal: bobName });
    await alice.callTool("remember", { key: "k", value: "alice's" });
    expect(text(await bob.callTool("recall", { key: "k" }))).toBe("null");
    await bob.callTool("remember", { key: "k", value: "bob's" });
    expect(text(await alice.callTool("recall", { key: "k" }))).toBe('"alice\'s"');
    await forgetUser(env, bobName);
    expect(text(await bob.callTool("recall", { key: "k" }))).toBe("null");
  });

  it("without a principal, or without the MCP_USER binding, says what is missing", async () => {
    const anonymous = await testClient(userStateApp, { env: env as never }).callTool("recall", { key: "k" });
    expect(anonymous.isError).toBe(true);
    expect(text(anonymous)).toMatch(/anonymous/);
    const unbound = testClient(userStateApp, { principal: "someone" });
    await expect(unbound.callTool("recall", { key: "k" })).rejects.toThrow(/MCP_USER/);
  });
});
