/**
 * Compile-time checks of the app API's types (run by the typecheck step; nothing executes): argument
 * types reach handlers and tests, `ask` types each answer by its request, and `ctx.env` is typed.
 * Each `@ts-expect-error` fails the typecheck if the line ever compiles.
 */
import * as v from "valibot";
import { defineApp, defineTool, elicit, listRoots, sample, testClient } from "../../../src/mcp";

const echo = defineTool({
  name: "echo",
  input: v.object({ text: v.string(), times: v.optional(v.number(), 1) }),
  handler: ({ text, times }) => text.repeat(times),
});

const ask = defineTool({
  name: "ask",
  handler: (_args, ctx) => {
    const { who, model, roots } = ctx.input.ask({
      who: elicit("Name?", { name: { type: "string" } }),
      model: sample("Hi"),
      roots: listRoots(),
    });
    // Each answer has its own type, with no `!` needed.
    const action: "accept" | "decline" | "cancel" = who.action;
    const name: string = model.model;
    const count: number = roots.roots.length;
    // @ts-expect-error an elicitation result has no `roots`
    void who.roots;
    // @ts-expect-error env is typed: no such binding
    void ctx.env.NO_SUCH_BINDING.x;
    return `${action} ${name} ${count}`;
  },
});

const app = defineApp({ info: { name: "types", version: "0" }, tools: [echo, ask] });
const c = testClient(app);
void c.callTool(echo, { text: "a" });
void c.callTool("echo", { text: "a", times: 2 });
// @ts-expect-error text must be a string
void c.callTool(echo, { text: 1 });
// @ts-expect-error by name the arguments are typed too
void c.callTool("echo", { text: 1 });
// @ts-expect-error no such tool
void c.callTool("nope", {});
