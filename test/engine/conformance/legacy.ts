/**
 * Fixtures of the 2025-11-25 requirement set (sessions). They are written
 * take-or-require too, so the same handler asks through a session request
 * on 2025-11-25 and through an InputRequiredResult on 2026-07-28.
 */
import * as v from "valibot";
import { defineResource, defineTool, elicit, sample } from "../../../src/mcp";
import { sampledText, sleep } from "./fixtures";

const accepted = (answer: { action: string; content?: unknown }) =>
  `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;

export const legacyTools = [
  defineTool({
    name: "test_tool_with_logging",
    description: "Tests tool that emits log messages during execution",
    handler: async (_args, ctx) => {
      ctx.log("info", "Tool execution started");
      await sleep(50);
      ctx.log("info", "Tool processing data");
      await sleep(50);
      ctx.log("info", "Tool execution completed");
      return "Tool with logging executed successfully";
    },
  }),
  defineTool({
    name: "test_sampling",
    description: "Tests server-initiated sampling (LLM completion request)",
    input: v.object({ prompt: v.pipe(v.string(), v.description("The prompt to send to the LLM")) }),
    handler: ({ prompt }, ctx) => {
      const { reply } = ctx.input.ask({ reply: sample(prompt, 100) });
      return `LLM response: ${sampledText(reply)}`;
    },
  }),
  defineTool({
    name: "test_elicitation",
    description: "Tests server-initiated elicitation (user input request)",
    input: v.object({ message: v.pipe(v.string(), v.description("The message to show the user")) }),
    handler: ({ message }, ctx) => {
      const { user } = ctx.input.ask({
        user: elicit(
          message,
          {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          ["username", "email"],
        ),
      });
      return `User response: ${accepted(user)}`;
    },
  }),
  defineTool({
    name: "test_elicitation_sep1034_defaults",
    description: "Tests elicitation with default values per SEP-1034",
    handler: (_args, ctx) => {
      const { form } = ctx.input.ask({
        form: elicit(
          "Please review and update the form fields with defaults",
          {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
          [],
        ),
      });
      return `Elicitation completed: ${accepted(form)}`;
    },
  }),
  defineTool({
    name: "test_elicitation_sep1330_enums",
    description: "Tests elicitation with enum schema improvements per SEP-1330",
    handler: (_args, ctx) => {
      const { form } = ctx.input.ask({
        form: elicit(
          "Please select options from the enum fields",
          {
            untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
          [],
        ),
      });
      return `Elicitation completed: ${accepted(form)}`;
    },
  }),
  defineTool({
    name: "test_reconnection",
    description: "Tests SSE reconnection: the lane may close the stream mid-call; the result must still arrive",
    handler: async (_args, ctx) => {
      // Close the client's connection mid-call (2025 polling): it reconnects with
      // Last-Event-ID after the retry delay and gets the result from the event log.
      ctx.closeStream(500);
      await sleep(100);
      return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.";
    },
  }),
];

export const watchedResource = defineResource({
  uri: "test://watched-resource",
  name: "watched-resource",
  title: "Watched Resource",
  description: "A resource clients may subscribe to (resources/subscribe, 2025-11-25)",
  mimeType: "text/plain",
  read: () => "Watched resource content",
});
