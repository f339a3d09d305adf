// Why: hosts cut or refuse a tool result past their limit (Claude Code at 25,000 tokens, claude.ai at about
// 150,000 characters), and a tool whose declared output (its outputSchema in tools/list) is already over
// that at its least has every structured result cut. The rule is the app check's (src/engine/mcp/output-fit.ts),
// applied here to the live tools/list against the strictest common host (or --max-result-chars); outputs
// with no bound under it are information, as a result's size is only known when it is made.
import { FAULTS } from "../faults.mjs";
import { fault } from "../report.mjs";

const NAMED = 5;

export async function resultChecks(ctx, report) {
  const tools = ctx.state.tools;
  if (!tools) return;
  // The strictest common host's limit: Claude Code's 25,000 tokens as 50,000 characters, resultBudget()'s default.
  const { DEFAULT_MAX_RESULT_CHARS, mostJsonChars, outputCannotFit } = ctx.lib;
  const limit = ctx.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const what = ctx.maxResultChars
    ? "the limit given with --max-result-chars"
    : "the strictest common host's limit (Claude Code's 25,000 tokens)";
  await report.step(`declared outputs fit the hosts' limit (${limit} characters)`, () => {
    const declared = tools.filter((t) => t?.outputSchema && typeof t.outputSchema === "object");
    if (!declared.length) return { skip: "no tool declares its output (outputSchema)" };
    const faults = declared.flatMap((t) => {
      const why = outputCannotFit(t, limit, what);
      return why ? [fault("output-cannot-fit", FAULTS.outputCannotFit(why))] : [];
    });
    const open = declared.filter((t) => !outputCannotFit(t, limit, what) && mostJsonChars(t.outputSchema) > limit).map((t) => t.name);
    const names = open.slice(0, NAMED).join(", ") + (open.length > NAMED ? `, and ${open.length - NAMED} more` : "");
    const detail = open.length
      ? `${declared.length - faults.length - open.length} of ${declared.length} bounded within it; ${open.length} may return more (${names}): a host cuts such a result unless the server cuts and links it (resultBudget(), docs/results.md)`
      : `${declared.length - faults.length} of ${declared.length} bounded within it (maxLength, maxItems, closed objects)`;
    return { faults, detail };
  });
}
