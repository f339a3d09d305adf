/**
 * Reads a `text/event-stream` body into events. Both revisions answer POSTs
 * with SSE; 2025-11-25 streams also carry event ids (the resumption cursor)
 * and `retry:` (how long to wait before reconnecting), so both are kept.
 *
 * Lines are split on the bytes as they arrive (CR and LF never occur inside a
 * UTF-8 sequence), each byte looked at once, and an event larger than
 * `maxBytes` ends the stream with an error: a server cannot make the client
 * buffer, or rescan, without end.
 */
import { McpClientError } from "./errors";

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  /** Milliseconds the server asked the client to wait before reconnecting. */
  retry?: number;
}

const CR = 13;
const LF = 10;

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
  maxBytes: number,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  /** The bytes of the line not yet ended, in the pieces they came in. */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  /** Bytes of the fields kept for the event being read (comments are not kept). */
  let held = 0;
  /** The last chunk ended with CR: an LF starting the next one belongs to it. */
  let afterCR = false;
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  let retry: number | undefined;
  let seen = false;
  const takeLine = (): string => {
    const text = decoder.decode(pending.length === 1 ? pending[0] : concat(pending, pendingBytes));
    pending = [];
    pendingBytes = 0;
    return text;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let start = 0;
      if (afterCR && value[0] === LF) start = 1;
      afterCR = false;
      for (let i = start; i < value.length; i++) {
        const byte = value[i]!;
        if (byte !== CR && byte !== LF) continue;
        if (i > start) {
          pending.push(value.subarray(start, i));
          pendingBytes += i - start;
        }
        if (byte === CR) {
          if (i + 1 === value.length) afterCR = true;
          else if (value[i + 1] === LF) i++;
        }
        start = i + 1;
        const lineBytes = pendingBytes;
        const text = takeLine();
        if (text === "") {
          // A blank line ends an event; an event with only an id or a retry still moves the cursor.
          if (seen)
            yield {
              data: data.join("\n"),
              ...(id !== undefined ? { id } : {}),
              ...(event ? { event } : {}),
              ...(retry !== undefined ? { retry } : {}),
            };
          data = [];
          event = undefined;
          retry = undefined;
          seen = false;
          held = 0;
          continue;
        }
        if (text.startsWith(":")) continue; // keep-alive comment
        held += lineBytes;
        if (held > maxBytes) break;
        const colon = text.indexOf(":");
        const field = colon < 0 ? text : text.slice(0, colon);
        let val = colon < 0 ? "" : text.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        seen = true;
        if (field === "data") data.push(val);
        else if (field === "id") id = val;
        else if (field === "event") event = val;
        else if (field === "retry" && /^\d+$/.test(val)) retry = Number(val);
      }
      if (start < value.length && held <= maxBytes) {
        // A chunk that is all one line's is kept as it came; a tail is copied so the chunk can go.
        pending.push(start === 0 ? value : value.slice(start));
        pendingBytes += value.length - start;
      }
      if (held + pendingBytes > maxBytes)
        throw new McpClientError(`The server sent an SSE event larger than ${maxBytes} bytes (limits.maxMessageBytes)`);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // A consumer that stops early must not leave the connection open (in 2026-07-28 that is the cancellation).
    await reader.cancel().catch(() => {});
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
