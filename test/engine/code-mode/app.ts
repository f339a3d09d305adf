/**
 * The Code Mode fixture app (test/engine/integration/code-mode.test.ts, bench/code-mode.mjs): a few
 * note tools behind `codeMode()`, with a scoped one (`admin_purge` needs `admin`), one that fails as a
 * tool (`always_fails`), one only text answers (`users_get-by-username`, a name that is no
 * identifier), one that asks the user (`notes_rename`), and a middleware step that records every tool operation it sees and refuses
 * `middleware_refused` with a JSON-RPC error. Its own Worker entry and wrangler.toml bind the Worker
 * Loader (LOADER) that the sandbox runs in; the engine tests bind one in vitest.engine.config.ts.
 */
import * as v from "valibot";
import {
  ErrorCode,
  McpError,
  ToolError,
  codeMode,
  elicit,
  defineApp,
  defineAuthorization,
  defineMiddleware,
  defineTool,
  type CodeModeOptions,
} from "../../../src/mcp";

/** Every tool name the middleware step saw, in order (tests clear it). */
export const seenByMiddleware: string[] = [];

const notes = new Map<number, { id: number; title: string; text: string }>();

export const codeModeTools = [
  defineTool({
    name: "notes_add",
    title: "Add a note",
    description: "Save a note and answer its id.",
    input: v.object({ title: v.string(), text: v.string() }),
    output: v.object({ id: v.number(), title: v.string() }),
    handler: ({ title, text }) => {
      const id = notes.size + 1;
      notes.set(id, { id, title, text });
      return { id, title };
    },
  }),
  defineTool({
    name: "notes_get",
    title: "Read a note",
    description: "Read one note by its id.",
    input: v.object({ id: v.number() }),
    annotations: { readOnlyHint: true },
    handler: ({ id }) => {
      const note = notes.get(id);
      if (!note) throw new ToolError(`No note ${id}`);
      return { content: [{ type: "text" as const, text: note.text }], structuredContent: note };
    },
  }),
  defineTool({
    name: "users_get-by-username",
    title: "Get a user",
    description: "Answer a user's profile line by username.",
    input: v.object({ username: v.string() }),
    handler: ({ username }) => `user ${username}`,
  }),
  defineTool({
    name: "always_fails",
    description: "Fails as a tool, every time.",
    handler: () => {
      throw new ToolError("it failed on purpose");
    },
  }),
  defineTool({
    name: "admin_purge",
    description: "Delete every note (administrators only).",
    annotations: { destructiveHint: true },
    scopes: ["admin"],
    handler: () => "purged",
  }),
  defineTool({
    name: "notes_rename",
    description: "Rename a note; asks the user for the new title.",
    input: v.object({ title: v.string() }),
    handler: ({ title }, ctx) => {
      const { name } = ctx.input.ask({ name: elicit(`New title for ${title}?`, { title: { type: "string" } }, ["title"]) });
      return name.action === "accept" ? `Renamed ${title} to ${String(name.content?.title)}` : "Kept the old title";
    },
  }),
  defineTool({
    name: "middleware_refused",
    description: "A tool the app's middleware never lets through.",
    handler: () => "never",
  }),
];

/** The app with `options` for codeMode (the tests make a few with tight limits). */
export const codeModeApp = (options: CodeModeOptions = {}) =>
  defineApp({
    info: { name: "code-mode-fixture", version: "1.0.0" },
    tools: codeModeTools,
    authorization: defineAuthorization({ allowUnauthenticated: true }),
    use: [
      defineMiddleware(async (op, next) => {
        if (op.method === "tools/call" && op.name) seenByMiddleware.push(op.name);
        if (op.name === "middleware_refused") throw new McpError(ErrorCode.InvalidRequest, "middleware_refused is refused by policy");
        return next();
      }),
    ],
    surface: codeMode(options),
  });

export default codeModeApp();
