/**
 * A fixture app with per-user state (ctx.user, docs/state.md): tools that keep, read, list and delete
 * JSON values, two that use the app's own table (notes, from its migration), one that fills the state
 * towards its (small) bound, and a task tool whose runs keep a value. What
 * test/engine/integration/user-state.test.ts calls through /mcp on both revisions. Its session, task and
 * user classes are bound only in the engine tests (vitest-index.ts), so the engine app's bundle,
 * which the budget measures, carries none of this.
 */
import * as v from "valibot";
import { defineApp, defineTool, durableTask, userState } from "../../../src/mcp";

/** Small, so that a test reaches it in a few calls. */
export const USER_STATE_MAX_BYTES = 64 * 1024;

const json = (value: unknown) => JSON.stringify(value ?? null);

export default defineApp({
  info: { name: "user-state-app", version: "1.0.0" },
  userState: userState({
    migrations: ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)"],
    maxBytes: USER_STATE_MAX_BYTES,
  }),
  tools: [
    defineTool({
      name: "remember",
      input: v.object({ key: v.string(), value: v.unknown() }),
      handler: async ({ key, value }, ctx) => {
        await ctx.user.put(key, value);
        return "kept";
      },
    }),
    defineTool({ name: "recall", input: v.object({ key: v.string() }), handler: async ({ key }, ctx) => json(await ctx.user.get(key)) }),
    defineTool({ name: "forget", input: v.object({ key: v.string() }), handler: async ({ key }, ctx) => json(await ctx.user.delete(key)) }),
    defineTool({
      name: "keys",
      input: v.object({ prefix: v.optional(v.string()), after: v.optional(v.string()), limit: v.optional(v.number()) }),
      handler: async (args, ctx) => json(await ctx.user.list(args)),
    }),
    defineTool({
      name: "add_note",
      input: v.object({ text: v.string() }),
      handler: async ({ text }, ctx) => json(await ctx.user.sql("INSERT INTO notes (text) VALUES (?) RETURNING id", text)),
    }),
    defineTool({ name: "notes", handler: async (_args, ctx) => json(await ctx.user.sql("SELECT text FROM notes ORDER BY id")) }),
    defineTool({
      name: "fill",
      description: "Keeps `bytes` characters at `key`.",
      input: v.object({ key: v.string(), bytes: v.number() }),
      handler: async ({ key, bytes }, ctx) => {
        await ctx.user.put(key, "x".repeat(bytes));
        return "kept";
      },
    }),
    defineTool({
      name: "remember_task",
      description: "A task whose run keeps a value and answers what the caller's state then holds at that key.",
      task: durableTask("optional"),
      input: v.object({ key: v.string(), value: v.unknown() }),
      handler: async ({ key, value }, ctx) => {
        const before = await ctx.user.get(key);
        await ctx.step("put", () => ctx.user.put(key, value));
        return json({ before: before ?? null, after: await ctx.user.get(key) });
      },
    }),
  ],
});
