/**
 * The middleware chain (docs/middleware.md): ordered steps around every operation, on both
 * revisions, each seeing the operation, its arguments and the caller. The app's `use: [...]` are its
 * steps (plain `(op, next) => …` functions), after those `defineAuthorization` brings (the scope
 * check, hidden lists, the policy). A step lets the operation pass (`return next()`), refuses it (a
 * ToolError on a tools/call is a tool result with isError; an McpError a JSON-RPC error;
 * InsufficientScope the 403 step-up challenge) or observes what `next()` gave; `next()` runs the rest
 * once, and a second call is refused. An app without steps has no chain (registry.ts), and runs none
 * of this per request.
 */
import type { Middleware, Operation, Policy } from "./app";
import type { HandlerContext } from "./context";
import { ErrorCode, McpError, ToolError, toolError } from "./errors";
import { operationOf } from "./operations";

/** The chain as the executor runs it: around the operation's handler (`next`). */
export type Chain = (
  method: string,
  params: Record<string, unknown>,
  ctx: HandlerContext<any>,
  next: () => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

/** The chain of `steps`. */
export const chainOf =
  (steps: readonly Policy[]): Chain =>
  async (method, params, ctx, next) => {
    const named = operationOf(method, params);
    const op: Operation = {
      method,
      kind: named?.kind,
      name: named?.target,
      arguments: named?.arguments ?? params,
      params,
      caller: ctx.caller,
      auth: ctx.auth,
      ctx,
    };
    // The rest of the chain and the operation run once: a step that calls its next() again gets an error.
    const step = (i: number): Promise<Record<string, unknown>> => {
      let passed = 0;
      return i < steps.length ? steps[i]!(op, () => (passed++ ? Promise.reject(twice()) : step(i + 1))) : next();
    };
    try {
      return await step(0);
    } catch (err) {
      // As a handler's: the model reads why its call was refused.
      if (method === "tools/call" && err instanceof ToolError) return { ...toolError(err.message) };
      throw err;
    }
  };

// A function, not a constant: an Error made at start-up costs every isolate its stack trace.
const twice = () => new McpError(ErrorCode.InternalError, "A middleware step called next() twice (docs/middleware.md)");

/**
 * A step of `defineApp({ use: [...] })`, as written: kept for apps written before a plain function
 * could be one (it returns `step`, typed).
 */
export const defineMiddleware = (step: Policy): Middleware => step;
