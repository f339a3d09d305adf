// Why: client-modern.mjs covers the 2026-07-28 stateless wire; this drives the same
// example server (under real `wrangler dev`) on the 2025-11-25 session wire (Durable
// Objects) with two official clients: (a) the widely deployed SDK
// @modelcontextprotocol/sdk@1.32.2 (initialize + Mcp-Session-Id, server-to-client
// elicitation over SSE, progress, DELETE), and (b) @modelcontextprotocol/client@2.4.0 in
// its legacy era. Note for (b): 2.4.0 rejects `versionNegotiation: { mode: { pin:
// '2025-11-25' } }` with a TypeError (pins are for 2026-07-28+), so "pinned to 2025-11-25"
// means mode 'legacy' plus supportedProtocolVersions ['2025-11-25'] (the only offer).
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startWrangler } from "./server.mjs";

const LEGACY = "2025-11-25";
const REQ = { timeout: 15_000 };
const INFO = { name: "mcp-worker-e2e-legacy", version: "0.0.1" };
const textOf = (result) =>
  (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

async function closeQuietly(client) {
  await Promise.race([client?.close().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
}

/**
 * Checks both clients share: the high-level methods match in 1.32.2 and 2.4.0, except
 * callTool: (params, resultSchema?, options) in 1.32.2, (params, options) in 2.4.0.
 */
async function coreChecks(client, { check }, { elicitations, logs }, prefix) {
  const call =
    client instanceof ClientV1
      ? (params, _unused, options) => client.callTool(params, undefined, options)
      : (params, _unused, options) => client.callTool(params, options);
  await check(`${prefix}: tools/list has the engine app's tools`, async () => {
    const { tools } = await client.listTools(undefined, REQ);
    assertEqual(
      tools.map((t) => t.name).sort(),
      ["announce", "chatter", "convert_temperature", "countdown", "greet", "prepare_report", "quick_task", "roll_dice"],
      "tool names",
    );
    const conv = tools.find((t) => t.name === "convert_temperature");
    assert(conv.outputSchema?.type === "object", "convert_temperature has no object outputSchema");
  });
  await check(`${prefix}: convert_temperature 100 celsius -> structured output`, async () => {
    const r = await call({ name: "convert_temperature", arguments: { value: 100, from: "celsius" } }, undefined, REQ);
    assert(!r.isError, `isError: ${textOf(r)}`);
    assertEqual(r.structuredContent, { celsius: 100, fahrenheit: 212, kelvin: 373.15 }, "structuredContent");
  });
  await check(`${prefix}: convert_temperature below absolute zero -> isError`, async () => {
    const r = await call({ name: "convert_temperature", arguments: { value: -300, from: "celsius" } }, undefined, REQ);
    assert(r.isError === true, `expected isError:true, got ${JSON.stringify(r)}`);
    assert(/absolute zero/.test(textOf(r)), `error text: ${textOf(r)}`);
  });
  await check(`${prefix}: roll_dice 2d20`, async () => {
    const r = await call({ name: "roll_dice", arguments: { sides: 20, count: 2 } }, undefined, REQ);
    const m = /^Rolled 2d20: (\d+), (\d+) \(total (\d+)\)$/.exec(textOf(r));
    assert(m, `unexpected text: ${JSON.stringify(textOf(r))}`);
    const rolls = m.slice(1, 3).map(Number);
    assert(
      rolls.every((n) => n >= 1 && n <= 20),
      `roll out of range: ${rolls}`,
    );
    assertEqual(Number(m[3]), rolls[0] + rolls[1], "total");
  });
  await check(`${prefix}: countdown from 3 with progress notifications`, async () => {
    const progress = [];
    const r = await call({ name: "countdown", arguments: { from: 3 } }, undefined, { ...REQ, onprogress: (p) => progress.push(p) });
    assertEqual(textOf(r), "Liftoff!", "text");
    assertEqual(
      progress.map((p) => p.progress),
      [0, 1, 2, 3],
      "progress values",
    );
    assert(
      progress.every((p) => p.total === 3),
      `progress totals: ${JSON.stringify(progress)}`,
    );
  });
  await check(`${prefix}: logging/setLevel info, countdown streams log lines`, async () => {
    await client.setLoggingLevel("info", REQ);
    logs.length = 0;
    const r = await call({ name: "countdown", arguments: { from: 2 } }, undefined, REQ);
    assertEqual(textOf(r), "Liftoff!", "text");
    assertEqual(
      logs.map((l) => `${l.level}:${l.data}`),
      ["info:countdown at 2", "info:countdown at 1"],
      "log notifications",
    );
    await client.setLoggingLevel("warning", REQ);
    logs.length = 0;
    await call({ name: "countdown", arguments: { from: 1 } }, undefined, REQ);
    assertEqual(logs, [], "info logs at level warning");
  });
  await check(`${prefix}: greet via elicitation/create -> Hello, Ada!`, async () => {
    elicitations.length = 0;
    const r = await call({ name: "greet", arguments: {} }, undefined, REQ);
    assertEqual(textOf(r), "Hello, Ada!", "text");
    assertEqual(elicitations.length, 1, "elicitation handler calls");
    assertEqual(elicitations[0].message, "What is your name?", "elicitation message");
    assert(elicitations[0].requestedSchema?.properties?.name, "requestedSchema lacks 'name'");
  });
  await check(`${prefix}: read info://about and units://kelvin`, async () => {
    const { resources } = await client.listResources(undefined, REQ);
    assert(
      resources.some((x) => x.uri === "info://about"),
      `resources: ${JSON.stringify(resources)}`,
    );
    const about = await client.readResource({ uri: "info://about" }, REQ);
    assertEqual(about.contents[0]?.mimeType, "text/markdown", "mimeType");
    assert(about.contents[0].text.startsWith("# Engine test app"), `text: ${JSON.stringify(about.contents[0].text)}`);
    const { resourceTemplates } = await client.listResourceTemplates(undefined, REQ);
    assert(
      resourceTemplates.some((t) => t.uriTemplate === "units://{unit}"),
      "template not listed",
    );
    const kelvin = await client.readResource({ uri: "units://kelvin" }, REQ);
    assert(/^Kelvin: the SI unit/.test(kelvin.contents[0]?.text ?? ""), `text: ${JSON.stringify(kelvin.contents)}`);
  });
  await check(`${prefix}: prompts/get explain_unit`, async () => {
    const r = await client.getPrompt({ name: "explain_unit", arguments: { unit: "kelvin" } }, REQ);
    assertEqual(r.messages.length, 1, "messages length");
    assertEqual(r.messages[0].content, { type: "text", text: "Explain the kelvin temperature scale in two sentences." }, "content");
  });
  await check(`${prefix}: completion/complete (prompt and template)`, async () => {
    const p = await client.complete({ ref: { type: "ref/prompt", name: "explain_unit" }, argument: { name: "unit", value: "k" } }, REQ);
    assertEqual(p.completion.values, ["kelvin"], "prompt values");
    const t = await client.complete({ ref: { type: "ref/resource", uri: "units://{unit}" }, argument: { name: "unit", value: "c" } }, REQ);
    assertEqual(t.completion.values, ["celsius"], "template values");
  });
}

/** (a) SDK 1.32.2: the 2025 client most deployed hosts embed. */
async function sdkV1Run(url, checks) {
  const { check } = checks;
  const state = { elicitations: [], logs: [] };
  const prefix = "sdk 1.32.2";
  let client;
  let transport;
  const connected = await check(`${prefix}: connect (initialize -> ${LEGACY}, Mcp-Session-Id)`, async () => {
    client = new ClientV1(INFO, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      state.elicitations.push(request.params);
      // prepare_report (a task) asks how long its report should be; greet asks for a name.
      if (/^How long/.test(request.params.message)) return { action: "accept", content: { words: 42 } };
      return { action: "accept", content: { name: "Ada" } };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      state.logs.push(n.params);
    });
    transport = new TransportV1(new URL(url));
    await client.connect(transport, REQ);
    assertEqual(transport.protocolVersion, LEGACY, "negotiated version");
    // A sealed id (name.record.mac), or a plain one when the server has no MCP_STATE_SECRET.
    assert(
      /^[A-Za-z0-9_-]{43}(\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]{43})?$/.test(transport.sessionId ?? ""),
      `sessionId: ${JSON.stringify(transport.sessionId)}`,
    );
    assertEqual(client.getServerVersion()?.name, "engine-test-app", "serverInfo.name");
    assert(client.getServerCapabilities()?.tools, "server capabilities lack tools");
  });
  if (!connected) return;
  try {
    await coreChecks(client, checks, state, prefix);
    await check(`${prefix}: experimental tasks: prepare_report runs as a task, its question answered on tasks/result`, async () => {
      state.elicitations.length = 0;
      const seen = [];
      let result;
      const stream = client.experimental.tasks.callToolStream({ name: "prepare_report", arguments: { topic: "tides" } }, undefined, {
        ...REQ,
        task: { ttl: 60_000 },
      });
      for await (const message of stream) {
        seen.push(message.type);
        if (message.type === "error") throw message.error;
        if (message.type === "result") result = message.result;
      }
      assertEqual(seen[0], "taskCreated", "first stream message");
      assertEqual(textOf(result), "Report: an outline of tides, then 42 words on tides (outline ran 1×, write 1×)", "task result");
      assertEqual(state.elicitations.length, 1, "elicitations");
      assert(state.elicitations[0]._meta?.["io.modelcontextprotocol/related-task"]?.taskId, "the elicitation names its task");
    });
    await check(`${prefix}: ping`, async () => {
      await client.ping(REQ);
    });
    await check(`${prefix}: terminateSession (DELETE), then the session is gone (404)`, async () => {
      const sessionId = transport.sessionId;
      await transport.terminateSession();
      assertEqual(transport.sessionId, undefined, "sessionId after terminateSession");
      // A fresh SDK client that resumes the dead session: connect() skips initialize when
      // the transport already has a session id, so listTools is sent with it.
      const ghostTransport = new TransportV1(new URL(url), { sessionId });
      const ghost = new ClientV1(INFO, { capabilities: {} });
      await ghost.connect(ghostTransport, REQ);
      ghostTransport.setProtocolVersion(LEGACY);
      let err;
      try {
        await ghost.listTools(undefined, REQ);
      } catch (e) {
        err = e;
      } finally {
        await closeQuietly(ghost);
      }
      assert(err, "tools/list on a terminated session succeeded");
      assertEqual(err.code, 404, `HTTP status in the SDK error (${err.message})`);
    });
  } finally {
    await closeQuietly(client);
  }
}

/** (b) @modelcontextprotocol/client 2.4.0 held to the legacy era at 2025-11-25. */
async function sdkV2LegacyRun(url, checks) {
  const { check } = checks;
  const state = { elicitations: [], logs: [] };
  const prefix = "client 2.4.0 legacy";
  let client;
  let transport;
  const connected = await check(`${prefix}: connect (initialize -> ${LEGACY}, era legacy)`, async () => {
    client = new ClientV2(INFO, {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: "legacy" },
      supportedProtocolVersions: [LEGACY],
    });
    client.setRequestHandler("elicitation/create", async (request) => {
      state.elicitations.push(request.params);
      return { action: "accept", content: { name: "Ada" } };
    });
    client.setNotificationHandler("notifications/message", (n) => {
      state.logs.push(n.params);
    });
    transport = new TransportV2(new URL(url));
    await client.connect(transport, REQ);
    assertEqual(client.getProtocolEra(), "legacy", "era");
    assertEqual(client.getNegotiatedProtocolVersion(), LEGACY, "negotiated version");
    // A sealed id (name.record.mac), or a plain one when the server has no MCP_STATE_SECRET.
    assert(
      /^[A-Za-z0-9_-]{43}(\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]{43})?$/.test(transport.sessionId ?? ""),
      `sessionId: ${JSON.stringify(transport.sessionId)}`,
    );
  });
  if (!connected) return;
  try {
    await coreChecks(client, checks, state, prefix);
    await check(`${prefix}: terminateSession (DELETE)`, async () => {
      await transport.terminateSession();
      assertEqual(transport.sessionId, undefined, "sessionId after terminateSession");
    });
  } finally {
    await closeQuietly(client);
  }
}

/** @returns {Promise<{passed: number, failed: number, results: object[]}>} */
export async function runClientLegacy(url) {
  const checks = createChecks("client-legacy");
  await sdkV1Run(url, checks);
  await sdkV2LegacyRun(url, checks);
  return checks.counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startWrangler({ config: "test/engine/app/wrangler.toml" });
  let counts;
  try {
    counts = await runClientLegacy(server.url);
    if (counts.failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
  } finally {
    await server.stop();
  }
  console.log(`client-legacy: ${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}
