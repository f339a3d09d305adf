/**
 * The 2026-07-28 multi-round loop. A `tools/call`, `prompts/get` or
 * `resources/read` may come back `input_required`: the client answers every
 * embedded request through the app's handlers and sends the same request
 * again (a new id) with the answers and the server's `requestState`, echoed
 * byte for byte, until the result is complete. A 2025-11-25 server never
 * answers this way (it asks on the session's stream), so the loop is a no-op there.
 */
import { MAX_INPUT_ROUNDS } from "../mcp/rules";
import { McpClientError } from "./errors";
import { answerInput, answerMap, inputRequestsOf } from "./handlers";
import type { CallOptions, Lane, LaneConfig } from "./lane";
import { followModernTask } from "./tasks";

/** `resultType` values that are the result itself. */
const COMPLETE = new Set([undefined, "complete"]);
/** The only requests a server may answer with `input_required`. */
const MAY_ASK = new Set(["tools/call", "prompts/get", "resources/read"]);
/** The only request the tasks extension may turn into a task. */
const MAY_BE_TASK = new Set(["tools/call"]);

/** A result, and whether it came after input rounds (such a result answers one user's answers: never cached). */
interface Answered {
  result: Record<string, unknown>;
  afterInput: boolean;
}

export async function requestWithInput(
  lane: Lane,
  config: Pick<LaneConfig, "handlers" | "tasks" | "limits">,
  method: string,
  params: Record<string, unknown>,
  options?: CallOptions,
): Promise<Answered> {
  const { handlers, tasks, limits } = config;
  let next = params;
  for (let round = 1; round <= MAX_INPUT_ROUNDS; round++) {
    const result = await lane.request(method, next, options);
    const type = result.resultType as string | undefined;
    const afterInput = round > 1;
    if (COMPLETE.has(type)) return { result, afterInput };
    // Only a client that declared the tasks extension is given a task; it follows it to the result.
    if (type === "task" && tasks && MAY_BE_TASK.has(method))
      return { result: await followModernTask(lane, handlers, result, tasks, options, false, limits.maxInputRequests), afterInput: true };
    // A server that asks where the protocol does not let it, or answers with a type the client does not know, is not followed.
    if (type !== "input_required" || !MAY_ASK.has(method))
      throw new McpClientError(`The server answered ${method} with resultType "${String(type)}", which that request may not have`);
    const inputResponses = answerMap();
    for (const [key, request] of inputRequestsOf(result.inputRequests, limits.maxInputRequests)) {
      inputResponses[key] = await answerInput(handlers, request, options?.signal);
    }
    // Each retry is the original request plus this round's answers; nothing of an earlier round is carried over.
    next = {
      ...params,
      ...(Object.keys(inputResponses).length ? { inputResponses } : {}),
      ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}),
    };
  }
  throw new McpClientError(`The server asked for input on ${method} more than ${MAX_INPUT_ROUNDS} times`);
}
