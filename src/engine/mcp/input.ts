/**
 * Take-or-require: how a handler asks the client for something.
 *
 * A handler reads an answer if the client already gave it (`take`), and
 * otherwise stops with the requests it needs (`require`). The lanes decide
 * what stopping means: the 2026-07-28 lane answers an InputRequiredResult and
 * runs the handler again when the client retries; the 2025-11-25 lane sends
 * real requests on the session stream and runs the handler again when the
 * answers arrive. The handler code is the same on both.
 */
import { invalidParams, missingClientCapability } from "./errors";
import { isObject, isScalar } from "./guards";
import type { ClientCapabilities, Json } from "./types";

export type PrimitiveSchema = Record<string, Json>;

export interface ElicitFormParams {
  mode?: "form";
  message: string;
  requestedSchema: { type: "object"; properties: Record<string, PrimitiveSchema>; required?: string[] };
}
export interface ElicitUrlParams {
  mode: "url";
  message: string;
  url: string;
  /** Sent to 2025-11-25 clients only; 2026-07-28 dropped it. */
  elicitationId?: string;
}
export interface SamplingParams {
  messages: { role: "user" | "assistant"; content: Json }[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}

export interface ElicitRequest {
  method: "elicitation/create";
  params: ElicitFormParams | ElicitUrlParams;
}
export interface SamplingRequest {
  method: "sampling/createMessage";
  params: SamplingParams;
}
export interface RootsRequest {
  method: "roots/list";
  params?: Record<string, never>;
}
export type InputRequest = ElicitRequest | SamplingRequest | RootsRequest;

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}
export interface SamplingResult {
  role: "user" | "assistant";
  content: Json;
  model: string;
  stopReason?: string;
}
export interface RootsResult {
  roots: { uri: string; name?: string }[];
}

/** The answer a request gets: an elicitation result, a sampling result or the roots list. */
export type AnswerTo<R extends InputRequest> = R extends ElicitRequest
  ? ElicitResult
  : R extends SamplingRequest
    ? SamplingResult
    : R extends RootsRequest
      ? RootsResult
      : never;

/** What `ask` returns: each key typed by the helper that made its request. */
export type Answers<R extends Record<string, InputRequest>> = { [K in keyof R]: AnswerTo<R[K]> };

/** Ask the user through a form (never for secrets). */
export const elicit = (message: string, properties: Record<string, PrimitiveSchema>, required?: string[]): ElicitRequest => ({
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: { type: "object", properties, ...(required ? { required } : {}) } },
});

/**
 * Send the user to a URL (sign-in, payment…); `accept` only means they agreed to open it. 2025-11-25
 * clients need an `elicitationId` (one is made up when you give none; read it back from
 * `.params.elicitationId`); pass your own to call `ctx.completeElicitation(id)` when the flow ends.
 */
export const elicitUrl = (
  message: string,
  url: string,
  elicitationId: string = crypto.randomUUID(),
): ElicitRequest & { params: ElicitUrlParams } => ({
  method: "elicitation/create",
  params: { mode: "url", message, url, elicitationId },
});

/** Ask the client's model for a completion. */
export const sample = (prompt: string, maxTokens = 256, extra: Partial<SamplingParams> = {}): SamplingRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens, ...extra },
});

/** Ask the client for its roots. */
export const listRoots = (): RootsRequest => ({ method: "roots/list" });

/** The signal a handler throws to stop until the client answers. Not an error. */
export class InputRequired {
  constructor(
    readonly requests: Record<string, InputRequest>,
    readonly state: Json | undefined,
  ) {}
}

/**
 * The client capability an input request needs, or null when the client
 * declared it. Returned as the `requiredCapabilities` object of -32021.
 */
function missingCapability(request: InputRequest, caps: ClientCapabilities): ClientCapabilities | null {
  switch (request.method) {
    case "elicitation/create": {
      const e = caps.elicitation;
      const url = request.params.mode === "url";
      if (!e) return { elicitation: url ? { url: {} } : {} };
      // `{}` means form only; a declared sub-mode list must include the one used (`{ url }` alone has no form).
      if (url && e.url === undefined) return { elicitation: { url: {} } };
      if (!url && e.url !== undefined && e.form === undefined) return { elicitation: { form: {} } };
      return null;
    }
    case "sampling/createMessage": {
      if (!caps.sampling) return { sampling: {} };
      if (request.params.tools !== undefined && !caps.sampling.tools) return { sampling: { tools: {} } };
      // Context from other servers ("thisServer", "allServers") is only for clients that declared they can add it.
      const context = request.params.includeContext;
      if (context !== undefined && context !== "none" && !caps.sampling.context) return { sampling: { context: {} } };
      return null;
    }
    case "roots/list":
      return caps.roots ? null : { roots: {} };
  }
}

/** What a handler sees: the answers gathered so far and a way to ask for more. */
export class Input {
  private readonly answers: Readonly<Record<string, unknown>>;

  constructor(
    answers: Readonly<Record<string, unknown>>,
    /** App state the handler passed to `require` in an earlier round. */
    readonly state: Json | undefined,
    private readonly capabilities: ClientCapabilities,
  ) {
    // Own keys only, in an object without a prototype: `take("constructor")` or `take("__proto__")` must
    // never find something the client did not answer.
    this.answers = ownEntries(answers);
  }

  /** The client's answer for `key`, if it gave one. */
  take<T = ElicitResult>(key: string): T | undefined {
    // No prototype to read through (see the constructor): a key the client did not answer is undefined.
    return this.answers[key] as T | undefined;
  }

  /** Stop here and ask the client; the handler runs again with the answers. */
  require(requests: Record<string, InputRequest>, state?: Json): never {
    for (const request of Object.values(requests)) {
      const missing = missingCapability(request, this.capabilities);
      if (missing) {
        throw missingClientCapability(missing as Record<string, object>);
      }
    }
    throw new InputRequired(requests, state);
  }

  /**
   * Takes every answer in `requests`, or requires the ones still missing (the handler stops here and
   * runs again with them). Each answer is typed by its request: `elicit` → ElicitResult, `sample` →
   * SamplingResult, `listRoots` → RootsResult.
   */
  ask<R extends Record<string, InputRequest>>(requests: R, state?: Json): Answers<R> {
    const keys = Object.keys(requests);
    const missing = keys.filter((key) => this.answers[key] === undefined);
    if (missing.length > 0) this.require(Object.fromEntries(missing.map((k) => [k, requests[k]!])), state);
    return Object.fromEntries(keys.map((k) => [k, this.answers[k]])) as Answers<R>;
  }
}

/** A copy of an object's own enumerable entries in an object with no prototype. */
export function ownEntries(source: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(source)) out[key] = value;
  return out;
}

const isFormValue = (v: unknown) => isScalar(v) || (Array.isArray(v) && v.every((x) => typeof x === "string"));

/**
 * Checks a client's answer has the shape of the result its input request asks for (-32602 otherwise).
 * `method` is the method of the request the server made under `key`; an answer to anything else is
 * never handed to a handler, so an unknown method is refused too.
 */
export function checkInputResponse(key: string, method: string | undefined, answer: unknown): void {
  const bad = (what: string) => invalidParams(`inputResponses.${key}: ${what}`);
  if (!isObject(answer)) throw bad("must be an object");
  switch (method) {
    case "elicitation/create":
      if (!["accept", "decline", "cancel"].includes(answer.action as string)) throw bad('action must be "accept", "decline" or "cancel"');
      if (answer.content !== undefined) {
        if (!isObject(answer.content)) throw bad("content must be an object");
        if (!Object.values(answer.content).every(isFormValue))
          throw bad("content values must be strings, numbers, booleans or lists of strings");
      }
      return;
    case "sampling/createMessage":
      if (answer.role !== "user" && answer.role !== "assistant") throw bad('a sampling result needs role "user" or "assistant"');
      if (typeof answer.model !== "string") throw bad("a sampling result needs a model name");
      if (!isObject(answer.content) && !Array.isArray(answer.content))
        throw bad("a sampling result needs content (a block or a list of blocks)");
      return;
    case "roots/list":
      if (!Array.isArray(answer.roots) || !answer.roots.every((r) => isObject(r) && typeof r.uri === "string"))
        throw bad("a roots result needs a roots array of { uri, name? }");
      return;
    default:
      throw bad("the server made no such input request");
  }
}
