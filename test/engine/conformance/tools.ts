/**
 * The content, diagnostic and header tools the conformance suite calls.
 * Order matters: `http-header-validation` calls tools[0] with `{}`, so
 * test_simple_text comes first.
 */
import * as v from "valibot";
import { audio, defineTool, embedded, image, missingClientCapability, text, ToolError } from "../../../src/mcp";
import { PNG, WAV, sleep } from "./fixtures";
import { SCOPE } from "./scopes";

export const contentTools = [
  defineTool({
    name: "test_simple_text",
    description: "Tests simple text content response",
    scopes: [SCOPE.toolsCall, SCOPE.simpleText],
    handler: () => "This is a simple text response for testing.",
  }),
  defineTool({
    name: "test_image_content",
    description: "Tests image content response",
    handler: () => image(PNG, "image/png"),
  }),
  defineTool({
    name: "test_audio_content",
    description: "Tests audio content response",
    handler: () => audio(WAV, "audio/wav"),
  }),
  defineTool({
    name: "test_embedded_resource",
    description: "Tests embedded resource content response",
    handler: () => embedded({ uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." }),
  }),
  defineTool({
    name: "test_multiple_content_types",
    description: "Tests response with multiple content types (text, image, resource)",
    handler: () => [
      text("Multiple content types test:"),
      image(PNG, "image/png"),
      embedded({ uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) }),
    ],
  }),
  defineTool({
    name: "test_error_handling",
    description: "Tests error response handling",
    handler: () => {
      throw new ToolError("This tool intentionally returns an error for testing");
    },
  }),
  defineTool({
    name: "test_tool_with_progress",
    description: "Tests tool that reports progress notifications",
    handler: async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100, `Completed step ${step} of 100`);
        if (step < 100) await sleep(50);
      }
      return "Progress test completed";
    },
  }),
];

/** Diagnostic tools of the `server-stateless` scenario (SEP-2575). */
export const statelessTools = [
  defineTool({
    name: "test_missing_capability",
    description: "Needs the sampling client capability; answers -32021 without it",
    handler: (_args, ctx) => {
      if (!ctx.clientCapabilities.sampling) throw missingClientCapability({ sampling: {} });
      return "Success";
    },
  }),
  defineTool({
    name: "test_streaming_elicitation",
    description: "Answers on the response stream without sending any server-to-client request",
    handler: () => "Streaming complete",
  }),
  defineTool({
    name: "test_logging_tool",
    description: "Logs only when the request asks for a log level",
    handler: (_args, ctx) => {
      ctx.log("info", "Logging evaluated");
      return "Logging evaluated";
    },
  }),
  defineTool({
    name: "test_trigger_tool_change",
    description: "Publishes notifications/tools/list_changed to every listener",
    handler: async (_args, ctx) => {
      await ctx.notify.toolsListChanged();
      return "Mutation triggered";
    },
  }),
  defineTool({
    name: "test_trigger_prompt_change",
    description: "Publishes notifications/prompts/list_changed to every listener",
    handler: async (_args, ctx) => {
      await ctx.notify.promptsListChanged();
      return "Mutation triggered";
    },
  }),
];

/** Schema-preservation and SEP-2243 header fixtures (pending scenarios). */
export const schemaTools = [
  defineTool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
    handler: (args) => `Received: ${JSON.stringify(args)}`,
  }),
  defineTool({
    name: "test_custom_header",
    description: "Echoes a value mirrored into the Mcp-Param-Region header",
    input: v.object({
      region: v.pipe(v.string(), v.description("Region"), v.metadata({ "x-mcp-header": "Region" })),
    }),
    handler: ({ region }) => `region=${region}`,
  }),
];
