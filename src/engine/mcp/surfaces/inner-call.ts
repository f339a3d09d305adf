/**
 * Every inner call is an operation (docs/tools-at-scale.md): a surface's tool (`call_tool`, Code
 * Mode's `tools.x()`) calls one of the app's tools through `execute`, the path a direct `tools/call`
 * takes, so the call gets the middleware chain (which sees the inner tool's name), the scope check,
 * the policy, per-tool rate limits, its own span (nested under the outer call's, the active one), its
 * own log line and metrics point. What it answers is what a direct call answers: a CallToolResult,
 * tool errors included; a refusal that is a JSON-RPC error (an insufficient scope: the 403 step-up
 * challenge) becomes the outer request's.
 *
 * Input rounds: a tool that asks the user asks through the outer call. Its requests travel under keys
 * of their own (`<tool>#<n>/<key>`, n counting the calls of that tool in this run of the outer
 * handler), so the outer call's answers (2026: sealed in requestState; 2025: kept with the session's
 * pending call) find their way back to the same inner call when the outer handler runs again. Each
 * inner call's own state rides in the outer call's state under the same prefix.
 */
import type { HandlerContext } from "../context";
import { execute, type ExecuteOptions } from "../execute";
import { isObject } from "../guards";
import { InputRequired, type InputRequest } from "../input";
import type { CallToolResult, Json } from "../types";

/** `ctx.callTool`: calls the app's tool `name` as a tools/call of the same request would. */
type InnerCall = NonNullable<HandlerContext["callTool"]>;

/**
 * The inner-call function of one run of an outer handler: `options` are the outer request's (its
 * revision, caller, answers, state, reporting…). A new run (after the client answered) makes a new one,
 * and the calls count from zero again, so the same call finds the same keys.
 */
export function innerCaller(options: ExecuteOptions): InnerCall {
  const seen = new Map<string, number>();
  // The states every inner call kept so far (from the outer state), carried on whatever round comes next.
  const states: Record<string, Json> = isObject(options.state) ? { ...(options.state as Record<string, Json>) } : {};
  return async (name, args = {}) => {
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    const prefix = `${name}#${n}/`;
    const outcome = await execute(
      "tools/call",
      { name, arguments: args },
      {
        ...options,
        answers: unprefixed(options.answers, prefix),
        state: states[prefix],
        // Progress must increase per request: the outer call's handler reports its own.
        progressToken: undefined,
        // An inner call runs inline: it never becomes a task of its own, nor serves the outer's.
        task: undefined,
        canStartTask: false,
        serve: undefined,
      },
    );
    if (outcome.kind === "result") return outcome.result as unknown as CallToolResult;
    if (outcome.kind === "error") throw outcome.error;
    if (outcome.kind === "input") {
      const { requests, state } = outcome.required;
      const asked: Record<string, InputRequest> = {};
      for (const [key, request] of Object.entries(requests)) asked[prefix + key] = request;
      if (state === undefined) delete states[prefix];
      else states[prefix] = state;
      throw new InputRequired(asked, Object.keys(states).length > 0 ? states : undefined);
    }
    // canStartTask is false, so a handler's startTask() returns at once: no task outcome reaches here.
    throw new Error("An inner call cannot become a task");
  };
}

/** The answers under `prefix`, without it: the inner handler's own keys. */
function unprefixed(answers: Readonly<Record<string, unknown>>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(answers)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}
