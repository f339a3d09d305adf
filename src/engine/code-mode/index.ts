/**
 * `codeMode()` (docs/code-mode.md): a surface of two tools, `search_tools` and `execute`. The model
 * finds tools (each answered with its TypeScript declaration) and then writes the body of an async
 * function that calls them as `await tools.name(args)`; the body runs in a Dynamic Worker
 * (sandbox.ts), and every `tools.x()` is an inner call of the outer request (`ctx.callTool`), so
 * scopes, middleware, rate limits, input rounds, spans and log lines govern it as a direct call.
 * Without a `LOADER` binding (the Workers Free plan has no Dynamic Workers) it serves tool search
 * (`search_tools` and `call_tool`) instead, and says so in the log once.
 */
import * as v from "valibot";
import type { Surface, ToolDefinition } from "../mcp/app";
import type { HandlerContext } from "../mcp/context";
import { toolError } from "../mcp/errors";
import { mountedTool } from "../mcp/mounts";
import { compileTool, type ExtensionHooks, type Registry } from "../mcp/registry";
import { allTools, mayCall } from "../mcp/surfaces/catalog";
import { toolSearch, type ToolSearchOptions } from "../mcp/surfaces/tool-search";
import type { CallToolResult } from "../mcp/types";
import { declarationOf } from "./declarations";
import { render } from "./instrument";
import { instrumented } from "./prepared-cache";
import { CallBudgetSpent, ToolPort, runSandboxed, type RunOutcome, type SandboxLimits } from "./sandbox";

const EXECUTE = "execute";
const SEARCH_TOOLS = "search_tools";
const CALL_TOOL = "call_tool";

export interface CodeModeOptions extends ToolSearchOptions {
  /** Wall-clock time of one `execute`, inner calls included (default 10 000 ms). */
  timeoutMs?: number;
  /** CPU time of the sandbox on Cloudflare (default 1 000 ms; workerd has no CPU limit, `steps` stands in). */
  cpuMs?: number;
  /** Inner calls one `execute` may make (default 50). */
  maxCalls?: number;
  /** Loop iterations and function calls the code may make (default 10 000 000). */
  steps?: number;
  /** Characters of the result's JSON, and of the console output, answered (defaults 32 768 and 8 192). */
  maxResultChars?: number;
  maxLogChars?: number;
  /** Characters of code `execute` accepts (default 65 536). */
  maxCodeChars?: number;
}

/** Each option's default and range, for the app check and the resolved limits. */
const RANGES = {
  timeoutMs: [10_000, 100, 300_000],
  cpuMs: [1_000, 1, 300_000],
  maxCalls: [50, 1, 10_000],
  steps: [10_000_000, 1_000, 1_000_000_000],
  maxResultChars: [32_768, 256, 4_194_304],
  maxLogChars: [8_192, 0, 1_048_576],
  maxCodeChars: [65_536, 64, 1_048_576],
} as const satisfies Record<string, readonly [number, number, number]>;

/** The surface of `search_tools` and `execute` (tool search without a LOADER binding), for `defineApp({ surface })`. */
export function codeMode(options: CodeModeOptions = {}): Surface {
  const { limit, maxLimit } = options;
  const search = toolSearch({ limit, maxLimit });
  const problems = [...search.problems];
  const resolved = {} as Record<keyof typeof RANGES, number>;
  for (const [name, [fallback, min, max]] of Object.entries(RANGES) as [keyof typeof RANGES, (typeof RANGES)[keyof typeof RANGES]][]) {
    const value = options[name] ?? fallback;
    if (!Number.isInteger(value) || value < min || value > max)
      problems.push(`${name} must be a whole number from ${min} to ${max} (got ${String(options[name])})`);
    resolved[name] = value;
  }
  const limits: SandboxLimits = {
    cpuMs: resolved.cpuMs,
    timeoutMs: resolved.timeoutMs,
    maxCalls: resolved.maxCalls,
    steps: resolved.steps,
    resultBytes: resolved.maxResultChars,
    logBytes: resolved.maxLogChars,
  };
  return {
    kind: "codeMode",
    names: [SEARCH_TOOLS, EXECUTE, CALL_TOOL],
    problems,
    install(registry) {
      if (problems.length > 0) throw new Error(`codeMode: ${problems[0]}`);
      // Tool search's two tools first (the seam, surfaces/surface.ts), then execute beside them.
      search.install(registry);
      const reg = registry as Registry;
      const [plainSearch, callTool] = [reg.tools.get(SEARCH_TOOLS)!, reg.tools.get(CALL_TOOL)!];
      const compiled = [compileTool(declaringSearch(reg, plainSearch.def)), compileTool(executeTool(reg, limits, resolved.maxCodeChars))];
      for (const tool of compiled) reg.tools.set(tool.def.name, tool);
      reg.toolList = compiled.map((t) => t.wire);
      reg.legacyToolList = reg.toolList;
      reg.surface = { ...reg.surface!, kind: "codeMode", names: new Set([SEARCH_TOOLS, EXECUTE, CALL_TOOL]) };
      servedByBinding(reg, [plainSearch.wire, callTool.wire]);
    },
  };
}

/**
 * What this Worker lists and serves, by its bindings: `search_tools` (answering declarations) and
 * `execute` with a LOADER binding; tool search's own two tools (`searchList`) without one.
 */
function servedByBinding(reg: Registry, searchList: Record<string, unknown>[]): void {
  const ext: ExtensionHooks = (reg.ext ??= { methods: new Map(), perClient: new Set() });
  const { tools, hidden } = ext;
  let told = false;
  const sandboxless = (ctx: HandlerContext<any>) => {
    if (ctx.env?.LOADER) return false;
    if (!told) {
      told = true;
      console.warn(
        JSON.stringify({
          mcp: "code_mode_without_loader",
          message:
            'codeMode(): this Worker has no LOADER binding (Dynamic Workers; the Workers Free plan has none), so it serves search_tools and call_tool instead of execute. Add [[worker_loaders]] binding = "LOADER" to wrangler.toml (docs/code-mode.md).',
        }),
      );
    }
    return true;
  };
  ext.tools = (ctx, all) => (sandboxless(ctx) ? (tools?.(ctx, searchList) ?? searchList) : tools?.(ctx, all));
  ext.hidden = (ctx, name) => name === (sandboxless(ctx) ? EXECUTE : CALL_TOOL) || (hidden?.(ctx, name) ?? false);
}

/** `search_tools` answering each tool's TypeScript declaration in place of its input schema, when execute is served. */
function declaringSearch(reg: Registry, search: ToolDefinition<any, any, any>): ToolDefinition<any, any, any> {
  return {
    ...search,
    description: `Find this server's tools by what they do (keywords or a sentence). Answers each with its TypeScript declaration, to call from ${EXECUTE} as \`await tools.name(args)\`.`,
    async handler(args: unknown, ctx: HandlerContext<any>) {
      const result = (await search.handler(args as never, ctx)) as CallToolResult;
      if (!ctx.env?.LOADER || result.isError) return result;
      const found = ((result.structuredContent as { tools?: Record<string, unknown>[] } | undefined)?.tools ?? []).map((t) => {
        const name = String(t.name);
        const declaration = declarationOf({ ...t, name, outputSchema: reg.tools.get(name)?.wire.outputSchema });
        return { name, title: t.title, declaration };
      });
      return { content: [{ type: "text", text: found.map((t) => t.declaration).join("\n") }], structuredContent: { tools: found } };
    },
  };
}

function executeTool(reg: Registry, limits: SandboxLimits, maxCodeChars: number): ToolDefinition<any, any, any> {
  return {
    name: EXECUTE,
    description:
      `Run JavaScript: the body of an async function with \`tools\` in scope. \`await tools.name(args)\` calls a tool ` +
      `(${SEARCH_TOOLS} gives each one's TypeScript declaration) and resolves to its result, or rejects with its error. ` +
      `\`return\` the answer (JSON); console output comes back too. No network; at most ${limits.maxCalls} calls and ${limits.timeoutMs / 1000} s.`,
    input: v.object({ code: v.pipe(v.string(), v.minLength(1), v.maxLength(maxCodeChars)) }),
    async handler({ code }: { code: string }, ctx: HandlerContext<any>) {
      const loader = ctx.env?.LOADER as WorkerLoader | undefined;
      if (!loader) return toolError(`${EXECUTE} needs the LOADER binding (docs/code-mode.md); use ${CALL_TOOL}`);
      const parsed = instrumented(code);
      if (!parsed.ok) return toolError(parsed.message);
      // Names the code cannot know beforehand, so it cannot shadow or reset the step budget (instrument.ts).
      const id = crypto.randomUUID().replaceAll("-", "");
      const fnNames = { fn: `__code_${id}`, step: `__step_${id}` };
      const names = (await allTools(reg, ctx)).map((t) => t.name).filter((name) => mayCall(reg, ctx, name));
      // Any tool of the app the code names goes to the inner call, whose scope check may refuse it (403 step-up).
      const known = (name: string) =>
        !reg.surface?.names.has(name) &&
        (reg.tools.has(name) || mountedTool(reg.mounts, name) !== undefined) &&
        !reg.ext?.hidden?.(ctx, name);
      const port = new ToolPort(ctx.callTool!, known, limits.maxCalls);
      try {
        return answer(await runSandboxed(loader, render(parsed, fnNames.fn, fnNames.step), fnNames, port, names, limits));
      } catch (stop) {
        if (stop instanceof CallBudgetSpent) return toolError(stop.message);
        // A refusal (insufficient scope, a middleware's McpError, an input round): the outer call's, as thrown.
        throw stop;
      }
    },
  };
}

/** The outer call's result: the returned JSON (cut where too long, and said so) and the console lines. */
function answer(outcome: RunOutcome): CallToolResult {
  const console = outcome.logs.length > 0 || outcome.logsCut > 0 ? logText(outcome) : "";
  if (!outcome.ok) return toolError(`${outcome.error}${console}`);
  const cut = outcome.cut > 0 ? `… [cut: ${outcome.cut} more characters]` : "";
  const text = outcome.json === undefined ? "undefined" : outcome.json + cut;
  const structured: Record<string, unknown> = { logs: outcome.logs };
  if (outcome.json !== undefined) structured.result = cut ? outcome.json + cut : JSON.parse(outcome.json);
  if (cut) structured.resultCut = outcome.cut;
  if (outcome.logsCut > 0) structured.logsCut = outcome.logsCut;
  return { content: [{ type: "text", text: text + console }], structuredContent: structured };
}

const logText = (o: RunOutcome) => `\n\nconsole:\n${o.logs.join("\n")}${o.logsCut > 0 ? `\n… [cut: ${o.logsCut} more console lines]` : ""}`;
