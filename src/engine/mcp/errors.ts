/**
 * JSON-RPC error codes and the one error type the core throws.
 *
 * Codes are named so no literal number appears at a throw site. The core
 * knows nothing of HTTP: each lane picks the status for a code at its edge.
 */
import type { CallToolResult } from "./types";

// An enum rather than an object: the bundler writes each code's number where its name is used,
// so the names cost the Worker nothing at the throw sites (about 0.2 KiB gzip).
export enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  /** 2025-11-25 only; 2026-07-28 uses InvalidParams with data.uri. */
  ResourceNotFoundLegacy = -32002,
  /** 2025-11-25 only: the request cannot go on until the user completes a URL elicitation. */
  UrlElicitationRequired = -32042,
  HeaderMismatch = -32020,
  MissingRequiredClientCapability = -32021,
  UnsupportedProtocolVersion = -32022,
  /** The caller's token lacks scopes the operation needs (HTTP 403, a step-up challenge); data.scopes names them. */
  InsufficientScope = -32003,
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const invalidParams = (message: string, data?: unknown) => new McpError(ErrorCode.InvalidParams, message, data);

export const methodNotFound = (method: string) => new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);

/**
 * Thrown by a handler for a failure the caller should read and can act on ("no such city"). From a
 * tool its message becomes the tool's result, with `isError: true`; from a prompt, a resource or a
 * completion it is a -32602 error with that message. Any other exception a tool throws reaches
 * the model only as a generic message with an error id, and is logged on the server with its stack.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** A tool result that says the call failed, for the model to read (a ToolError's, a refusal's). */
export const toolError = (message: string): CallToolResult => ({ content: [{ type: "text", text: message }], isError: true });

/** Thrown by the core for a missing resource; each revision encodes it its own way. */
export class ResourceNotFound extends McpError {
  constructor(readonly uri: string) {
    super(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
  }
}

/** -32021: the request needs a client capability it did not declare. */
export const missingClientCapability = (requiredCapabilities: Record<string, object>) =>
  new McpError(
    ErrorCode.MissingRequiredClientCapability,
    // The capability as it would be declared, which names an extension (io.modelcontextprotocol/tasks) as well as sampling.context.
    `This request needs the client capability ${JSON.stringify(requiredCapabilities)}, which the client did not declare`,
    { requiredCapabilities },
  );

/**
 * A handler returned something its kind of result cannot carry (contents without a uri, a completion
 * that is not a list of strings…). That is a bug in the server, not in the request: -32603, with the
 * details in the server log and a message that says whose fault it is.
 */
export function handlerReturned(what: string, detail: string, value?: unknown): McpError {
  console.error(`The server's ${what} handler returned ${detail}:`, value);
  return new McpError(ErrorCode.InternalError, `The server's ${what} handler returned ${detail}`);
}

/** What a thrown value says: an Error's message, or the value itself as text. */
export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Anything a handler threw that is not an McpError becomes -32603 without leaking internals. A
 * ToolError from a prompt, a resource or a completion is the handler telling the client what was
 * wrong with its request ("no note 42"), so it is -32602 with that message.
 */
export function toMcpError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof ToolError) return invalidParams(err.message);
  console.error("Unhandled error in an MCP handler:", err);
  return new McpError(ErrorCode.InternalError, "Internal error");
}
