/**
 * The 2026-07-28 lane: every request stands alone. It carries its version,
 * the client's capabilities and identity in `_meta`, mirrors its routing
 * fields in headers, and is answered on its own POST. Closing that answer's
 * stream (the AbortSignal) is the cancellation.
 */
import { MODERN_VERSION, META } from "../mcp/versions";
import { McpClientError, fromWireError } from "./errors";
import { capabilitiesOf } from "./handlers";
import { encodeHeaderValue, mcpName } from "./headers";
import { Deadline } from "./timeout";
import { deliver, nextId, type CallOptions, type Lane, type LaneConfig } from "./lane";
import type { ListenFilter } from "./listen";
import { httpError, messagesOf, post, type WireMessage } from "./wire";

export class ModernLane implements Lane {
  readonly era = "modern";
  constructor(
    private readonly config: LaneConfig,
    readonly version: string = MODERN_VERSION,
  ) {}

  /** The envelope every request carries. */
  meta(options?: CallOptions, progressToken?: string | number): Record<string, unknown> {
    const level = options?.onLog ? (this.config.logLevel ?? "info") : this.config.logLevel;
    return {
      [META.protocolVersion]: this.version,
      [META.clientCapabilities]: capabilitiesOf(this.config.handlers, false, this.config.tasks !== undefined, this.config.extensions),
      [META.clientInfo]: this.config.clientInfo,
      ...(level ? { [META.logLevel]: level } : {}),
      ...(progressToken !== undefined ? { progressToken } : {}),
    };
  }

  /** Sends one request and returns its answer as a stream of messages (the listen stream uses this directly). */
  async open(
    method: string,
    params: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<{ id: number; progressToken?: number; messages: AsyncGenerator<WireMessage> }> {
    const id = nextId();
    const progressToken = options?.onProgress ? id : undefined;
    const callerMeta = (params._meta as Record<string, unknown> | undefined) ?? {};
    const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...callerMeta, ...this.meta(options, progressToken) } } };
    const name = mcpName(method, params);
    const headers: Record<string, string> = {
      ...this.config.headers,
      "MCP-Protocol-Version": this.version,
      "Mcp-Method": method,
      ...(name !== undefined ? { "Mcp-Name": encodeHeaderValue(name) } : {}),
      ...options?.headers,
    };
    const res = await post(this.config.fetch, this.config.url, headers, body, options?.signal);
    if (!res.ok) throw await httpError(res, method);
    const signal = options?.signal;
    const maxBytes = this.config.limits.maxMessageBytes;
    async function* messages(): AsyncGenerator<WireMessage> {
      for await (const r of messagesOf(res, signal, maxBytes)) if (r.message) yield r.message;
    }
    return { id, ...(progressToken !== undefined ? { progressToken } : {}), messages: messages() };
  }

  async request(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>> {
    const deadline = new Deadline(options?.timeoutMs ?? this.config.timeoutMs, method, options?.signal);
    const timed = { ...options, signal: deadline.signal };
    try {
      const { id, progressToken, messages } = await this.open(method, params, timed);
      for await (const message of messages) {
        deadline.touch();
        if (message.id === id && (message.result !== undefined || message.error !== undefined)) {
          if (message.error) throw fromWireError(message.error, 200);
          return message.result ?? {};
        }
        if (message.method && message.id === undefined) deliver(message, options, progressToken, this.config.onNotification);
      }
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw new McpClientError(`The answer to ${method} ended without a result`);
    } finally {
      deadline.done();
    }
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.request("server/discover", {}, signal ? { signal } : {});
  }

  async rootsChanged(): Promise<void> {
    // A 2026-07-28 server asks for the roots within each request that needs them.
  }

  async listen(filter: ListenFilter, signal: AbortSignal): Promise<{ filter: ListenFilter; messages: AsyncGenerator<WireMessage> }> {
    const { messages } = await this.open("subscriptions/listen", { notifications: filter }, { signal });
    // Read by hand: leaving a for-await loop would close the stream the subscription goes on reading.
    for (let r = await messages.next(); !r.done; r = await messages.next()) {
      const m = r.value;
      if (m.error) throw new McpClientError(m.error.message, m.error.code, 200, m.error.data);
      if (m.method === "notifications/subscriptions/acknowledged")
        return { filter: (m.params?.notifications ?? filter) as ListenFilter, messages };
    }
    throw new McpClientError("The listen stream ended before the server acknowledged it");
  }

  async close(): Promise<void> {
    // Nothing to release: 2026-07-28 keeps no session.
  }
}
