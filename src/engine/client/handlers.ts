/**
 * What the app answers when a server asks it something: a form or URL
 * elicitation, a sampling request, the roots list. The same handlers serve
 * both revisions: 2026-07-28 embeds the requests in an `input_required`
 * result and the client retries with the answers; 2025-11-25 sends them as
 * real requests on the session's streams and the client POSTs the answers.
 */
import type { ClientCapabilities } from "../mcp/types";
import type { ElicitRequest, ElicitResult, RootsResult, SamplingRequest, SamplingResult } from "../mcp/input";
import { McpClientError } from "./errors";
import { TASKS_EXTENSION } from "../mcp/tasks";

export type { ElicitResult, RootsResult, SamplingResult };

export interface InputHandlers {
  elicitation?: (params: ElicitRequest["params"], signal?: AbortSignal) => Promise<ElicitResult> | ElicitResult;
  sampling?: (params: SamplingRequest["params"], signal?: AbortSignal) => Promise<SamplingResult> | SamplingResult;
  roots?: (signal?: AbortSignal) => Promise<RootsResult> | RootsResult;
}

/** The capabilities a client declares follow from the handlers it has: nothing is promised that nobody answers. */
export function capabilitiesOf(
  handlers: InputHandlers,
  legacy: boolean,
  tasks = false,
  extensions: Record<string, object> = {},
): ClientCapabilities {
  const caps: Record<string, object> = {};
  // 2026-07-28 takes tasks by declaring the extension; 2025-11-25 by asking for one on each call.
  const declared = { ...extensions, ...(tasks && !legacy ? { [TASKS_EXTENSION]: {} } : {}) };
  if (Object.keys(declared).length) caps.extensions = declared;
  if (handlers.elicitation) caps.elicitation = { form: {}, url: {} };
  if (handlers.sampling) caps.sampling = {};
  // 2025-11-25: the client says when its roots change (McpClient.rootsChanged); 2026-07-28 has no such notice.
  if (handlers.roots) caps.roots = legacy ? { listChanged: true } : {};
  return caps as ClientCapabilities;
}

/** Answers one server request (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`). */
export async function answerInput(
  handlers: InputHandlers,
  request: { method: string; params?: unknown },
  signal?: AbortSignal,
): Promise<unknown> {
  const params = (request.params ?? {}) as never;
  switch (request.method) {
    case "elicitation/create":
      if (handlers.elicitation) return handlers.elicitation(params, signal);
      break;
    case "sampling/createMessage":
      if (handlers.sampling) return handlers.sampling(params, signal);
      break;
    case "roots/list":
      if (handlers.roots) return handlers.roots(signal);
      break;
    case "ping":
      return {};
  }
  throw new McpClientError(`The client has no handler for ${request.method}`, -32601);
}

type InputRequest = { method: string; params?: unknown };

/**
 * The questions of one input round, at most `max` of them (limits.maxInputRequests): a server that
 * asks more is refused before any handler runs, rather than the app being asked thousands of times.
 */
export function inputRequestsOf(requests: unknown, max: number): [string, InputRequest][] {
  const entries = typeof requests === "object" && requests !== null ? (Object.entries(requests) as [string, InputRequest][]) : [];
  if (entries.length > max)
    throw new McpClientError(
      `The server asked ${entries.length} questions in one input round; the client answers at most ${max} (limits.maxInputRequests)`,
    );
  return entries;
}

/** Answers keyed as the questions were, in an object with no prototype, so a key such as "__proto__" stays a key. */
export const answerMap = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;
