/**
 * A fork testing its mount in its own tests (docs/testing.md, "Testing a mount"): the upstream is an
 * app of the test's own, served in-process by createMcpWorker and handed to the mount as a service
 * binding in testClient's env. No server to start, no network: the mount's client speaks MCP to it
 * as it would to another Worker.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { createMcpWorker, defineApp, defineTool, mountServer, testClient } from "../../../src/mcp";

// The upstream as the test defines it: one tool, the shape of the real one.
const upstream = createMcpWorker(
  defineApp({
    info: { name: "notes-upstream", version: "1.0.0" },
    tools: [defineTool({ name: "create_note", input: v.object({ title: v.string() }), handler: ({ title }) => `noted: ${title}` })],
  }),
);
// A service binding's shape: what the mount calls when `url` gives it one.
const notes = {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => upstream.fetch(new Request(input, init), env, createExecutionContext()),
};

// The fork's app, as src/server.ts would mount the real upstream by its binding.
const gateway = defineApp({
  info: { name: "gateway", version: "1.0.0" },
  mounts: [mountServer({ prefix: "notes", url: (e: { NOTES_MCP: Fetcher }) => e.NOTES_MCP })],
});

describe("testing a mount in a fork's tests", () => {
  it("testClient reaches the mounted tool through a service binding to an in-process upstream", async () => {
    const client = testClient(gateway, { env: { ...env, NOTES_MCP: notes } as never });
    expect((await client.listTools()).map((t) => t.name)).toEqual(["notes_create_note"]);
    const result = await client.callTool("notes_create_note" as never, { title: "groceries" } as never);
    expect(result.content).toEqual([{ type: "text", text: "noted: groceries" }]);
  });
});
