/**
 * A fixture app for edge cases the engine must survive: the logging capability off, handlers that
 * return what their kind of result cannot carry, and URL elicitation (with its 2025 id, completion
 * notification and -32042). Its 2025 sessions live in their own class (EdgeSession, bound as
 * MCP_SESSION_EDGE); tests serve it with `createMcpWorker(edgeApp)` and that binding as MCP_SESSION.
 */
import * as v from "valibot";
import { defineApp, definePrompt, defineResourceTemplate, defineTool, elicitUrl, text, urlElicitationRequired } from "../../../src/mcp";

const LOGIN_URL = "https://login.example.test/start";

export default defineApp({
  info: { name: "edge-app", version: "0.0.0" },
  logging: false,
  tools: [
    defineTool({
      name: "chatty",
      description: "Logs at every level, then answers.",
      handler: (_args, ctx) => {
        ctx.log("debug", "debug line");
        ctx.log("emergency", "emergency line");
        return "done";
      },
    }),
    defineTool({
      name: "overflow",
      description: "Returns a number that overflows to Infinity.",
      input: v.object({ value: v.number() }),
      output: v.object({ result: v.number() }),
      handler: ({ value }) => ({ result: value * 10 }),
    }),
    defineTool({
      name: "sign_in",
      description: "Sends the user to a URL; with `id` it reports the flow complete after the user accepts.",
      input: v.object({ id: v.optional(v.string()) }),
      handler: ({ id }, ctx) => {
        const { login } = ctx.input.ask({ login: elicitUrl("Sign in to continue", LOGIN_URL, id) });
        if (login.action !== "accept") return "not signed in";
        if (id) ctx.completeElicitation(id);
        return "signed in";
      },
    }),
    defineTool({
      name: "sign_in_raw",
      description: "A URL elicitation built by hand, without an elicitationId.",
      handler: (_args, ctx) => {
        const { login } = ctx.input.ask({
          login: { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: LOGIN_URL } },
        });
        return `login: ${login.action}`;
      },
    }),
    defineTool({
      name: "needs_login",
      description: "Cannot go on until the user signed in (URL elicitation required).",
      handler: () => {
        throw urlElicitationRequired([elicitUrl("Sign in first", LOGIN_URL, "login-42")]);
      },
    }),
    defineTool({
      name: "returns_function",
      description: "Returns a content block with a function in it.",
      handler: () => ({ type: "text", text: "hi", extra: () => 1 }) as never,
    }),
  ],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: "bad://{kind}",
      name: "bad",
      // Whatever a lookup found, passed on as is: Object.prototype for "__proto__", garbage otherwise.
      read: ({ kind }) => (kind === "proto" ? ({} as Record<string, unknown>)["__proto__"] : { uri: 42 }) as never,
      complete: { kind: () => "abc" as never },
    }),
  ],
  prompts: [
    definePrompt({
      name: "bad_prompt",
      get: () => [{ role: "system", content: text("not a role MCP has") }] as never,
    }),
  ],
});
