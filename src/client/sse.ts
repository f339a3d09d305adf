/**
 * Reads a `text/event-stream` body into events. Both revisions answer POSTs
 * with SSE; 2025-11-25 streams also carry event ids (the resumption cursor)
 * and `retry:` (how long to wait before reconnecting), so both are kept.
 */
interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  /** Milliseconds the server asked the client to wait before reconnecting. */
  retry?: number;
}

export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let buffer = "";
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  let retry: number | undefined;
  let seen = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? 2 : 1));
        if (line === "") {
          // A blank line ends an event; an event with only an id or a retry still moves the cursor.
          if (seen) yield { data: data.join("\n"), ...(id !== undefined ? { id } : {}), ...(event ? { event } : {}), ...(retry !== undefined ? { retry } : {}) };
          data = [];
          event = undefined;
          retry = undefined;
          seen = false;
          continue;
        }
        if (line.startsWith(":")) continue; // keep-alive comment
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        seen = true;
        if (field === "data") data.push(val);
        else if (field === "id") id = val;
        else if (field === "event") event = val;
        else if (field === "retry" && /^\d+$/.test(val)) retry = Number(val);
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // A consumer that stops early must not leave the connection open (in 2026-07-28 that is the cancellation).
    await reader.cancel().catch(() => {});
  }
}
