/**
 * The `search_tools` tool every surface lists (toolSearch, codeMode): finds the app's tools (its own,
 * mounted and imported ones) by what they do, among those the caller may call, and answers each with
 * what a model needs to call it. The index is built once per isolate, when first searched, and again
 * only when the tools change (a mounted server's list did).
 */
import * as v from "valibot";
import type { ToolDefinition } from "../app";
import type { HandlerContext } from "../context";
import type { Registry } from "../registry";
import { allTools, mayCall, type ListedTool } from "./catalog";
import { buildIndex, type SearchIndex } from "./search-index";

/** A found tool as search_tools answers it: what a model needs to call it. */
interface FoundTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

interface SearchToolOptions {
  /** How many matches it answers when the model asks for no number. */
  limit: number;
  /** The most it answers whatever the model asks for. */
  maxLimit: number;
  /** Its description: what the surface's other tool does with what it finds. */
  description: string;
  /** Adds what the surface needs beside each found tool (codeMode: its TypeScript declaration). */
  decorate?: (found: FoundTool[]) => Record<string, unknown>;
}

const describe = (t: ListedTool): FoundTool => ({
  name: t.name,
  title: (t.title ?? (t.annotations as { title?: string } | undefined)?.title) as string | undefined,
  description: t.description as string | undefined,
  inputSchema: t.inputSchema,
});

function searcher(reg: Registry): (ctx: HandlerContext<any>) => Promise<{ tools: ListedTool[]; index: SearchIndex }> {
  let built: { key: string; tools: ListedTool[]; index: SearchIndex } | undefined;
  return async (ctx) => {
    const tools = await allTools(reg, ctx);
    // Own and imported tools never change in an isolate; a mounted server's list may.
    const key = reg.mounts ? tools.map((t) => t.name).join("\n") : "";
    if (built?.key !== key || built.tools.length !== tools.length) {
      const index = buildIndex(
        tools.map((t) => {
          const { name, title, description } = describe(t);
          return { name, title, description, args: Object.keys((t.inputSchema as { properties?: object } | undefined)?.properties ?? {}) };
        }),
      );
      built = { key, tools, index };
    }
    return built;
  };
}

/** `search_tools` over `reg`'s tools. */
export function searchTool(reg: Registry, options: SearchToolOptions): ToolDefinition<any, any, any> {
  const find = searcher(reg);
  return {
    name: "search_tools",
    description: options.description,
    annotations: { readOnlyHint: true },
    input: v.object({
      query: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(options.maxLimit))),
    }),
    async handler({ query, limit }: { query: string; limit?: number }, ctx: HandlerContext<any>) {
      const { tools, index } = await find(ctx);
      const hits = index.search(query, (i) => mayCall(reg, ctx, tools[i]!.name), limit ?? options.limit);
      const found = hits.map((i) => describe(tools[i]!));
      const structured = { tools: found, ...options.decorate?.(found) };
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    },
  };
}
