/** testClient, the in-process helper an app's own tests use: the engine's promises about it. */
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { env } from "cloudflare:test";
import { McpError, defineApp, defineTool, elicit, testClient } from "../../../src/mcp";
import eventsApp from "../app/events-app";

const whoAmI = defineTool({
  name: "who_am_i",
  input: v.object({}),
  handler: (_args, ctx) => `${ctx.principal ?? "anonymous"} with ${(ctx.env as { GREETING?: string }).GREETING ?? "no greeting"}`,
});
const twoRounds = defineTool({
  name: "two_rounds",
  handler: (_args, ctx) => {
    const { first } = ctx.input.ask({ first: elicit("First?", { a: { type: "string" } }) }, { round: 1 });
    const { second } = ctx.input.ask({ second: elicit("Second?", { b: { type: "string" } }) }, { round: 2 });
    return `${String(first.content?.a)} then ${String(second.content?.b)} (state ${JSON.stringify(ctx.input.state)})`;
  },
});
const notifies = defineTool({
  name: "notifies",
  handler: async (_args, ctx) => {
    ctx.log("info", "about to publish");
    await ctx.notify.resourceUpdated("memo://1");
    return "done";
  },
});
// Asks `n` questions, one per round, as a long wizard would.
const asksMany = defineTool({
  name: "asks_many",
  input: v.object({ n: v.number() }),
  handler: ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) ctx.input.ask({ [`q${i}`]: elicit(`Question ${i}?`, { a: { type: "string" } }) }, { asked: i });
    return `answered ${n}`;
  },
});
const app = defineApp({ info: { name: "test-client-app", version: "0" }, tools: [whoAmI, twoRounds, notifies, asksMany] });

describe("testClient", () => {
  it("passes env and principal to handlers", async () => {
    const c = testClient(app, { env: { GREETING: "hi" } as never, principal: "user-7" });
    expect((await c.callTool(whoAmI, {})).content).toEqual([{ type: "text", text: "user-7 with hi" }]);
  });

  it("answers several rounds of input from the test's answers, carrying the handler's state", async () => {
    const c = testClient(app);
    const result = await c.callTool(
      twoRounds,
      {},
      { answers: { first: { action: "accept", content: { a: "A" } }, second: { action: "accept", content: { b: "B" } } } },
    );
    expect(result.content).toEqual([{ type: "text", text: 'A then B (state {"round":2})' }]);
  });

  it("a question the test did not answer fails with the key and the request", async () => {
    const c = testClient(app);
    await expect(c.callTool(twoRounds, {}, { answers: { first: { action: "accept", content: { a: "A" } } } })).rejects.toThrow(
      /"second".*elicitation\/create.*Second\?/,
    );
  });

  it("gives up after the same 16 requests as the real client, so a tool that passes here does not loop in a host", async () => {
    const c = testClient(app, {});
    const answers = () => ({ action: "accept" as const, content: { a: "x" } });
    // 15 questions: 15 input rounds, then the result on the 16th request.
    expect((await c.callTool(asksMany, { n: 15 }, { answers })).content).toEqual([{ type: "text", text: "answered 15" }]);
    await expect(c.callTool(asksMany, { n: 16 }, { answers })).rejects.toThrow(/still asked for input after 16 rounds/);
  });

  it("records emitted log messages and what the handler published", async () => {
    const c = testClient(app);
    await c.callTool(notifies, {});
    expect(c.record.notifications).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "about to publish" } },
    ]);
    expect(c.record.published).toEqual([{ method: "notifications/resources/updated", uri: "memo://1" }]);
  });

  it("a protocol error (unknown tool) rejects with the McpError", async () => {
    const c = testClient(app);
    // The types refuse an unknown name; the cast stands for a name that only exists at run time.
    const callByName = c.callTool as (name: string, args: object) => Promise<unknown>;
    const err = await callByName("no_such_tool", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
  });

  it("request() serves an extension's methods in-process: events/list and events/poll of an app with events", async () => {
    const c = testClient(eventsApp, { env: env as never });
    const { events } = await c.request("events/list");
    expect(events.map((e: { name: string }) => e.name)).toContain("test_event");
    const polled = await c.request("events/poll", { name: "test_event", arguments: { topic: "fork-test" } });
    expect(polled).toHaveProperty("cursor");
    // An unknown method rejects with the McpError a client would get.
    await expect(c.request("events/nope")).rejects.toMatchObject({ code: -32601 });
  });
});
