/**
 * The tool-search fixture app (test/engine/integration/tool-search.test.ts): a few note tools behind
 * `toolSearch()`, with scopes (`notes:write` to delete, `admin` for the audit log), a middleware step
 * that records each tool operation it sees and asks the user to confirm a destructive one, a per-tool
 * rate limit on `echo_limited` (the limiter is in `surfaceLimiter`, one call per caller), and a tool
 * that asks the user a question, and the engine test app mounted as `ex` (its `roll_dice` needs
 * `dice:roll`). Its session class is bound only in the engine tests (vitest-index.ts).
 */
import * as v from "valibot";
import {
  ToolError,
  defineApp,
  defineAuthorization,
  defineMiddleware,
  defineTool,
  elicit,
  mountServer,
  toolRateLimit,
  toolSearch,
} from "../../../src/mcp";

/** Every tool name the middleware step saw, in order (tests clear it). */
export const seenByMiddleware: string[] = [];

/** A limiter that lets each key through once: what the rate-limit test spends. */
const spent = new Set<string>();
export const surfaceLimiter = {
  async limit({ key }: { key: string }) {
    if (spent.has(key)) return { success: false };
    spent.add(key);
    return { success: true };
  },
} as unknown as RateLimit;

const notes = new Map<string, string>([["welcome", "Hello from the notes app"]]);

const tools = [
  defineTool({
    name: "notes_list",
    title: "List notes",
    description: "List the titles of every saved note.",
    annotations: { readOnlyHint: true },
    handler: () => ({
      content: [{ type: "text" as const, text: [...notes.keys()].join(", ") }],
      structuredContent: { titles: [...notes.keys()] },
    }),
  }),
  defineTool({
    name: "notes_read",
    title: "Read a note",
    description: "Read the text of one note by its title.",
    input: v.object({ title: v.string() }),
    annotations: { readOnlyHint: true },
    handler: ({ title }) => {
      const text = notes.get(title);
      if (text === undefined) throw new ToolError(`No note titled ${title}`);
      return text;
    },
  }),
  defineTool({
    name: "notes_delete",
    title: "Delete a note",
    description: "Delete a note for good.",
    input: v.object({ title: v.string() }),
    annotations: { destructiveHint: true },
    scopes: ["notes:write"],
    handler: ({ title }) => `Deleted ${title}`,
  }),
  defineTool({
    name: "audit_log",
    title: "Read the audit log",
    description: "Read the administrators' audit log of every note change.",
    scopes: ["admin"],
    handler: () => "nothing happened",
  }),
  defineTool({
    name: "notes_rename",
    title: "Rename a note",
    description: "Rename a note; asks the user for the new title.",
    input: v.object({ title: v.string() }),
    handler: ({ title }, ctx) => {
      const { name } = ctx.input.ask({ name: elicit(`New title for ${title}?`, { title: { type: "string" } }, ["title"]) });
      if (name.action !== "accept") return "Kept the old title";
      return `Renamed ${title} to ${String(name.content?.title)}`;
    },
  }),
  defineTool({
    name: "echo_limited",
    description: "Echo a word back, at most once per caller.",
    input: v.object({ word: v.string() }),
    handler: ({ word }) => word,
  }),
];

/** Records what it sees, and asks before any destructive tool runs. */
const confirmDestructive = defineMiddleware(async (op, next) => {
  if (op.method !== "tools/call" || !op.name) return next();
  seenByMiddleware.push(op.name);
  const tool = tools.find((t) => t.name === op.name);
  if (!tool?.annotations?.destructiveHint) return next();
  const { sure } = op.ctx.input.ask({ sure: elicit(`Really run ${op.name}?`, { yes: { type: "boolean" } }, ["yes"]) });
  if (sure.action !== "accept" || sure.content?.yes !== true) throw new ToolError(`${op.name} was not confirmed`);
  return next();
});

export default defineApp({
  info: { name: "surface-test-app", version: "1.0.0" },
  tools,
  authorization: defineAuthorization(),
  use: [confirmDestructive, toolRateLimit((env: { SURFACE_LIMIT?: RateLimit }) => env.SURFACE_LIMIT, { tools: ["echo_limited"] })],
  // The engine test app, mounted over the engine tests' service binding: its tools are searched and called too.
  mounts: [
    mountServer({
      prefix: "ex",
      url: (env) => (env as unknown as { MOUNT_UPSTREAM: Fetcher }).MOUNT_UPSTREAM,
      toolScopes: { roll_dice: ["dice:roll"] },
    }),
  ],
  surface: toolSearch(),
});
