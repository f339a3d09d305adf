/**
 * The 2025-11-25 lane: a session opened with `initialize`, named by the
 * `Mcp-Session-Id` the server gives, and closed with DELETE. Answers arrive
 * as JSON or SSE; on SSE the server may ask the client things
 * (elicitation, sampling, roots, ping) before it answers, and may close the
 * connection on purpose after telling the client how long to wait (`retry:`),
 * so the client comes back with GET and `Last-Event-ID` for the rest.
 */
import { RELATED_TASK } from "../mcp/tasks";
import { LEGACY_VERSIONS } from "../mcp/versions";
import { McpClientError, fromWireError } from "./errors";
import { answerInput, capabilitiesOf } from "./handlers";
import { encodeHeaderValue, mcpName } from "./headers";
import { MAX_BACKOFF_MS, backoff } from "./limits";
import { Deadline } from "./timeout";
import { deliver, nextId, type CallOptions, type Lane, type LaneConfig } from "./lane";
import { queued, type ListenFilter } from "./listen";
import { httpError, messagesOf, post, type WireMessage } from "./wire";

/** The newest 2025 revision, the one a client asks for in `initialize`; a function: a top-level index expression would stay in a bundle that leaves this module out. */
const legacyVersion = () => LEGACY_VERSIONS[0];
/** How long to wait before resuming when the server named no `retry:`. */
const DEFAULT_RETRY_MS = 1000;

/**
 * Whether a stream that ended with `err` was dropped by the network (fetch's "terminated", a reset) and
 * can be resumed like one the server closed; a refusal, a message too large or an abort cannot.
 */
const dropped = (err: unknown, signal?: AbortSignal) => !(err instanceof McpClientError) && !signal?.aborted;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

interface InitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  instructions?: string;
}

export class LegacySession implements Lane {
  readonly era = "legacy";
  version: string = legacyVersion();
  sessionId: string | undefined;
  server!: InitializeResult;

  /** Ends the session's GET stream when the session closes. */
  private background: AbortController | undefined;
  /** Who else wants what arrives on the GET stream (the `listen()` subscriptions). */
  private readonly listeners = new Set<(m: WireMessage) => void>();
  /** Settles when the GET stream is open (its 200) or could not be opened. */
  private streamOpened: Promise<void> = Promise.resolve();
  /** The server's requests being answered, by id: the server may cancel one, and then gets no answer. */
  private readonly answering = new Map<string | number, AbortController>();
  /** Progress tokens whose notifications go to a caller wherever they arrive (a task's, which outlive their request). */
  private readonly progressRoutes = new Map<string | number, (m: WireMessage) => void>();
  /** Task ids whose progress goes to a caller whatever its token (a task picked up again by id). */
  private readonly taskRoutes = new Map<string, (m: WireMessage) => void>();

  private constructor(
    private readonly config: LaneConfig,
    private readonly openStream: boolean,
  ) {}

  /**
   * Opens a session. With `openStream` the session's GET stream is kept open
   * in the background, as the server may send its requests and list changes
   * there rather than on a POST's answer.
   */
  static async open(config: LaneConfig, openStream = true): Promise<LegacySession> {
    const session = new LegacySession(config, openStream);
    await session.initialize();
    if (openStream) session.startStream();
    return session;
  }

  private startStream(): void {
    this.background?.abort();
    const controller = (this.background = new AbortController());
    let opened!: () => void;
    let failed!: (err: unknown) => void;
    this.streamOpened = new Promise<void>((resolve, reject) => ((opened = resolve), (failed = reject)));
    // Only listen() waits for the stream; requests work without it, so nobody else sees the failure.
    this.streamOpened.catch(() => {});
    void (async () => {
      try {
        for await (const m of this.stream(controller.signal, opened)) {
          if (this.routed(m)) continue;
          this.config.onNotification?.(m);
          for (const listener of this.listeners) listener(m);
        }
      } catch (err) {
        // 405 (no GET stream offered), a closed session or an abort.
        failed(err);
      }
    })();
  }

  /**
   * Resolves once the server has answered the session's GET stream with 200:
   * from then on the session's notifications have a stream to go to (one sent
   * before it opens has nowhere to go). Starts the stream if the client was
   * told not to keep one; rejects when the server refuses it.
   */
  whenStreamOpen(): Promise<void> {
    if (!this.background) this.startStream();
    return this.streamOpened;
  }

  /**
   * Sends the progress of `token` to `onProgress` on whichever stream it arrives: a 2025-11-25 task
   * keeps its call's progress token for its whole life, and its progress comes on the streams of later
   * requests (`tasks/result`) or the session's own. Returns how to stop.
   */
  routeProgress(token: string | number, options: CallOptions): () => void {
    this.progressRoutes.set(token, (m) => deliver(m, options, token));
    return () => void this.progressRoutes.delete(token);
  }

  /**
   * Sends the progress of task `taskId` to `onProgress`, known by the task it names (every message about
   * a task carries `related-task`): a caller that picks a task up again by id never knew its token.
   */
  routeTaskProgress(taskId: string, options: CallOptions): () => void {
    if (!options.onProgress) return () => {};
    this.taskRoutes.set(taskId, (m) => deliver(m, options, m.params?.progressToken as string | number));
    return () => void this.taskRoutes.delete(taskId);
  }

  /** Delivers what belongs to a route (a task's progress, the server cancelling one of its requests); false for the rest. */
  private routed(m: WireMessage): boolean {
    if (m.method === "notifications/cancelled") {
      const answering = this.answering.get(m.params?.requestId as string | number);
      answering?.abort(new McpClientError(`The server cancelled its request: ${String(m.params?.reason ?? "no reason given")}`));
      return answering !== undefined;
    }
    if (m.method !== "notifications/progress") return false;
    const task = ((m.params?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK] as { taskId?: unknown } | undefined)?.taskId;
    const route =
      this.progressRoutes.get(m.params?.progressToken as string | number) ??
      (typeof task === "string" ? this.taskRoutes.get(task) : undefined);
    route?.(m);
    return route !== undefined;
  }

  /** Adds a listener to the GET stream's notifications; returns how to remove it. */
  subscribe(listener: (m: WireMessage) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private headers(method?: string, params?: Record<string, unknown>): Record<string, string> {
    const name = method && params ? mcpName(method, params) : undefined;
    return {
      ...this.config.headers,
      ...(this.server ? { "MCP-Protocol-Version": this.version } : {}),
      ...(this.sessionId ? { "Mcp-Session-Id": this.sessionId } : {}),
      ...(method ? { "Mcp-Method": method } : {}),
      ...(name !== undefined ? { "Mcp-Name": encodeHeaderValue(name) } : {}),
    };
  }

  private async initialize(): Promise<void> {
    this.sessionId = undefined;
    const id = nextId();
    const params = {
      protocolVersion: legacyVersion(),
      capabilities: capabilitiesOf(this.config.handlers, true, false, this.config.extensions),
      clientInfo: this.config.clientInfo,
    };
    const deadline = new Deadline(this.config.timeoutMs, "initialize");
    let result: InitializeResult;
    try {
      const res = await post(
        this.config.fetch,
        this.config.url,
        this.headers("initialize"),
        { jsonrpc: "2.0", id, method: "initialize", params },
        deadline.signal,
      );
      if (!res.ok) throw await httpError(res, "initialize");
      this.sessionId = res.headers.get("mcp-session-id") ?? undefined;
      result = (await this.consume(res, id, "initialize", { signal: deadline.signal }, undefined, deadline)) as unknown as InitializeResult;
    } finally {
      deadline.done();
    }
    if (!(LEGACY_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
      throw new McpClientError(
        `The server answered initialize with protocol version ${result.protocolVersion}, which this client does not speak`,
      );
    }
    this.version = result.protocolVersion;
    this.server = result;
    await this.notify("notifications/initialized");
    if (this.config.logLevel && result.capabilities?.logging) await this.request("logging/setLevel", { level: this.config.logLevel });
  }

  /** Sends a notification; the server accepts it with 202 and no body. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const res = await post(this.config.fetch, this.config.url, this.headers(method), {
      jsonrpc: "2.0",
      method,
      ...(params ? { params } : {}),
    });
    if (!res.ok) throw await httpError(res, method);
    await res.body?.cancel();
  }

  async request(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>> {
    for (let attempt = 0; ; attempt++) {
      const id = nextId();
      const progressToken = options?.onProgress ? id : undefined;
      const meta = { ...(params._meta as object | undefined), ...(progressToken !== undefined ? { progressToken } : {}) };
      const body = { jsonrpc: "2.0", id, method, params: { ...params, ...(Object.keys(meta).length ? { _meta: meta } : {}) } };
      // In this revision closing a connection is not a cancellation: say it. The server may already be
      // running the request before its answer's headers arrive, so the listener is in place before the POST.
      const onAbort = () =>
        void this.notify("notifications/cancelled", { requestId: id, reason: "The client cancelled the request" }).catch(() => {});
      const deadline = new Deadline(options?.timeoutMs ?? this.config.timeoutMs, method, options?.signal);
      const signal = deadline.signal;
      if (signal.aborted) throw signal.reason;
      if (method !== "initialize") signal.addEventListener("abort", onAbort, { once: true });
      try {
        const res = await post(this.config.fetch, this.config.url, { ...this.headers(method, params), ...options?.headers }, body, signal);
        // A session the server has forgotten answers 404: the client must start a new one.
        if (res.status === 404 && this.sessionId && attempt === 0) {
          await res.body?.cancel();
          await this.initialize();
          if (this.openStream) this.startStream();
          continue;
        }
        if (!res.ok) throw await httpError(res, method);
        return await this.consume(res, id, method, { ...options, signal }, progressToken, deadline);
      } finally {
        deadline.done();
        signal.removeEventListener("abort", onAbort);
      }
    }
  }

  /** Reads an answer to its end, resuming with `Last-Event-ID` when the server closes the connection first. */
  private async consume(
    res: Response,
    id: number,
    method: string,
    options?: CallOptions,
    progressToken?: number,
    deadline?: Deadline,
  ): Promise<Record<string, unknown>> {
    const signal = options?.signal;
    let lastEventId: string | undefined;
    let retry = DEFAULT_RETRY_MS;
    let idle = 0;
    let failure: unknown;
    const { limits } = this.config;
    for (let current: Response | undefined = res; ; ) {
      let progressed = false;
      try {
        for await (const r of current ? messagesOf(current, signal, limits.maxMessageBytes) : []) {
          if (r.eventId !== undefined && r.eventId !== lastEventId) {
            lastEventId = r.eventId;
            progressed = true;
          }
          if (r.retry !== undefined) retry = r.retry;
          const m = r.message;
          if (!m) continue;
          deadline?.touch();
          if (m.id === id && (m.result !== undefined || m.error !== undefined)) {
            if (m.error) throw fromWireError(m.error, current!.status);
            return m.result ?? {};
          }
          this.handle(m, options, progressToken, signal, deadline, (err) => (failure ??= err));
          if (failure !== undefined) throw failure;
        }
      } catch (err) {
        // A connection dropped mid-answer is resumed below, as one the server closed.
        if (failure !== undefined || !dropped(err, signal) || lastEventId === undefined) throw err;
      }
      if (failure !== undefined) throw failure;
      if (signal?.aborted) throw signal.reason;
      idle = progressed ? 0 : idle + 1;
      if (lastEventId === undefined || idle > limits.maxReconnects)
        throw new McpClientError(`The answer to ${method} ended without a result`);
      await sleep(backoff(retry, idle, limits), signal);
      current = await this.resume(lastEventId, signal).catch((err: unknown) => {
        if (!dropped(err, signal)) throw err;
        return undefined;
      });
    }
  }

  /**
   * A notification goes to its request, a route or the app. A server request is answered through the
   * app's handlers without holding up the stream it came on, since the server may cancel it there; a
   * failure to deliver the answer is reported through `failed`.
   */
  private handle(
    m: WireMessage,
    options: CallOptions | undefined,
    progressToken: number | undefined,
    signal?: AbortSignal,
    deadline?: Deadline,
    failed?: (err: unknown) => void,
  ): void {
    if (!m.method) return;
    if (m.id === undefined || m.id === null) {
      if (!this.routed(m)) deliver(m, options, progressToken, this.config.onNotification);
      return;
    }
    deadline?.pause();
    void this.answer(m, signal).then(
      () => deadline?.touch(),
      (err: unknown) => failed?.(err),
    );
  }

  private async answer(m: WireMessage, signal?: AbortSignal): Promise<void> {
    const id = m.id as string | number;
    const controller = new AbortController();
    const both = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    this.answering.set(id, controller);
    // An answer to a task's question names the task too, as every message about a task must.
    const related = (m.params?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK];
    let reply: unknown;
    try {
      const result = (await answerInput(this.config.handlers, { method: m.method!, params: m.params }, both)) as Record<string, unknown>;
      reply = {
        jsonrpc: "2.0",
        id,
        result: related ? { ...result, _meta: { ...(result._meta as object | undefined), [RELATED_TASK]: related } } : result,
      };
    } catch (err) {
      const e = err as McpClientError;
      reply = { jsonrpc: "2.0", id, error: { code: typeof e.code === "number" ? e.code : -32603, message: e.message ?? String(err) } };
    } finally {
      this.answering.delete(id);
    }
    // A request the server cancelled gets no answer.
    if (controller.signal.aborted) return;
    const res = await post(this.config.fetch, this.config.url, this.headers(), reply, signal);
    if (!res.ok) throw await httpError(res, `answer to ${m.method}`);
    await res.body?.cancel();
  }

  private async resume(lastEventId: string, signal?: AbortSignal): Promise<Response> {
    const res = await this.config.fetch(this.config.url, {
      method: "GET",
      headers: { ...this.headers(), Accept: "text/event-stream", "Last-Event-ID": lastEventId },
      signal,
    });
    if (!res.ok) throw await httpError(res, "resuming the stream");
    return res;
  }

  /**
   * The session's own GET stream: what the server sends outside any request
   * (list changes, resource updates, its own requests). Yields notifications;
   * answers requests through the handlers; resumes after a dropped connection.
   */
  async *stream(signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<WireMessage> {
    let lastEventId: string | undefined;
    let retry = DEFAULT_RETRY_MS;
    let opened = false;
    let idle = 0;
    const { limits } = this.config;
    while (!signal?.aborted) {
      let progressed = false;
      let openedAt = Infinity;
      try {
        const headers: Record<string, string> = {
          ...this.headers(),
          Accept: "text/event-stream",
          ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}),
        };
        const res = await this.config.fetch(this.config.url, { method: "GET", headers, signal });
        if (!res.ok) throw await httpError(res, "opening the session stream");
        opened = true;
        onOpen?.();
        openedAt = Date.now();
        for await (const r of messagesOf(res, signal, limits.maxMessageBytes)) {
          if (r.eventId !== undefined) lastEventId = r.eventId;
          if (r.retry !== undefined) retry = r.retry;
          const m = r.message;
          if (!m?.method) continue;
          progressed = true;
          if (m.id !== undefined && m.id !== null) this.handle(m, undefined, undefined, signal);
          else yield m;
        }
      } catch (err) {
        // A stream never opened, refused, or too large ends here; one the network dropped is resumed.
        if (!opened || !dropped(err, signal)) throw err;
      }
      // A server that closes the stream at once, again and again, is met with longer waits and then left;
      // one that stayed open a while was not closed at once, even if the server had nothing to say.
      idle = progressed || Date.now() - openedAt >= MAX_BACKOFF_MS ? 0 : idle + 1;
      if (idle > limits.maxReconnects)
        throw new McpClientError(`The session stream came back empty ${idle} times in a row (limits.maxReconnects); it is not reopened`);
      await sleep(backoff(retry, idle, limits), signal).catch(() => {});
    }
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.request("ping", {}, { ...(signal ? { signal } : {}) });
  }

  async rootsChanged(): Promise<void> {
    await this.notify("notifications/roots/list_changed");
  }

  /** The session's GET stream carries the notifications; resources are subscribed to first. */
  async listen(filter: ListenFilter, signal: AbortSignal): Promise<{ filter: ListenFilter; messages: AsyncGenerator<WireMessage> }> {
    for (const uri of filter.resourceSubscriptions ?? []) await this.request("resources/subscribe", { uri });
    // Listening from now on, before the stream is known to be open, so nothing it brings is missed.
    const messages = queued((push) => this.subscribe(push), signal);
    await this.whenStreamOpen();
    return { filter, messages };
  }

  /** Ends the session on the server (405 means it does not let clients do that, which is fine). */
  async close(): Promise<void> {
    this.background?.abort();
    if (!this.sessionId) return;
    const res = await this.config.fetch(this.config.url, { method: "DELETE", headers: this.headers() }).catch(() => undefined);
    await res?.body?.cancel();
    this.sessionId = undefined;
  }
}
