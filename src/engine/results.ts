/**
 * Results that fit the host (docs/results.md): `resultBudget()` gives `defineApp({ results })` the
 * code that cuts a tool result over its budget (mcp/result-budget.ts), keeps the whole in a Durable
 * Object of MCP_TASK (objects/kept-results.ts) and serves it by `resources/read` to the same caller.
 * An app without it carries none of this, and its results go out as the tools return them.
 */
import { ResourceNotFound } from "./mcp/errors";
import {
  DEFAULT_KEEP_SECONDS,
  DEFAULT_MAX_RESULT_CHARS,
  KEPT_PREFIX,
  cutResult,
  isKeptUri,
  resultSize,
  type ResultBudget,
} from "./mcp/result-budget";
import { toBase64url } from "./mcp/base64url";
import type { KeptResultRpc, ObjectBindings } from "./objects/contracts";
import { MAX_KEPT_CHARS, keepingResults } from "./objects/kept-results";

export interface ResultBudgetOptions {
  /**
   * The characters of content a tool result may carry before it is cut and linked (default 50,000,
   * which Claude Code's 25,000-token default holds; a tool's `maxResultChars` replaces it).
   */
  maxChars?: number;
  /** How long the whole of a cut result is kept for `resources/read`, in seconds (default 3600). */
  keepSeconds?: number;
}

const ID = /^[A-Za-z0-9_-]{22}$/;
/** A kept result's object: MCP_TASK's class, made to keep results too (objects/kept-results.ts). */
function stubOf(env: ObjectBindings, id: string) {
  const ns = env.MCP_TASK as unknown as DurableObjectNamespace<KeptResultRpc>;
  return ns.get(ns.idFromName(`result:${id}`));
}
const positive = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n > 0;

/** Tool results cut to a budget and linked to their whole (docs/results.md). Needs MCP_TASK bound for the link. */
export function resultBudget(options: ResultBudgetOptions = {}): ResultBudget & { objectFor: typeof keepingResults } {
  const { maxChars = DEFAULT_MAX_RESULT_CHARS, keepSeconds = DEFAULT_KEEP_SECONDS } = options;
  if (!positive(maxChars) || !positive(keepSeconds)) throw new Error("resultBudget: maxChars and keepSeconds are positive whole numbers");
  let own: Map<string, number | false>;

  /** Keeps the whole for the caller; its URI, or undefined when there is nowhere to keep it. */
  async function keep(env: ObjectBindings, owner: string, whole: string, tool: string): Promise<string | undefined> {
    if (!env.MCP_TASK || whole.length > MAX_KEPT_CHARS) return undefined;
    const id = toBase64url(crypto.getRandomValues(new Uint8Array(16)));
    try {
      await stubOf(env, id).keepResult(owner, whole, Date.now() + keepSeconds * 1000);
      return `${KEPT_PREFIX}${id}`;
    } catch (err) {
      console.error(JSON.stringify({ mcp: "result_not_kept", tool, error: String(err) }));
      return undefined;
    }
  }

  return {
    maxChars,
    install(reg) {
      own = new Map([...reg.tools].flatMap(([name, t]) => (t.def.maxResultChars === undefined ? [] : [[name, t.def.maxResultChars]])));
      const app = reg.methods["resources/read"];
      reg.methods["resources/read"] = {
        // Only its owner reads a kept result (an anonymous caller's: whoever holds the link); to anyone else it does not exist.
        async run(reg, params, ctx) {
          const { uri } = params;
          if (!isKeptUri(uri)) {
            if (!app) throw new ResourceNotFound(String(uri));
            return app.run(reg, params, ctx);
          }
          const id = uri.slice(KEPT_PREFIX.length);
          const env = ctx.env as ObjectBindings;
          const text = env.MCP_TASK && ID.test(id) ? await stubOf(env, id).readKeptResult(ctx.principal ?? "") : undefined;
          if (text === undefined) throw new ResourceNotFound(uri);
          return { contents: [{ uri, mimeType: "application/json", text }] };
        },
      };
    },
    async fit(result, tool, ctx, mirrored) {
      const budget = own.get(tool) ?? maxChars;
      const size = budget === false ? 0 : resultSize(result, mirrored);
      if (budget === false || size <= budget) return result;
      const uri = await keep(ctx.env as ObjectBindings, ctx.principal ?? "", JSON.stringify(result), tool);
      return cutResult(result, budget, { size, uri, keepSeconds, tool });
    },
    objectFor: keepingResults,
  };
}
