/**
 * Push delivery from the client's side (`events/stream`): one long-lived request per subscription,
 * answered as SSE. `streamEvents` resolves once the server sent `notifications/events/active` (so an
 * event after that is not missed) and is then read with `for await`; `close()` or the signal cancels
 * it, the way the extension says a client does: by ending the request. The stream keeps the last
 * cursor it saw, the one to resume from.
 */
import type { McpClient } from "./client";
import { McpClientError } from "./errors";
import { requireEvents } from "./events-advertised";
import type { EventOccurrence, PollParams } from "./event-types";
import type { WireMessage } from "./wire";

type StreamError = { code: number; message: string; data?: unknown };

/** What a stream carries, after its opening `active`. */
export type StreamNotice =
  | { type: "active"; cursor: string | null; truncated: boolean }
  | { type: "event"; event: EventOccurrence }
  | { type: "heartbeat"; cursor: string | null }
  /** Transient: the stream goes on. */
  | { type: "error"; error: StreamError }
  /** The subscription ended (access revoked, the type removed); the stream ends after it. */
  | { type: "terminated"; error: StreamError };

const PREFIX = "notifications/events/";

function noticeOf(m: WireMessage): StreamNotice | undefined {
  const p = m.params ?? {};
  switch (m.method) {
    case `${PREFIX}active`:
      return { type: "active", cursor: (p.cursor as string | null | undefined) ?? null, truncated: p.truncated === true };
    case `${PREFIX}event`: {
      const { _meta, ...event } = p;
      return { type: "event", event: event as unknown as EventOccurrence };
    }
    case `${PREFIX}heartbeat`:
      return { type: "heartbeat", cursor: (p.cursor as string | null | undefined) ?? null };
    case `${PREFIX}error`:
    case `${PREFIX}terminated`:
      return {
        type: m.method === `${PREFIX}error` ? "error" : "terminated",
        error: (p.error as StreamError | undefined) ?? { code: 0, message: "no error given" },
      };
    default:
      return undefined;
  }
}

export class EventStream implements AsyncIterable<StreamNotice> {
  /** The last position the server named (active, an event, a heartbeat): pass it as `cursor` to resume. */
  cursor: string | null;
  /** The stream started later than the cursor asked for: some events are lost. */
  readonly truncated: boolean;

  constructor(
    active: Extract<StreamNotice, { type: "active" }>,
    private readonly source: AsyncGenerator<WireMessage>,
    private readonly controller: AbortController,
  ) {
    this.cursor = active.cursor;
    this.truncated = active.truncated;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamNotice> {
    try {
      for (let r = await this.source.next(); !r.done; r = await this.source.next()) {
        const m = r.value;
        // The StreamEventsResult (or an error) on the request's own id: the server closed the stream.
        if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) return;
        const notice = noticeOf(m);
        if (!notice) continue;
        if (notice.type === "active" || notice.type === "heartbeat") this.cursor = notice.cursor ?? this.cursor;
        if (notice.type === "event" && notice.event.cursor !== undefined) this.cursor = notice.event.cursor;
        yield notice;
        if (notice.type === "terminated") return;
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    this.controller.abort();
  }
}

/**
 * Opens `events/stream` for one event type and arguments. A refusal (unknown type, a mode the type
 * does not offer, bad arguments or cursor) throws McpClientError before any stream.
 */
export async function streamEvents(
  client: McpClient,
  params: Omit<PollParams, "maxEvents">,
  options: { signal?: AbortSignal } = {},
): Promise<EventStream> {
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), { once: true });
  try {
    const body = {
      name: params.name,
      arguments: params.arguments ?? {},
      cursor: params.cursor ?? null,
      ...(params.maxAgeMs !== undefined ? { maxAgeMs: params.maxAgeMs } : {}),
    };
    await requireEvents(client, "events/stream");
    const { messages } = await client.openStream("events/stream", body, controller.signal);
    // Read by hand: leaving a for-await loop would close the stream the EventStream goes on reading.
    for (let r = await messages.next(); !r.done; r = await messages.next()) {
      const m = r.value;
      if (m.error) throw new McpClientError(m.error.message, m.error.code, 200, m.error.data);
      const notice = noticeOf(m);
      if (notice?.type === "active") return new EventStream(notice, messages, controller);
      if (notice?.type === "terminated") throw new McpClientError(notice.error.message, notice.error.code, 200, notice.error.data);
    }
    throw new McpClientError("The event stream ended before the server said it was active");
  } catch (err) {
    controller.abort();
    throw err;
  }
}
