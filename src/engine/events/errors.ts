/**
 * The Events extension's error codes, in one table. Two numberings are deployed: the design sketch's
 * (-32011..-32015), which ChatGPT implements and names in its guide, and the SEP text's provisional
 * ones (-32023..-32027). The server answers with the sketch's, the ones a deployed client reads; the
 * SEP's number travels in `data.specCode`, so a client written against either can tell the error.
 */
import { McpError } from "../mcp/errors";

const EVENT_ERRORS = {
  NotFound: { code: -32011, specCode: -32023 },
  Forbidden: { code: -32012, specCode: -32024 },
  ResourceExhausted: { code: -32013, specCode: -32025 },
  Unsupported: { code: -32014, specCode: -32026 },
  CallbackEndpointError: { code: -32015, specCode: -32027 },
} as const;

type EventErrorName = keyof typeof EVENT_ERRORS;

/** An Events error as a JSON-RPC error: never an HTTP 5xx, whatever it says. */
export function eventError(name: EventErrorName, message: string, data: Record<string, unknown> = {}): McpError {
  const { code, specCode } = EVENT_ERRORS[name];
  return new McpError(code, message, { ...data, specCode });
}

/** Why a callback could not be used: the categories `deliveryStatus.lastError` and `CallbackEndpointError` name. */
export type CallbackFailure = "connection_refused" | "timeout" | "tls_error" | "http_4xx" | "http_5xx" | "challenge_failed";
