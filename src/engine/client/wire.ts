/**
 * One HTTP exchange with an MCP endpoint: the POST, and the messages of its
 * answer whether the server chose JSON or SSE. Errors that come back as HTTP
 * statuses become `McpClientError`s carrying the status and, when the body is
 * a JSON-RPC error, its code and message.
 */
import { McpClientError, isWireError } from "./errors";
import { DEFAULT_LIMITS } from "./limits";
import { readSse } from "./sse";

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface WireMessage {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One message of an answer, with the SSE cursor that followed it (2025-11-25 only). */
interface Received {
  message?: WireMessage;
  eventId?: string;
  retry?: number;
}

const ACCEPT_BOTH = "application/json, text/event-stream";
const ERROR_BODY_BYTES = 65_536; // 64 KiB, as a literal: esbuild keeps a product in a bundle that leaves this module out

/**
 * A body as text, read to at most `maxBytes`: past that the read is cancelled and the answer refused,
 * so a server cannot make the client hold an answer without end.
 */
async function boundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes)
        throw new McpClientError(`The server sent a body larger than ${maxBytes} bytes (limits.maxMessageBytes)`, undefined, res.status);
      parts.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  parts.push(decoder.decode());
  return parts.join("");
}

export async function post(
  fetchFn: Fetch,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  try {
    return await fetchFn(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: ACCEPT_BOTH, ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    if (err instanceof McpClientError) throw err;
    throw new McpClientError(`Could not reach ${url}: ${reason(err)}`);
  }
}

/** Why a fetch threw. Node's says only "fetch failed" and keeps the socket's own reason (a connection the
 * server closed, refused, reset) in `cause`, which is the part that tells a user what to fix. */
function reason(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  const cause = (err as { cause?: { message?: string; code?: string } })?.cause;
  if (!cause?.message || cause.message === message) return message;
  const code = cause.code && !cause.message.includes(cause.code) ? `, ${cause.code}` : "";
  return `${message} (${cause.message}${code})`;
}

/** Reads a failed HTTP answer into an error: the JSON-RPC error when there is one, the status otherwise. */
export async function httpError(res: Response, what: string): Promise<McpClientError> {
  // An error's body is read no further than an error needs.
  const text = await boundedText(res, ERROR_BODY_BYTES).catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (isWireError(body.error)) return new McpClientError(body.error.message, body.error.code, res.status, body.error.data);
  } catch {
    // not JSON: fall through to the status
  }
  return new McpClientError(`${what}: HTTP ${res.status}${text ? ` ${text.slice(0, 200)}` : ""}`, undefined, res.status);
}

/** The messages of a 200 answer, in order. A JSON answer is one message; an SSE answer is a stream of them. */
export async function* messagesOf(
  res: Response,
  signal?: AbortSignal,
  maxBytes = DEFAULT_LIMITS.maxMessageBytes,
): AsyncGenerator<Received> {
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream") && res.body) {
    for await (const ev of readSse(res.body, signal, maxBytes)) {
      let message: WireMessage | undefined;
      if (ev.data.trim() !== "") {
        try {
          message = JSON.parse(ev.data) as WireMessage;
        } catch {
          throw new McpClientError(`The server sent an SSE event that is not JSON: ${ev.data.slice(0, 120)}`);
        }
      }
      yield {
        ...(message ? { message } : {}),
        ...(ev.id !== undefined ? { eventId: ev.id } : {}),
        ...(ev.retry !== undefined ? { retry: ev.retry } : {}),
      };
    }
    return;
  }
  const text = await boundedText(res, maxBytes);
  if (text.trim() === "") return;
  try {
    yield { message: JSON.parse(text) as WireMessage };
  } catch {
    throw new McpClientError(`The server answered with a body that is not JSON (${type || "no content type"})`, undefined, res.status);
  }
}
