/**
 * One JSON-RPC 2.0 message: its shapes (checked with valibot), how a body is
 * parsed into one, and how responses are built.
 */
import * as v from "valibot";
import { ErrorCode, McpError, type JsonRpcErrorObject } from "./errors";

export type RequestId = string | number;
type Params = Record<string, unknown>;

/** Request ids longer than this are rejected: an id is echoed in every answer and must stay small. */
const MAX_ID_LENGTH = 256;
// The schemas are built on first use, not at import: start-up pays for every function it calls (V8
// compiles each on its first call), and these were most of what the engine's own modules cost.
/** A schema built once per isolate, when a message of its kind first arrives. */
const once = <T>(build: () => T): (() => T) => {
  let built: T | undefined;
  return () => (built ??= build());
};
const id = () => v.union([v.pipe(v.string(), v.maxLength(MAX_ID_LENGTH)), v.pipe(v.number(), v.safeInteger())]);
// valibot's record() lets arrays through; JSON-RPC params (by name, as MCP uses them) and results are objects.
const params = () =>
  v.pipe(
    v.custom<Record<string, unknown>>((x) => typeof x === "object" && x !== null && !Array.isArray(x)),
    v.record(v.string(), v.unknown()),
  );

const RequestSchema = once(() => v.object({ jsonrpc: v.literal("2.0"), id: id(), method: v.string(), params: v.optional(params()) }));
const NotificationSchema = once(() => v.object({ jsonrpc: v.literal("2.0"), method: v.string(), params: v.optional(params()) }));
const ResultResponseSchema = once(() => v.object({ jsonrpc: v.literal("2.0"), id: id(), result: params() }));
const ErrorResponseSchema = once(() =>
  v.object({
    jsonrpc: v.literal("2.0"),
    id: v.nullable(id()),
    error: v.object({ code: v.pipe(v.number(), v.integer()), message: v.string(), data: v.optional(v.unknown()) }),
  }),
);

type Output<S extends () => v.GenericSchema> = v.InferOutput<ReturnType<S>>;
export type JsonRpcRequest = Output<typeof RequestSchema>;
export type JsonRpcNotification = Output<typeof NotificationSchema>;
export type JsonRpcResponse = Output<typeof ResultResponseSchema> | Output<typeof ErrorResponseSchema>;

export type Message =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse };

/** Parses a POST body into exactly one message, or throws -32700 / -32600. */
export function parseMessage(text: string, maxDepth = 64): Message {
  if (nestingDepth(text) > maxDepth) {
    throw new McpError(ErrorCode.InvalidRequest, `Invalid request: JSON nested deeper than ${maxDepth} levels`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new McpError(ErrorCode.ParseError, "Parse error: the body is not valid JSON");
  }
  return classifyMessage(json);
}

/** The deepest nesting of arrays and objects in a JSON text, found without parsing it. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function classifyMessage(json: unknown): Message {
  if (Array.isArray(json)) {
    throw new McpError(ErrorCode.InvalidRequest, "Invalid request: batches are not supported; send one message per POST");
  }
  if (typeof json !== "object" || json === null) {
    throw new McpError(ErrorCode.InvalidRequest, "Invalid request: expected a JSON-RPC object");
  }
  const obj = json as Record<string, unknown>;
  if ("method" in obj) {
    if ("id" in obj) {
      const r = v.safeParse(RequestSchema(), obj);
      if (r.success) return { kind: "request", message: r.output };
    } else {
      const r = v.safeParse(NotificationSchema(), obj);
      if (r.success) return { kind: "notification", message: r.output };
    }
  } else if ("result" in obj) {
    const r = v.safeParse(ResultResponseSchema(), obj);
    if (r.success) return { kind: "response", message: r.output };
  } else if ("error" in obj) {
    const r = v.safeParse(ErrorResponseSchema(), obj);
    if (r.success) return { kind: "response", message: r.output };
  }
  throw new McpError(ErrorCode.InvalidRequest, `Invalid request: ${describeShapeProblem(obj)}`);
}

/** The request id, when one could be read from a malformed message. */
export function readableId(json: unknown): RequestId | null {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return null;
  const id = (json as { id?: unknown }).id;
  return (typeof id === "string" && id.length <= MAX_ID_LENGTH) || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

function describeShapeProblem(obj: Record<string, unknown>): string {
  if (obj.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("method" in obj && typeof obj.method !== "string") return "method must be a string";
  if ("id" in obj && !(typeof obj.id === "string" || (typeof obj.id === "number" && Number.isSafeInteger(obj.id))))
    return "id must be a string or an integer";
  if (typeof obj.id === "string" && obj.id.length > MAX_ID_LENGTH) return `id must be at most ${MAX_ID_LENGTH} characters`;
  if ("params" in obj && (typeof obj.params !== "object" || obj.params === null || Array.isArray(obj.params)))
    return "params must be an object";
  return "not a JSON-RPC request, notification or response";
}

/**
 * Progress tokens are echoed in every progress notification of their request, so they are held to
 * the same bound as request ids: a 900 KB token would otherwise cost its size again per event.
 */
const MAX_PROGRESS_TOKEN_LENGTH = MAX_ID_LENGTH;

/** The `_meta.progressToken` of a request (a string of at most MAX_PROGRESS_TOKEN_LENGTH, or an integer); -32602 otherwise. */
export function checkProgressToken(meta: unknown): string | number | undefined {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  const token = (meta as Record<string, unknown>).progressToken;
  if (token === undefined || Number.isSafeInteger(token)) return token as number | undefined;
  if (typeof token !== "string") throw new McpError(ErrorCode.InvalidParams, "_meta.progressToken must be a string or an integer");
  if (token.length > MAX_PROGRESS_TOKEN_LENGTH)
    throw new McpError(ErrorCode.InvalidParams, `_meta.progressToken must be at most ${MAX_PROGRESS_TOKEN_LENGTH} characters`);
  return token;
}

export const resultResponse = (id: RequestId, result: unknown) => ({ jsonrpc: "2.0" as const, id, result });
export const errorResponse = (id: RequestId | null, error: JsonRpcErrorObject) => ({ jsonrpc: "2.0" as const, id, error });
export const notification = (method: string, params?: Params) =>
  params === undefined ? { jsonrpc: "2.0" as const, method } : { jsonrpc: "2.0" as const, method, params };
