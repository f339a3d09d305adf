/**
 * One JSON-RPC 2.0 message: its shapes, how a body is parsed into one, and how
 * responses are built.
 */
import { ErrorCode, McpError, type JsonRpcErrorObject } from "./errors";
import { isObject } from "./guards";

export type RequestId = string | number;
type Params = Record<string, unknown>;

/** Request ids longer than this are rejected: an id is echoed in every answer and must stay small. */
const MAX_ID_LENGTH = 256;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Params;
}
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Params;
}
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: RequestId; result: Params }
  | { jsonrpc: "2.0"; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

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
  if (!isObject(json)) {
    throw new McpError(ErrorCode.InvalidRequest, "Invalid request: expected a JSON-RPC object");
  }
  const message = envelope(json);
  if (message) return message;
  throw new McpError(ErrorCode.InvalidRequest, `Invalid request: ${describeShapeProblem(json)}`);
}

// The shapes are checked by hand rather than with schemas: the engine then brings none of the
// validation library's combinators that an app does not use itself (about 0.6 KiB gzip).
const isId = (x: unknown): x is RequestId => (typeof x === "string" && x.length <= MAX_ID_LENGTH) || Number.isSafeInteger(x);

/** An object's own keys and values, a fresh object, leaving out the keys that could reach a prototype. */
function ownEntries(x: Record<string, unknown>): Params {
  const out: Params = {};
  for (const k in x) if (Object.hasOwn(x, k) && k !== "__proto__" && k !== "prototype" && k !== "constructor") out[k] = x[k];
  return out;
}

/**
 * The message a JSON object is, holding only the members JSON-RPC defines (anything else is
 * dropped), with `params` and `result` as fresh objects; undefined when it is none.
 */
function envelope(obj: Record<string, unknown>): Message | undefined {
  if (obj.jsonrpc !== "2.0") return undefined;
  const { id, params } = obj;
  if ("method" in obj) {
    if (typeof obj.method !== "string" || ("params" in obj && !isObject(params))) return undefined;
    const tail = "params" in obj ? { params: ownEntries(params as Params) } : {};
    if (!("id" in obj)) return { kind: "notification", message: { jsonrpc: "2.0", method: obj.method, ...tail } };
    return isId(id) ? { kind: "request", message: { jsonrpc: "2.0", id, method: obj.method, ...tail } } : undefined;
  }
  if ("result" in obj)
    return isId(id) && isObject(obj.result)
      ? { kind: "response", message: { jsonrpc: "2.0", id, result: ownEntries(obj.result) } }
      : undefined;
  const { error } = obj;
  // Number.isInteger is false for anything but a number.
  if (
    !("error" in obj) ||
    !(id === null || isId(id)) ||
    !isObject(error) ||
    !Number.isInteger(error.code) ||
    typeof error.message !== "string"
  )
    return undefined;
  const data = "data" in error ? { data: error.data } : {};
  return { kind: "response", message: { jsonrpc: "2.0", id, error: { code: error.code as number, message: error.message, ...data } } };
}

/** The request id, when one could be read from a malformed message. */
export function readableId(json: unknown): RequestId | null {
  return isObject(json) && isId(json.id) ? json.id : null;
}

function describeShapeProblem(obj: Record<string, unknown>): string {
  if (obj.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("method" in obj && typeof obj.method !== "string") return "method must be a string";
  // A string that is no id is too long.
  if ("id" in obj && !isId(obj.id))
    return typeof obj.id === "string" ? `id must be at most ${MAX_ID_LENGTH} characters` : "id must be a string or an integer";
  if ("params" in obj && !isObject(obj.params)) return "params must be an object";
  return "not a JSON-RPC request, notification or response";
}

/**
 * The `_meta.progressToken` of a request (a string of at most MAX_ID_LENGTH, or an integer); -32602
 * otherwise. Progress tokens are echoed in every progress notification of their request, so they are
 * held to the same bound as request ids (isId): a 900 KB token would otherwise cost its size again per event.
 */
export function checkProgressToken(meta: unknown): string | number | undefined {
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  if (token === undefined || isId(token)) return token;
  // A string that is no id is too long.
  throw new McpError(
    ErrorCode.InvalidParams,
    typeof token === "string"
      ? `_meta.progressToken must be at most ${MAX_ID_LENGTH} characters`
      : "_meta.progressToken must be a string or an integer",
  );
}

export const resultResponse = (id: RequestId, result: unknown) => ({ jsonrpc: "2.0" as const, id, result });
export const errorResponse = (id: RequestId | null, error: JsonRpcErrorObject) => ({ jsonrpc: "2.0" as const, id, error });
export const notification = (method: string, params?: Params) =>
  params === undefined ? { jsonrpc: "2.0" as const, method } : { jsonrpc: "2.0" as const, method, params };
