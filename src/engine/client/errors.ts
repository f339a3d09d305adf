/**
 * The one error the client throws. It keeps what the caller needs to decide
 * what to do next: the JSON-RPC code the server answered with (or none, for a
 * transport failure), the HTTP status, the server's own message and its data.
 */
export class McpClientError extends Error {
  override readonly name = "McpClientError";
  constructor(
    message: string,
    /** The JSON-RPC error code, when the server answered with one. */
    readonly code?: number,
    /** The HTTP status of the answer, when there was one. */
    readonly status?: number,
    /** `error.data` from the server, untouched. */
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A JSON-RPC error object as it arrives on the wire. */
interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

export const fromWireError = (error: WireError, status?: number): McpClientError =>
  new McpClientError(error.message, error.code, status, error.data);

export const isWireError = (x: unknown): x is WireError =>
  typeof x === "object" && x !== null && typeof (x as WireError).code === "number" && typeof (x as WireError).message === "string";
