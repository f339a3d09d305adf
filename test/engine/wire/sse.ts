/**
 * Server-sent events as MCP uses them: a parser for one event block, and an
 * incremental reader with bounded waits. The reader keeps every event (with
 * its id, since ids are what a 2025-11-25 client resumes with) and the raw
 * text, so tests can assert what was on the wire.
 *
 * It reads from a ChunkSource, which both runtimes can give: a web stream's
 * reader in workerd (`webSource`), a node:http response in the bench
 * (`iterableSource`: a Node readable is an async iterable of chunks).
 */
import type { RpcMessage } from "./rpc.ts";

/** One SSE event: its id and type (if any), raw data, and the JSON-RPC message when data is not empty. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  message?: RpcMessage;
}

/** Parses one SSE event block into its fields; comments (`:`) are skipped, a block without data is none. */
export function parseEvent(block: string): { event?: string; data: string; id?: string } | undefined {
  let data: string[] | undefined;
  let event: string | undefined;
  let id: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") (data ??= []).push(value);
    else if (field === "event") event = value;
    else if (field === "id") id = value;
  }
  return data === undefined ? undefined : { event, data: data.join("\n"), id };
}

/** Where the bytes come from: `read()` like a web stream reader, `cancel()` to hang up. */
export interface ChunkSource {
  read(): Promise<{ done?: boolean; value?: Uint8Array | string }>;
  cancel(): Promise<unknown>;
}

export function webSource(body: ReadableStream<Uint8Array>): ChunkSource {
  const reader = body.getReader();
  return { read: () => reader.read(), cancel: () => reader.cancel() };
}

export function iterableSource(chunks: AsyncIterable<Uint8Array | string>): ChunkSource {
  const it = chunks[Symbol.asyncIterator]();
  return { read: () => it.next(), cancel: async () => it.return?.() };
}

/**
 * An incremental SSE reader at event granularity: `next()` resolves with the
 * next event, or undefined when the stream ended or nothing arrived in time
 * (check `ended` to tell which).
 */
export class EventStream {
  private readonly source: ChunkSource;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private pending: Promise<{ done?: boolean; value?: Uint8Array | string }> | undefined;
  private readonly queue: SseEvent[] = [];
  /** Every event seen so far, in order. */
  readonly events: SseEvent[] = [];
  raw = "";
  ended = false;

  constructor(source: ChunkSource) {
    this.source = source;
  }

  async next(timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      // A read that outlives its wait stays pending for the next call, so no bytes are lost.
      this.pending ??= this.source.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
      const chunk = await Promise.race([this.pending, timeout]).finally(() => timer !== undefined && clearTimeout(timer));
      if (chunk === "timeout") return undefined;
      this.pending = undefined;
      if (chunk.done) {
        this.ended = true;
        this.feed(this.decoder.decode(), true);
      } else this.feed(typeof chunk.value === "string" ? chunk.value : this.decoder.decode(chunk.value, { stream: true }), false);
    }
    return this.queue.shift();
  }

  /** The next event that carries a message (skips priming events and other empty data). */
  async nextMessage(timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (!e || e.message) return e;
    }
  }

  /** Reads until a message matches, bounded; returns it (undefined on timeout or end). */
  async until(match: (m: RpcMessage) => boolean, timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.nextMessage(Math.max(1, deadline - Date.now()));
      if (!e || match(e.message!)) return e;
    }
  }

  /**
   * Reads every remaining event until the stream ends, handing each to `onEvent` as it
   * arrives (a client answers server requests there while the stream is open). Throws,
   * and hangs up, if the stream does not end in time or `onEvent` throws.
   */
  async rest(timeoutMs = 5000, onEvent?: (e: SseEvent) => void): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        const e = await this.next(Math.max(1, deadline - Date.now()));
        if (!e) break;
        out.push(e);
        onEvent?.(e);
      }
    } catch (err) {
      await this.cancel();
      throw err;
    }
    if (!this.ended) {
      await this.cancel();
      throw new Error(`SSE stream did not end within ${timeoutMs} ms; got ${JSON.stringify(out).slice(0, 2000)}`);
    }
    return out;
  }

  /** Stops reading and hangs up (in 2026-07-28 that cancels the request; in 2025-11-25 it does not). */
  async cancel(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.source.cancel().catch(() => {});
  }

  private feed(text: string, final: boolean): void {
    this.raw += text;
    this.buffer += text;
    const blocks = this.buffer.split(/\r?\n\r?\n/);
    this.buffer = final ? "" : blocks.pop()!;
    for (const block of blocks) {
      const parsed = parseEvent(block);
      if (!parsed) continue;
      const ev: SseEvent = parsed.data === "" ? parsed : { ...parsed, message: JSON.parse(parsed.data) as RpcMessage };
      this.events.push(ev);
      this.queue.push(ev);
    }
  }
}
