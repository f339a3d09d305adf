/** Extension negotiation: what the client declared under `capabilities.extensions`. */
import type { HandlerContext } from "./context";

/** The settings a client declared for an extension (2025: in `initialize`; 2026: in each request's `_meta`), if it did. */
export function clientDeclares(ctx: Pick<HandlerContext<any>, "clientCapabilities">, id: string): object | undefined {
  const declared = ctx.clientCapabilities.extensions;
  return declared && Object.hasOwn(declared, id) ? declared[id] : undefined;
}
