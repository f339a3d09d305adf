/**
 * A subscription to what a server announces: list changes and resource
 * updates. `McpClient.listen()` resolves once the server has acknowledged it
 * (2026-07-28 `subscriptions/listen`) or opened the session stream
 * (2025-11-25), and is then read with `for await`. `close()` ends it; in
 * 2026-07-28 closing the stream is how the subscription is cancelled.
 */
import type { WireMessage } from "./wire";

export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /**
   * Status changes of these tasks: 2026-07-28 `notifications/tasks` (the tasks extension; the client must
   * take tasks), 2025-11-25 `notifications/tasks/status` on the session stream.
   */
  taskIds?: string[];
}

export interface ServerNotification {
  method: string;
  params: Record<string, unknown>;
}

export class Subscription implements AsyncIterable<ServerNotification> {
  constructor(
    /** What the server agreed to send (2026-07-28 echoes the honoured subset; 2025-11-25 the filter asked for). */
    readonly filter: ListenFilter,
    private readonly source: AsyncGenerator<WireMessage>,
    private readonly controller: AbortController,
    private readonly onEach?: (n: ServerNotification) => void | Promise<void>,
  ) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<ServerNotification> {
    try {
      for await (const m of this.source) {
        if (!m.method || m.id !== undefined) {
          // The final result of a listen request: the server ended the subscription.
          if (m.result !== undefined || m.error !== undefined) return;
          continue;
        }
        const n = { method: m.method, params: m.params ?? {} };
        if (!wanted(this.filter, n)) continue;
        await this.onEach?.(n);
        yield n;
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    this.controller.abort();
  }
}

function wanted(filter: ListenFilter, n: ServerNotification): boolean {
  switch (n.method) {
    case "notifications/tools/list_changed":
      return !!filter.toolsListChanged;
    case "notifications/prompts/list_changed":
      return !!filter.promptsListChanged;
    case "notifications/resources/list_changed":
      return !!filter.resourcesListChanged;
    case "notifications/tasks":
    case "notifications/tasks/status":
      return (filter.taskIds ?? []).includes(n.params.taskId as string);
    case "notifications/resources/updated":
      return (filter.resourceSubscriptions ?? []).some((uri) => typeof n.params.uri === "string" && n.params.uri.startsWith(uri));
    default:
      return false;
  }
}

/**
 * Turns a push source (the session's GET stream) into a stream a subscription
 * can read, until the signal aborts. It subscribes at once, not on the first
 * read, so what arrives between `listen()` resolving and the first `for await`
 * is kept.
 */
export function queued(subscribe: (push: (m: WireMessage) => void) => () => void, signal: AbortSignal): AsyncGenerator<WireMessage> {
  const buffer: WireMessage[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = subscribe((m) => {
    buffer.push(m);
    wake?.();
  });
  // An abort unsubscribes even if the stream is never read.
  const onAbort = () => (unsubscribe(), wake?.());
  signal.addEventListener("abort", onAbort, { once: true });
  return (async function* () {
    try {
      while (!signal.aborted) {
        const next = buffer.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener("abort", onAbort);
    }
  })();
}
