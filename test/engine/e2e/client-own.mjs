// Why: the engine's own client (src/engine/client) must work against the engine on both revisions, in
// Node and inside a Worker. This bundles src/engine/client for Node, walks the engine test app under
// `wrangler dev` pinned to 2026-07-28 and to 2025-11-25 (tools, resources, prompts, completions,
// elicitation as input rounds and as session requests, progress, logs, cancellation), uses the
// conformance fixture for listen and for resumption after a dropped stream, and serves
// test/engine/client-app, whose tool calls the fixture through the client from inside its Worker. A third-party
// server (the official SDK 1.32.2, in this process) shows timeouts, output checks and roots notices.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { startWrangler } from "./server.mjs";

async function loadClient() {
  const dir = path.join(ROOT, "test/.tmp/client-own");
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `client-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, "src/engine/client/index.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile,
    logLevel: "error",
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}

const textOf = (r) =>
  (r.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

async function engineWalk(lib, url, protocol, { check }) {
  const tag = protocol;
  const asked = [];
  const handlers = { elicitation: async (params) => (asked.push(params.message), { action: "accept", content: { name: "Ada" } }) };
  /** @type {any} */
  let client;
  const ok = await check(`${tag}: connect`, async () => {
    client = await lib.McpClient.connect(url, { protocol, handlers, logLevel: "info" });
    assertEqual(client.protocolVersion, protocol, "protocol version");
    assertEqual(client.serverInfo?.name, "engine-test-app", "server name");
  });
  if (!ok) return;
  try {
    await check(`${tag}: tools/list + tools/call with structured content`, async () => {
      const tools = await client.listAllTools();
      assert(
        tools.some((t) => t.name === "convert_temperature"),
        "convert_temperature listed",
      );
      const r = await client.callTool("convert_temperature", { value: 100, from: "celsius" });
      assertEqual(r.structuredContent?.fahrenheit, 212, "fahrenheit");
    });
    await check(`${tag}: elicitation (${protocol === "2026-07-28" ? "input rounds" : "session request"})`, async () => {
      const r = await client.callTool("greet", {});
      assertEqual(textOf(r), "Hello, Ada!", "greeting");
      assert(asked.length >= 1, "the elicitation handler was asked");
    });
    await check(`${tag}: progress and log callbacks`, async () => {
      const progress = [];
      const logs = [];
      const r = await client.callTool("countdown", { from: 3 }, { onProgress: (p) => progress.push(p), onLog: (m) => logs.push(m) });
      assertEqual(textOf(r), "Liftoff!", "result");
      assert(progress.length >= 3, `progress notifications (${progress.length})`);
      assert(logs.length >= 1, `log messages (${logs.length})`);
    });
    await check(`${tag}: cancellation by AbortSignal`, async () => {
      const t0 = Date.now();
      let threw = false;
      try {
        await client.callTool("countdown", { from: 10 }, { signal: AbortSignal.timeout(150) });
      } catch {
        threw = true;
      }
      assert(threw && Date.now() - t0 < 900, "the call ended early with an error");
    });
    await check(`${tag}: resources, templates, read`, async () => {
      const { resources } = await client.listResources();
      assert(
        resources.some((r) => r.uri === "info://about"),
        "info://about listed",
      );
      const { resourceTemplates } = await client.listResourceTemplates();
      assert(
        resourceTemplates.some((t) => t.uriTemplate === "units://{unit}"),
        "template listed",
      );
      const about = await client.readResource("info://about");
      assert(about.contents[0]?.text?.includes("Engine test app"), "about text");
      const kelvin = await client.readResource("units://kelvin");
      assert(kelvin.contents.length === 1, "template read");
    });
    await check(`${tag}: resource not found is an McpClientError with the server's code`, async () => {
      try {
        await client.readResource("units://rankine");
        throw new Error("no error");
      } catch (err) {
        assert(err instanceof lib.McpClientError, `McpClientError (${err})`);
        assert(err.code === (protocol === "2026-07-28" ? -32602 : -32002), `code ${err.code}`);
      }
    });
    await check(`${tag}: prompts and completions`, async () => {
      const { prompts } = await client.listPrompts();
      assert(
        prompts.some((p) => p.name === "explain_unit"),
        "prompt listed",
      );
      const p = await client.getPrompt("explain_unit", { unit: "kelvin" });
      assert(JSON.stringify(p.messages).includes("kelvin"), "prompt text");
      const c = await client.complete({ type: "ref/prompt", name: "explain_unit" }, { name: "unit", value: "k" });
      assertEqual(JSON.stringify(c.completion.values), '["kelvin"]', "completion");
    });
    if (protocol !== "2026-07-28") await check(`${tag}: ping`, () => client.ping());
  } finally {
    await client.close().catch(() => {});
  }
  await taskWalk(lib, url, protocol, { check });
}

/** A client that takes tasks gets a task tool's result from callTool, its question answered by the same handler. */
async function taskWalk(lib, url, protocol, { check }) {
  const tag = `${protocol} tasks`;
  const seen = [];
  const ids = [];
  const handlers = { elicitation: async () => ({ action: "accept", content: { words: 12 } }) };
  let onNextTask;
  const onTask = (t) => (seen.push(t.status), ids.push(t.taskId), onNextTask?.(t));
  /** @type {any} */
  let client;
  if (
    !(await check(
      `${tag}: connect with tasks on`,
      async () => (client = await lib.McpClient.connect(url, { protocol, handlers, tasks: { onTask } })),
    ))
  )
    return;
  try {
    await check(`${tag}: callTool follows prepare_report's task to its result`, async () => {
      const r = await client.callTool("prepare_report", { topic: "ice" });
      assertEqual(textOf(r), "Report: an outline of ice, then 12 words on ice (outline ran 1×, write 1×)", "result");
      assertEqual(seen[0], "working", "the first task state seen");
      if (protocol === "2026-07-28")
        assert(seen.includes("input_required") && seen.at(-1) === "completed", `states seen: ${seen.join(", ")}`);
    });
    await check(`${tag}: aborting the call cancels the task`, async () => {
      seen.length = 0;
      const abort = new AbortController();
      // Aborted once its task exists (however long creating it takes on a loaded machine).
      let taskId;
      onNextTask = (t) => ((onNextTask = undefined), (taskId = t.taskId), setTimeout(() => abort.abort(new Error("given up")), 100));
      const pending = client.callTool("prepare_report", { topic: "slow", pauseMs: 30_000 }, { signal: abort.signal });
      const err = await pending.then(
        () => undefined,
        (e) => e,
      );
      assert(err, "the aborted call did not fail");
      assert(taskId, "the call never became a task");
      const task = await client.request("tasks/get", { taskId });
      assertEqual(task.status, "cancelled", "the task after the abort");
    });
  } finally {
    await client.close().catch(() => {});
  }
}

async function fixtureWalk(lib, url, protocol, { check }) {
  const tag = `${protocol} fixture`;
  /** @type {any} */
  let client;
  if (!(await check(`${tag}: connect`, async () => (client = await lib.McpClient.connect(url, { protocol }))))) return;
  try {
    // The change is made before the subscription is first read: what comes in between must be kept.
    await check(`${tag}: listen yields tools/list_changed after the acknowledgement`, async () => {
      const sub = await client.listen({ toolsListChanged: true });
      await client.callTool("test_trigger_tool_change", {});
      const { value } = await sub[Symbol.asyncIterator]().next();
      assertEqual(value?.method, "notifications/tools/list_changed", "notification");
      sub.close();
    });
    if (protocol === "2025-11-25") {
      // listen() resolves only once the session stream is open: a change made right after it must arrive,
      // even when the stream is slow to open (a fetch that holds each GET) or was not kept (sessionStream: false).
      const slowGet = (input, init) => (init?.method === "GET" ? sleep(400).then(() => fetch(input, init)) : fetch(input, init));
      for (const [label, options] of /** @type {[string, object][]} */ ([
        ["a slow GET stream", { fetch: slowGet }],
        ["sessionStream: false", { sessionStream: false }],
      ])) {
        await check(`${tag}: listen waits for the session stream (${label})`, async () => {
          const c = await lib.McpClient.connect(url, { protocol, ...options });
          try {
            const sub = await c.listen({ toolsListChanged: true });
            await c.callTool("test_trigger_tool_change", {});
            const { value } = await sub[Symbol.asyncIterator]().next();
            assertEqual(value?.method, "notifications/tools/list_changed", "notification");
            sub.close();
          } finally {
            await c.close().catch(() => {});
          }
        });
      }
      await check(`${tag}: resumption after the server drops the stream (Last-Event-ID)`, async () => {
        const r = await client.callTool("test_reconnection", {});
        assert(textOf(r).includes("properly reconnected"), `result: ${textOf(r)}`);
      });
    }
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * A third-party server: the official SDK 1.32.2 on a 2025-11-25 session (Node http, port 0). It checks
 * what the client owes any server: structured results against the tool's outputSchema, a request
 * timeout that cancels the call on the server, and the roots change notice.
 */
async function startSdkServer() {
  const { createServer } = await import("node:http");
  const { randomUUID } = await import("node:crypto");
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { isInitializeRequest, RootsListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const { z } = await import("zod");
  const seen = { cancelled: 0, rootsChanged: 0 };
  const sessions = new Map();
  const newServer = () => {
    const server = new McpServer({ name: "sdk-1.32.2", version: "1.32.2" });
    server.registerTool(
      "area",
      { inputSchema: { w: z.number(), h: z.number() }, outputSchema: { area: z.number() } },
      async ({ w, h }) => ({
        content: [{ type: "text", text: String(w * h) }],
        structuredContent: { area: w * h },
      }),
    );
    server.registerTool("stall", { inputSchema: {} }, async (_args, extra) => {
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
      seen.cancelled++;
      return { content: [{ type: "text", text: "cancelled" }] };
    });
    server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => void seen.rootsChanged++);
    return server;
  };
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport);
        },
      });
      await newServer().connect(transport);
    }
    if (!transport) return void res.writeHead(404).end();
    await transport.handleRequest(req, res, body);
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => http.listen(0, "127.0.0.1", resolve)));
  return {
    url: `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (http.address()).port}/mcp`,
    seen,
    stop: () => new Promise((r) => (http.closeAllConnections(), http.close(r))),
  };
}

async function thirdPartyWalk(lib, { check }) {
  const sdk = await startSdkServer();
  try {
    // The short deadline only on the call that stalls: a pause of the loaded machine must not fail the others.
    const client = await lib.McpClient.connect(sdk.url, { handlers: { roots: () => ({ roots: [] }) }, timeoutMs: 10_000 });
    try {
      await check("SDK 1.32.2: auto falls back to a 2025-11-25 session", async () => assertEqual(client.era, "legacy", "era"));
      await check("SDK 1.32.2: structuredContent is checked against the listed outputSchema", async () => {
        await client.listTools();
        const r = await client.callTool("area", { w: 3, h: 4 });
        assertEqual(r.structuredContent?.area, 12, "area");
      });
      await check("SDK 1.32.2: a call past timeoutMs fails and is cancelled on the server", async () => {
        const err = await client.callTool("stall", {}, { timeoutMs: 300 }).then(
          () => undefined,
          (e) => e,
        );
        assert(err instanceof lib.McpClientError && /timed out/.test(err.message), `error: ${err}`);
        for (let i = 0; i < 50 && sdk.seen.cancelled === 0; i++) await sleep(20);
        assertEqual(sdk.seen.cancelled, 1, "cancellations seen by the server");
      });
      await check("SDK 1.32.2: rootsChanged reaches the server", async () => {
        await client.rootsChanged();
        for (let i = 0; i < 50 && sdk.seen.rootsChanged === 0; i++) await sleep(20);
        assertEqual(sdk.seen.rootsChanged, 1, "roots change notices");
      });
    } finally {
      await client.close().catch(() => {});
    }
  } finally {
    await sdk.stop();
  }
}

/** @returns {Promise<{passed: number, failed: number}>} */
export async function runClientOwn() {
  const checks = createChecks("own client");
  const lib = await loadClient();
  const servers = [];
  try {
    await thirdPartyWalk(lib, checks);
    const engine = await startWrangler({ config: "test/engine/app/wrangler.toml" });
    servers.push(engine);
    for (const protocol of ["2026-07-28", "2025-11-25"]) await engineWalk(lib, engine.url, protocol, checks);
    await checks.check("auto: a dual-era server is spoken to in 2026-07-28", async () => {
      const c = await lib.McpClient.connect(engine.url);
      assertEqual(c.era, "modern", "era");
      await c.close();
    });
    const fixture = await startWrangler({ config: "test/engine/conformance/wrangler.toml" });
    servers.push(fixture);
    for (const protocol of ["2026-07-28", "2025-11-25"]) await fixtureWalk(lib, fixture.url, protocol, checks);
    const relay = await startWrangler({ config: "test/engine/client-app/wrangler.toml", vars: { UPSTREAM_MCP_URL: fixture.url } });
    servers.push(relay);
    await checks.check(
      "a Worker tool calls another MCP server through the client",
      async () => {
        const c = await lib.McpClient.connect(relay.url);
        const r = await c.callTool("relay", {});
        assertEqual(textOf(r), "2026-07-28: This is a simple text response for testing.", "relayed text");
        await c.close();
      },
      30_000,
    );
  } catch (err) {
    await checks.check("servers start", () => Promise.reject(err));
  } finally {
    for (const s of servers) await s.stop();
  }
  return checks.counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runClientOwn();
  console.log(`own client: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
