/** Builders for every HTTP answer the /mcp edge gives, so each rejection has one place. */
import { ErrorCode, type JsonRpcErrorObject } from "../mcp/errors";
import { errorResponse, type RequestId } from "../mcp/jsonrpc";

/** A JSON answer whose text is already made (a 2025 session's call, serialised in its object). */
export const jsonText = (text: string, status = 200, headers?: HeadersInit): Response =>
  new Response(text, {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });

export const json = (body: unknown, status = 200, headers?: HeadersInit): Response => jsonText(JSON.stringify(body), status, headers);

export const rpcError = (id: RequestId | null, error: JsonRpcErrorObject, status: number, headers?: HeadersInit) =>
  json(errorResponse(id, error), status, headers);

/** A transport-level rejection (no request could be read): JSON-RPC error body without id. */
export const reject = (status: number, code: number, message: string, headers?: HeadersInit) =>
  rpcError(null, { code, message }, status, headers);

/** A request refused as such, before or without any protocol work: -32600 (Invalid Request), with the request's id when one was read. */
export const refuse = (status: number, message: string, headers?: HeadersInit, id: RequestId | null = null) =>
  rpcError(id, { code: ErrorCode.InvalidRequest, message }, status, headers);

export const accepted = () => new Response(null, { status: 202 });

export const methodNotAllowed = (allow: string) => refuse(405, `Method not allowed on /mcp; use ${allow}`, { Allow: allow });

/** A path the Worker does not serve: plain text, since no JSON-RPC exchange was begun there. */
export const notFound = (endpoint: string) =>
  new Response(`Not found. The MCP endpoint is ${endpoint}.\n`, { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
