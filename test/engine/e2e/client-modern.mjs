// Why: the vitest suite talks to the Worker with hand-made requests; this drives the
// example server (under real `wrangler dev`) with the official MCP client,
// @modelcontextprotocol/client@2.4.0, on the 2026-07-28 stateless wire: every example
// tool (incl. MRTR elicitation and progress), a resource, a template, a prompt, and the
// era picked by `versionNegotiation` both pinned and in auto mode.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startWrangler } from "./server.mjs";

const REQ = { timeout: 15_000 };
const textOf = (result) =>
  (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");

async function connect(url, versionNegotiation, elicitations, logs = []) {
  const client = new Client({ name: "mcp-worker-e2e", version: "0.0.1" }, { capabilities: { elicitation: {} }, versionNegotiation });
  client.setRequestHandler("elicitation/create", async (request) => {
    elicitations.push(request.params);
    return { action: "accept", content: { name: "Ada" } };
  });
  client.setNotificationHandler("notifications/message", (n) => {
    logs.push(n.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), REQ);
  return client;
}

async function closeQuietly(client) {
  await Promise.race([client?.close().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
}

/** The full feature walk with the client pinned to 2026-07-28. */
async function pinnedRun(url, { check }) {
  const elicitations = [];
  const logs = [];
  let client;
  const connected = await check("pin 2026-07-28: connect (server/discover)", async () => {
    client = await connect(url, { mode: { pin: "2026-07-28" } }, elicitations, logs);
    assertEqual(client.getProtocolEra(), "modern", "era");
    assertEqual(client.getNegotiatedProtocolVersion(), "2026-07-28", "negotiated version");
  });
  if (!connected) return;
  try {
    await check("tools/list has the engine app's tools", async () => {
      const { tools } = await client.listTools(undefined, REQ);
      const names = tools.map((t) => t.name).sort();
      assertEqual(
        names,
        ["announce", "chatter", "convert_temperature", "countdown", "greet", "prepare_report", "quick_task", "roll_dice"],
        "tool names",
      );
      const conv = tools.find((t) => t.name === "convert_temperature");
      assert(conv.outputSchema?.type === "object", "convert_temperature has no object outputSchema");
      assert(conv.inputSchema?.properties?.from, "convert_temperature inputSchema lacks 'from'");
    });
    await check("convert_temperature 100 celsius -> structured output", async () => {
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: 100, from: "celsius" } }, REQ);
      assert(!r.isError, `isError: ${textOf(r)}`);
      assertEqual(r.structuredContent, { celsius: 100, fahrenheit: 212, kelvin: 373.15 }, "structuredContent");
    });
    await check("convert_temperature 32 fahrenheit -> 0 celsius", async () => {
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: 32, from: "fahrenheit" } }, REQ);
      assertEqual(r.structuredContent, { celsius: 0, fahrenheit: 32, kelvin: 273.15 }, "structuredContent");
    });
    await check("convert_temperature below absolute zero -> isError", async () => {
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: -300, from: "celsius" } }, REQ);
      assert(r.isError === true, `expected isError:true, got ${JSON.stringify(r)}`);
      assert(/absolute zero/.test(textOf(r)), `error text: ${textOf(r)}`);
    });
    await check("roll_dice 3d6", async () => {
      const r = await client.callTool({ name: "roll_dice", arguments: { sides: 6, count: 3 } }, REQ);
      const m = /^Rolled 3d6: (\d+), (\d+), (\d+) \(total (\d+)\)$/.exec(textOf(r));
      assert(m, `unexpected text: ${JSON.stringify(textOf(r))}`);
      const rolls = m.slice(1, 4).map(Number);
      assert(
        rolls.every((n) => n >= 1 && n <= 6),
        `roll out of range: ${rolls}`,
      );
      assertEqual(
        Number(m[4]),
        rolls.reduce((a, b) => a + b, 0),
        "total",
      );
    });
    await check("roll_dice defaults (1d6)", async () => {
      const r = await client.callTool({ name: "roll_dice", arguments: {} }, REQ);
      assert(/^Rolled 1d6: [1-6] \(total [1-6]\)$/.test(textOf(r)), `unexpected text: ${JSON.stringify(textOf(r))}`);
    });
    await check("countdown from 3 with progress, no logs unless asked", async () => {
      const progress = [];
      logs.length = 0;
      const r = await client.callTool({ name: "countdown", arguments: { from: 3 } }, { ...REQ, onprogress: (p) => progress.push(p) });
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
      assertEqual(logs, [], "log notifications without _meta logLevel");
    });
    await check("countdown with _meta logLevel=info streams log lines", async () => {
      logs.length = 0;
      const _meta = { "io.modelcontextprotocol/logLevel": "info" };
      const r = await client.callTool({ name: "countdown", arguments: { from: 2 }, _meta }, REQ);
      assertEqual(textOf(r), "Liftoff!", "text");
      assertEqual(
        logs.map((l) => `${l.level}:${l.data}`),
        ["info:countdown at 2", "info:countdown at 1"],
        "log notifications",
      );
    });
    await check("greet via MRTR elicitation -> Hello, Ada!", async () => {
      elicitations.length = 0;
      const r = await client.callTool({ name: "greet", arguments: {} }, REQ);
      assertEqual(textOf(r), "Hello, Ada!", "text");
      assertEqual(elicitations.length, 1, "elicitation handler calls");
      assertEqual(elicitations[0].message, "What is your name?", "elicitation message");
      assert(elicitations[0].requestedSchema?.properties?.name, "requestedSchema lacks 'name'");
    });
    await check("unknown tool is an error", async () => {
      let r;
      try {
        r = await client.callTool({ name: "no_such_tool", arguments: {} }, REQ);
      } catch {
        return; // protocol error: fine
      }
      assert(r.isError === true, `expected an error, got ${JSON.stringify(r)}`);
    });
    await check("resources/list + read info://about", async () => {
      const { resources } = await client.listResources(undefined, REQ);
      assert(
        resources.some((x) => x.uri === "info://about"),
        `resources: ${JSON.stringify(resources)}`,
      );
      const { contents } = await client.readResource({ uri: "info://about" }, REQ);
      assertEqual(contents.length, 1, "contents length");
      assertEqual(contents[0].mimeType, "text/markdown", "mimeType");
      assert(contents[0].text.startsWith("# Engine test app"), `text: ${JSON.stringify(contents[0].text)}`);
    });
    await check("resource template units://kelvin", async () => {
      const { resourceTemplates } = await client.listResourceTemplates(undefined, REQ);
      assert(
        resourceTemplates.some((t) => t.uriTemplate === "units://{unit}"),
        "template not listed",
      );
      const { contents } = await client.readResource({ uri: "units://kelvin" }, REQ);
      assert(/^Kelvin: the SI unit/.test(contents[0]?.text ?? ""), `text: ${JSON.stringify(contents)}`);
    });
    await check("prompts/get explain_unit", async () => {
      const { prompts } = await client.listPrompts(undefined, REQ);
      assert(
        prompts.some((p) => p.name === "explain_unit"),
        "explain_unit not listed",
      );
      const r = await client.getPrompt({ name: "explain_unit", arguments: { unit: "kelvin" } }, REQ);
      assertEqual(r.messages.length, 1, "messages length");
      assertEqual(r.messages[0].role, "user", "role");
      assertEqual(r.messages[0].content, { type: "text", text: "Explain the kelvin temperature scale in two sentences." }, "content");
    });
    await check("completion/complete for explain_unit", async () => {
      const r = await client.complete({ ref: { type: "ref/prompt", name: "explain_unit" }, argument: { name: "unit", value: "k" } }, REQ);
      assertEqual(r.completion.values, ["kelvin"], "values");
    });
  } finally {
    await closeQuietly(client);
  }
}

/** `mode: 'auto'` must probe server/discover and settle on the modern era. */
async function autoRun(url, { check }) {
  let client;
  try {
    await check("auto: negotiates the modern era (2026-07-28)", async () => {
      client = await connect(url, { mode: "auto" }, []);
      assertEqual(client.getProtocolEra(), "modern", "era");
      assertEqual(client.getNegotiatedProtocolVersion(), "2026-07-28", "negotiated version");
      const r = await client.callTool({ name: "greet", arguments: {} }, REQ);
      assertEqual(textOf(r), "Hello, Ada!", "greet text in auto mode");
    });
  } finally {
    await closeQuietly(client);
  }
}

/** @returns {Promise<{passed: number, failed: number, results: object[]}>} */
export async function runClientModern(url) {
  const checks = createChecks("client-modern");
  await pinnedRun(url, checks);
  await autoRun(url, checks);
  return checks.counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startWrangler({ config: "test/engine/app/wrangler.toml" });
  let counts;
  try {
    counts = await runClientModern(server.url);
  } finally {
    await server.stop();
  }
  console.log(`client-modern: ${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}
