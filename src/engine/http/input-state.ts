/**
 * The 2026 side of take-or-require: turning a retry's requestState and
 * inputResponses into the answers a handler sees, and an InputRequired
 * signal into an InputRequiredResult with a freshly sealed state.
 *
 * The client carries the state, so nothing in a retry is trusted: an answer
 * counts only if the sealed state says the server asked for it under that key,
 * it is shape-checked against the method of that request, and the state only
 * opens for the same method, target, arguments and principal it was issued for.
 */
import { ErrorCode, McpError, invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { checkInputResponse as checkAnswer, ownEntries, type InputRequest, type InputRequired } from "../mcp/input";
import type { Json } from "../mcp/types";
import { MAX_REQUEST_STATE_LENGTH, RequestStateTooLarge, seal, unseal, type StateSecrets } from "./seal";

export interface RoundInput {
  answers: Record<string, unknown>;
  state: Json | undefined;
}

export interface Binding {
  method: string;
  target: string;
  principal: string;
  /** Digest of the request's key parameters (see `requestDigest`). */
  digest: string;
}

/**
 * What a requestState is bound to besides the method and target: a digest of the parameters that
 * decide what the request does. For tools/call and prompts/get that is the arguments (a state
 * issued while greeting Ada must not complete a call with other arguments); for resources/read the
 * URI. Keys are sorted, so a client that re-serialises the same arguments in another order still
 * matches.
 */
export async function requestDigest(method: string, params: Record<string, unknown>): Promise<string> {
  const key = method === "resources/read" ? { uri: params.uri ?? null } : { arguments: params.arguments ?? {} };
  const bytes = new TextEncoder().encode(canonicalJson(key));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of hash) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** JSON with object keys sorted at every level: one text for one value. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export async function openRound(params: Record<string, unknown>, bind: Binding, secrets: StateSecrets): Promise<RoundInput> {
  const responses = params.inputResponses;
  if (responses !== undefined && !isObject(responses)) throw invalidParams("inputResponses must be an object keyed by input request");
  // Without a requestState the server asked nothing yet: any inputResponses are unsolicited and ignored.
  if (params.requestState === undefined) return { answers: Object.create(null), state: undefined };

  const sealed = await unseal(params.requestState, bind, secrets);
  const answers = ownEntries(isObject(sealed.a) ? sealed.a : {});
  const asked = isObject(sealed.k) ? sealed.k : {};
  if (responses !== undefined) {
    // Walk the keys the server asked for, never the client's: extra keys (`__proto__` included) are
    // ignored, as the spec recommends, and every answer that counts is checked against its request.
    for (const key of Object.keys(asked)) {
      if (!Object.hasOwn(responses, key)) continue;
      checkAnswer(key, String(asked[key]), responses[key]);
      answers[key] = responses[key];
    }
  }
  return { answers, state: sealed.s };
}

export async function closeRound(
  signal: InputRequired,
  round: RoundInput,
  bind: Binding,
  secrets: StateSecrets,
  ttlSeconds: number,
): Promise<{ inputRequests: Record<string, InputRequest>; requestState: string }> {
  const k = ownEntries(Object.fromEntries(Object.entries(signal.requests).map(([key, r]) => [key, r.method]))) as Record<string, string>;
  let requestState: string;
  try {
    requestState = await seal(
      {
        m: bind.method,
        t: bind.target,
        p: bind.principal,
        d: bind.digest,
        e: Math.floor(Date.now() / 1000) + ttlSeconds,
        a: round.answers,
        k,
        // Absent from the sealed JSON when the handler keeps no state.
        s: signal.state,
      },
      secrets,
    );
  } catch (err) {
    if (!(err instanceof RequestStateTooLarge)) throw err;
    throw tooLarge(round, signal, err.length);
  }
  return { inputRequests: signal.requests, requestState };
}

/**
 * A state this server would refuse to open is never handed out. Whose fault it is decides the code:
 * answers the client piled up are its input (-32602); the handler's own state is the server's (-32603).
 */
function tooLarge(round: RoundInput, signal: InputRequired, length: number): McpError {
  const size = (x: unknown) => (x === undefined ? 0 : new TextEncoder().encode(JSON.stringify(x)).length);
  const limit = `${MAX_REQUEST_STATE_LENGTH} characters`;
  if (size(round.answers) >= size(signal.state)) {
    return invalidParams(
      `inputResponses: the answers given so far are too large to carry to the next round (requestState would be ${length} characters, over ${limit}); send shorter answers`,
    );
  }
  console.error(`A handler's input state is too large for requestState (${length} characters, over ${limit})`);
  return new McpError(ErrorCode.InternalError, `The server's state for this request is too large to carry between rounds (over ${limit})`);
}
