/**
 * What the conformance client does for each scenario the official suite
 * runs against a client: the suite plays the server and judges the
 * requests; these are the calls an app would make.
 */
import { McpClient, type McpClientOptions } from "../../../src/engine/client";
import { SkillVerificationError, listSkills, loadSkill, readSkillFile } from "../../../src/engine/client/skills";
import { conformanceHandlers } from "./handlers";
import { runAuthScenario } from "./auth";

export type Scenario = (url: string, options: McpClientOptions) => Promise<void>;

const connect = (url: string, options: McpClientOptions) => McpClient.connect(url, { handlers: conformanceHandlers(), ...options });

/** List the tools and call the first with two numbers (the suite's add_numbers). */
const basic: Scenario = async (url, options) => {
  const client = await connect(url, options);
  const { tools } = await client.listTools();
  if (tools[0]) await client.callTool(tools[0].name, { a: 2, b: 3 });
  await client.close();
};

const listOnly: Scenario = async (url, options) => {
  const client = await connect(url, options);
  await client.listTools();
  await client.close();
};

/** Everything that carries a routing header: each tool, resource and prompt once. */
const everything: Scenario = async (url, options) => {
  const client = await connect(url, options);
  for (const tool of (await client.listTools()).tools) await client.callTool(tool.name, {});
  for (const r of (await client.listResources()).resources) await client.readResource(r.uri);
  for (const p of (await client.listPrompts()).prompts) await client.getPrompt(p.name, {});
  await client.close();
};

const customHeaders: Scenario = async (url, options) => {
  const client = await connect(url, options);
  await client.listTools();
  await client.callTool("test_custom_headers", {
    region: "us-west1",
    priority: 42,
    verbose: false,
    debug: true,
    empty_val: "",
    method_val: "custom",
    float_val: 3.14,
    non_ascii_val: "日本語",
    whitespace_val: "  padded  ",
    leading_space_val: " leading",
    trailing_space_val: "trailing ",
    internal_space_val: "internal space",
    control_char_val: "bell\u0007",
    crlf_val: "line1\r\nline2",
    tab_val: "\ttabbed",
    query: "not mirrored",
  });
  await client.callTool("test_custom_headers_null", { region: "eu", priority: 1, verbose: null, query: "q" });
  await client.close();
};

/** Calls every tool the client kept; the ones with broken x-mcp-header annotations are not among them. */
const invalidToolHeaders: Scenario = async (url, options) => {
  const client = await connect(url, options);
  for (const tool of (await client.listTools()).tools) await client.callTool(tool.name, { region: "us-east1" });
  await client.close();
};

/** The multi-round loop, with an unrelated call made while the user is being asked (it must carry nothing of the loop). */
const requestState: Scenario = async (url, options) => {
  let client!: McpClient;
  const handlers = conformanceHandlers({
    elicitation: async () => {
      await client.callTool("test_mrtr_unrelated", {});
      return { action: "accept", content: { confirmed: true } };
    },
  });
  client = await connect(url, { ...options, handlers });
  await client.listTools();
  await client.callTool("test_mrtr_echo_state", {});
  await client.callTool("test_mrtr_no_state", {});
  await client.callTool("test_mrtr_no_result_type", {});
  await client.close();
};

/** The suite asks with a form whose fields have defaults; the handlers accept them. */
const elicitationDefaults: Scenario = async (url, options) => {
  const client = await connect(url, options);
  const { tools } = await client.listTools();
  for (const tool of tools) await client.callTool(tool.name, {});
  await client.close();
};

/** The server closes the tool's stream after a priming event; the client waits `retry` and resumes with GET. */
const sseRetry: Scenario = async (url, options) => {
  const client = await connect(url, options);
  await client.listTools();
  await client.callTool("test_reconnection", {});
  await client.close();
};

/** Hands the focal tool's inputSchema back, verbatim, to the echo tool: the suite checks nothing was lost. */
const schemaPreservation: Scenario = async (url, options) => {
  const client = await connect(url, options);
  const tools = await client.listAllTools();
  const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
  if (!focal) throw new Error("the server listed no json_schema_2020_12_tool");
  await client.callTool("json_schema_echo", { schema: focal.inputSchema });
  await client.close();
};

/** Skills: listing reads no file. */
const skillsListed: Scenario = async (url, options) => {
  const client = await connect(url, options);
  await listSkills(client);
  await client.close();
};

/** Skills, as an agent uses them: load each skill, and read its other files only when it verified. */
const skillsUsed: Scenario = async (url, options) => {
  const client = await connect(url, options);
  for (const entry of (await listSkills(client)).skills) {
    try {
      await loadSkill(client, entry);
    } catch (err) {
      if (!(err instanceof SkillVerificationError)) throw err;
      console.error(`not loaded: ${err.message}`);
      continue;
    }
    if (entry.resources !== "dynamic")
      for (const file of entry.resources) if (file.uri !== entry.uri) await readSkillFile(client, entry, file.uri);
  }
  await client.close();
};

export const SCENARIOS: Record<string, Scenario> = {
  initialize: basic,
  tools_call: basic,
  "request-metadata": listOnly,
  "json-schema-ref-no-deref": listOnly,
  "http-standard-headers": everything,
  "http-custom-headers": customHeaders,
  "http-invalid-tool-headers": invalidToolHeaders,
  "sep-2322-client-request-state": requestState,
  "elicitation-sep1034-client-defaults": elicitationDefaults,
  "sse-retry": sseRetry,
  "json-schema-2020-12-preservation": schemaPreservation,
  "sep-2640-client-no-prefetch": skillsListed,
  "sep-2640-client-verify-digest": skillsUsed,
  "sep-2640-client-verify-size": skillsUsed,
  "sep-2640-client-verify-frontmatter": skillsUsed,
};

export function scenarioFor(name: string): Scenario | undefined {
  if (name.startsWith("auth/")) return (url, options) => runAuthScenario(name, url, options);
  return SCENARIOS[name];
}
