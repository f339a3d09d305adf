/**
 * The 2026 side of take-or-require: turning a retry's requestState and
 * inputResponses into the answers a handler sees, and an InputRequired
 * signal into an InputRequiredResult with a freshly sealed state.
 */
import { invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { checkInputResponse as checkAnswer, type InputRequest, type InputRequired } from "../mcp/input";
import type { Json } from "../mcp/types";
import { seal, unseal } from "./seal";

export interface RoundInput {
  answers: Record<string, unknown>;
  state: Json | undefined;
}

export interface Binding {
  method: string;
  target: string;
  principal: string;
}

export async function openRound(params: Record<string, unknown>, bind: Binding, secret: string | undefined): Promise<RoundInput> {
  let answers: Record<string, unknown> = {};
  let state: Json | undefined;
  let asked: Record<string, string> | undefined;
  if (params.requestState !== undefined) {
    const sealed = await unseal(params.requestState, bind, secret);
    answers = { ...sealed.a };
    state = sealed.s;
    asked = sealed.k;
  }
  const responses = params.inputResponses;
  if (responses !== undefined) {
    if (!isObject(responses)) throw invalidParams("inputResponses must be an object keyed by input request");
    for (const [key, answer] of Object.entries(responses)) {
      // Keys the server did not ask for are ignored, as the spec recommends.
      if (asked && !(key in asked)) continue;
      checkAnswer(key, asked?.[key], answer);
      answers[key] = answer;
    }
  }
  return { answers, state };
}

export async function closeRound(
  signal: InputRequired,
  round: RoundInput,
  bind: Binding,
  secret: string | undefined,
  ttlSeconds: number,
): Promise<{ inputRequests: Record<string, InputRequest>; requestState: string }> {
  const k = Object.fromEntries(Object.entries(signal.requests).map(([key, r]) => [key, r.method]));
  const requestState = await seal(
    {
      m: bind.method,
      t: bind.target,
      p: bind.principal,
      e: Math.floor(Date.now() / 1000) + ttlSeconds,
      a: round.answers,
      k,
      ...(signal.state !== undefined ? { s: signal.state } : {}),
    },
    secret,
  );
  return { inputRequests: signal.requests, requestState };
}
