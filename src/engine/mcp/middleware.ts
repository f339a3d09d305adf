/**
 * The middleware chain (docs/authorization.md): ordered steps around every operation, on both
 * revisions, each seeing the operation, its arguments and the caller. The app's `use: [...]` are its
 * steps, after those `defineAuthorization` brings (the scope check, hidden lists, the policy). A step
 * lets the operation pass (`return next()`), refuses it (a ToolError on a tools/call is a tool result
 * with isError; an McpError a JSON-RPC error; InsufficientScope the 403 step-up challenge) or observes
 * what `next()` gave. An app without steps has no chain, and runs none of this per request.
 */
import type { Middleware, Operation, Policy } from "./app";
import type { HandlerContext } from "./context";
import { ToolError, toolError } from "./errors";
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
      auth: ctx.auth,
      caller: ctx.caller,
      ctx,
    };
    const step = (i: number): Promise<Record<string, unknown>> => (i < steps.length ? steps[i]!(op, () => step(i + 1)) : next());
    try {
      return await step(0);
    } catch (err) {
      // As a handler's: the model reads why its call was refused.
      if (method === "tools/call" && err instanceof ToolError) return { ...toolError(err.message) };
      throw err;
    }
  };

/**
 * A step of `defineApp({ use: [...] })`: `step` itself, carrying the code that runs the chain, so
 * that only an app with middleware has it in its bundle.
 */
export const defineMiddleware = (step: Policy): Middleware =>
  Object.assign((op: Operation, next: () => Promise<Record<string, unknown>>) => step(op, next), { compose: chainOf });
