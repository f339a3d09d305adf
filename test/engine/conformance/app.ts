/**
 * The conformance fixture app: exactly what @modelcontextprotocol/conformance
 * calls, for both revisions. Served by test/engine/conformance/index.ts, never part
 * of the example server's bundle.
 */
import { defineApp, defineAuthorization, skills } from "../../../src/mcp";
import { prompts, resources, template } from "./catalog";
import { legacyTools, watchedResource } from "./legacy";
import { mrtrPrompt, mrtrTools } from "./mrtr";
import { taskTools } from "./tasks";
import skillsManifest from "./skills.json";
import { contentTools, schemaTools, statelessTools } from "./tools";
import { eventTools, testEvents } from "./events";

export default defineApp({
  info: { name: "mcp-conformance-fixtures", title: "MCP conformance fixtures", version: "0.1.0" },
  instructions: "Fixtures for the MCP conformance suite (2026-07-28 and 2025-11-25).",
  // test_simple_text must stay first: http-header-validation calls tools[0] with no arguments.
  tools: [...contentTools, ...statelessTools, ...mrtrTools, ...schemaTools, ...legacyTools, ...taskTools, ...eventTools],
  resources: [...resources, watchedResource],
  resourceTemplates: [template],
  prompts: [...prompts, mrtrPrompt],
  // The Skills extension: assets/skills, described by skills.json (the [build] command in wrangler.toml).
  // MCP Events (events.ts): test_event, by webhook and polling.
  extensions: [skills(skillsManifest), testEvents],
  // Scopes are checked for a caller with a token (scopes.ts); one without is served as before.
  // Its anonymous Worker (index.ts) serves the scoped operations to the suite's other scenarios.
  authorization: defineAuthorization({ allowUnauthenticated: true }),
});
