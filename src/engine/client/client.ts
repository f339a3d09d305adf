/**
 * `McpClient`: one MCP server, reached with `fetch` only, so the same code
 * runs in a Worker, a Durable Object and Node. It picks the revision
 * (2026-07-28 first unless told otherwise, a 2025-11-25 session when the
 * server does not speak it), drives the input rounds through the app's
 * handlers, and returns typed results or throws `McpClientError`.
 */
import type { LogLevel } from "../mcp/types";
import { MODERN_VERSION, META } from "../mcp/versions";
import { CacheFront, MemoryCache, type ResultCache } from "./cache";
import { judgeProbe, rememberEra, rememberedEra, type Protocol } from "./era";
import { McpClientError } from "./errors";
import type { InputHandlers } from "./handlers";
import { paramHeaders, toolHeaderMap } from "./headers";
import type { AnyLane } from "./any-lane";
import type { CallOptions, LaneConfig, TaskOptions } from "./lane";
import { LegacySession } from "./legacy";
import { DEFAULT_LIMITS, type ClientLimits } from "./limits";
import { Subscription, type ListenFilter, type ServerNotification } from "./listen";
import { ModernLane } from "./modern";
import { schemaViolation } from "./output-schema";
import { sameOriginOnly } from "./redirects";
import { requestWithInput } from "./rounds";
import { DEFAULT_TIMEOUT_MS } from "./timeout";
import { TaskClient } from "./task-client";
import { callLegacyTask } from "./tasks";
import type {
  CallToolResult,
  ClientInfo,
  CompleteResult,
  CompletionRef,
  DiscoverResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
  ServerCapabilities,
  Tool,
} from "./types";
import type { Fetch, WireMessage } from "./wire";

/** Something that adds credentials to every request and can obtain them (the OAuth client is one). */
export interface AuthProvider {
  wrap(fetch: Fetch, resource: string): Fetch;
}

export interface McpClientOptions {
  /** `auto` (the default) tries 2026-07-28 and falls back to a 2025-11-25 session; or pin one revision. */
  protocol?: Protocol;
  clientInfo?: ClientInfo;
  /** How the app answers the server's questions; each one present is declared as a capability. */
  handlers?: InputHandlers;
  /** Check each tool result's `structuredContent` against the tool's listed `outputSchema` (default true). */
  validateOutput?: boolean;
  /** Defaults to the global `fetch`; a service binding's `fetch` works too. */
  fetch?: Fetch;
  /** Headers for every request (for example a static `Authorization`). */
  headers?: Record<string, string>;
  auth?: AuthProvider;
  /**
   * How long a request may go without an answer or any progress before the client cancels it and throws
   * (default 60 000 ms; progress restarts the clock, up to ten times this in all; 0 waits for ever).
   * `CallOptions.timeoutMs` overrides it per call.
   */
  timeoutMs?: number;
  /** Ask for log messages at this level (2026-07-28: per request; 2025-11-25: `logging/setLevel`). */
  logLevel?: LogLevel;
  /** Honour `ttlMs`/`cacheScope`: `true` for an in-memory cache, or your own. */
  cache?: ResultCache | true;
  /** Which `private` cache entries this client may reuse: one authorization context. Defaults to this client alone. */
  cachePartition?: string;
  /** 2025-11-25: keep the session's GET stream open for server requests and notifications (default true). */
  sessionStream?: boolean;
  /** Notifications that belong to no request (list changes, resource updates, session-wide logs). */
  onNotification?: (notification: ServerNotification) => void;
  /**
   * Take tasks (`true`, or options): a tool the server runs as a task is followed to its result, so
   * `callTool` answers the same either way. 2026-07-28 declares the tasks extension and polls
   * `tasks/get`; 2025-11-25 asks for a task on calls of tools that support one and waits on `tasks/result`.
   */
  tasks?: boolean | TaskOptions;
  /**
   * Extensions this client supports, declared under `capabilities.extensions` on both revisions, by
   * id with their settings: `{ [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } }` for a host that
   * renders MCP Apps views, `{ [SKILLS_EXTENSION]: {} }` for one that loads skills. A server may shape
   * its answers by them (this template's sends text-only tools to a client without MCP Apps).
   */
  extensions?: Record<string, object>;
  /**
   * What a server may make this client do, at most: message size, pages followed, questions per round,
   * reconnections, the outputSchema check's work. Each one left out keeps its default (DEFAULT_LIMITS;
   * docs/client-limits.md).
   */
  limits?: Partial<ClientLimits>;
}

/** Whether a 2025-11-25 server said it runs `tools/call` as a task when asked. */
const legacyTaskCalls = (caps: ServerCapabilities): boolean =>
  !!(caps as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks?.requests?.tools?.call;

export const DEFAULT_CLIENT_INFO: ClientInfo = { name: "mcp-worker-client", version: "0.1.0" };

export class McpClient {
  readonly url: string;
  private lane: AnyLane | undefined;
  private readonly config: LaneConfig;
  private readonly cache: CacheFront | undefined;
  /** Tools seen in tools/list: their `x-mcp-header` arguments, or null for a tool whose annotations are invalid. */
  private readonly toolHeaders = new Map<string, Map<string, string> | null>();
  /** Tools seen in tools/list with an `outputSchema`: what their structured results are checked against. */
  private readonly toolOutputs = new Map<string, unknown>();
  /** 2025-11-25 tools/list: which tools take a task (`execution.taskSupport`). */
  private readonly toolTasks = new Map<string, string>();
  /** The tasks this client's server runs, by id: get, list (2025-11-25), cancel, and result (which also resumes one after a restart). */
  readonly tasks: TaskClient;
  /** What the server said about itself (discover in 2026-07-28, initialize in 2025-11-25). */
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities = {};
  instructions: string | undefined;

  constructor(
    url: string | URL,
    private readonly options: McpClientOptions = {},
  ) {
    this.url = String(url);
    // Redirects are followed within the server's origin only: the body and headers (the app's, a token) stay with it.
    const base: Fetch = sameOriginOnly(options.fetch ?? ((input, init) => fetch(input, init)));
    this.config = {
      url: this.url,
      fetch: options.auth ? options.auth.wrap(base, this.url) : base,
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      handlers: options.handlers ?? {},
      headers: options.headers ?? {},
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      limits: { ...DEFAULT_LIMITS, ...options.limits },
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.tasks ? { tasks: options.tasks === true ? {} : options.tasks } : {}),
      ...(options.extensions ? { extensions: options.extensions } : {}),
      onNotification: (m) => void this.notified(m),
    };
    this.tasks = new TaskClient(() => this.ready(), this.config.handlers, this.config.tasks, this.config.limits.maxInputRequests);
    const cache = options.cache === true ? new MemoryCache() : options.cache;
    this.cache = cache ? new CacheFront(cache, this.url, options.cachePartition ?? crypto.randomUUID()) : undefined;
  }

  /** Creates a client and connects it. */
  static async connect(url: string | URL, options?: McpClientOptions): Promise<McpClient> {
    return new McpClient(url, options).connect();
  }

  /** The revision in use, once connected. */
  get protocolVersion(): string | undefined {
    return this.lane?.version;
  }
  get era(): "modern" | "legacy" | undefined {
    return this.lane?.era;
  }

  /** Chooses the revision and meets the server: `server/discover` in 2026-07-28, `initialize` in 2025-11-25. */
  async connect(): Promise<this> {
    if (this.lane) return this;
    const protocol = this.options.protocol ?? "auto";
    if (protocol !== "auto" && protocol !== MODERN_VERSION) return this.openLegacy();
    if (protocol === "auto" && rememberedEra(this.url) === "legacy") return this.openLegacy();
    const modern = new ModernLane(this.config);
    try {
      await this.discoverOn(modern);
    } catch (err) {
      if (!(err instanceof McpClientError)) throw err;
      const verdict = judgeProbe(err);
      if (verdict.kind === "modern-retry") {
        // The server named the revision it wants; one more try with it, then its answer stands.
        await this.discoverOn(new ModernLane(this.config, verdict.version));
      } else if (verdict.kind === "legacy" && protocol === "auto") {
        rememberEra(this.url, "legacy");
        return this.openLegacy();
      } else if (verdict.kind === "legacy") {
        throw new McpClientError(
          `The server at ${this.url} does not speak ${MODERN_VERSION} (it answered: ${err.message}); use protocol "auto" to fall back to a 2025-11-25 session`,
          err.code,
          err.status,
          err.data,
        );
      } else throw err;
    }
    if (protocol === "auto") rememberEra(this.url, "modern");
    return this;
  }

  private async discoverOn(lane: ModernLane): Promise<void> {
    // A discover kept in the cache (for its ttlMs) answers for the server: one request fewer per client.
    const raw =
      ((await this.cache?.get("server/discover", {})) as Awaited<ReturnType<ModernLane["request"]>> | undefined) ??
      (await lane.request("server/discover", {}));
    const result = raw as unknown as DiscoverResult;
    this.lane = lane;
    this.capabilities = result.capabilities ?? {};
    this.instructions = result.instructions;
    this.serverInfo = result._meta?.[META.serverInfo] as Implementation | undefined;
    await this.cache?.put("server/discover", {}, raw);
  }

  private async openLegacy(): Promise<this> {
    const session = await LegacySession.open(this.config, this.options.sessionStream ?? true);
    this.lane = session;
    this.capabilities = (session.server.capabilities ?? {}) as ServerCapabilities;
    this.instructions = session.server.instructions;
    this.serverInfo = session.server.serverInfo;
    return this;
  }

  private async ready(): Promise<AnyLane> {
    if (!this.lane) await this.connect();
    return this.lane!;
  }

  private async notified(m: WireMessage): Promise<void> {
    if (!m.method) return;
    await this.cache?.invalidate(m.method);
    this.options.onNotification?.({ method: m.method, params: m.params ?? {} });
  }

  /**
   * Any request, with the input rounds and the cache. The typed methods below
   * are this with the method's name and result type.
   */
  async request<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, options?: CallOptions): Promise<T> {
    const lane = await this.ready();
    const cached = await this.cache?.get(method, params);
    if (cached) return cached as T;
    const { result, afterInput } = await requestWithInput(lane, this.config, method, params, options);
    // A result given for one round of answers is that user's alone and MUST NOT be cached.
    if (!afterInput) await this.cache?.put(method, params, result);
    return result as T;
  }

  async discover(): Promise<DiscoverResult> {
    const lane = await this.ready();
    if (lane.era !== "modern") throw new McpClientError("server/discover exists only in 2026-07-28; this server speaks " + lane.version);
    return this.request<DiscoverResult>("server/discover");
  }

  /**
   * One page of tools. In 2026-07-28 a tool whose `x-mcp-header`
   * annotations break the rules is left out: the server could not accept a
   * call to it.
   */
  async listTools(params: { cursor?: string } = {}, options?: CallOptions): Promise<ListToolsResult> {
    const result = await this.request<ListToolsResult>("tools/list", params, options);
    const keep: Tool[] = [];
    for (const tool of result.tools ?? []) {
      const map = toolHeaderMap(tool.inputSchema);
      this.toolHeaders.set(tool.name, map);
      const support = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
      if (typeof support === "string") this.toolTasks.set(tool.name, support);
      if (tool.outputSchema !== undefined) this.toolOutputs.set(tool.name, tool.outputSchema);
      else this.toolOutputs.delete(tool.name);
      if (map || this.era === "legacy") keep.push(tool);
    }
    return { ...result, tools: keep };
  }

  /**
   * Every tool, following `nextCursor`: up to `limits.maxListPages` pages (past them it throws), and a
   * cursor the server gave before ends the listing, since it would only bring the same pages again.
   */
  async listAllTools(options?: CallOptions): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages === 0 || (cursor !== undefined && !seen.has(cursor)); pages++) {
      if (pages >= this.config.limits.maxListPages) {
        throw new McpClientError(`tools/list went on past ${pages} pages (limits.maxListPages)`);
      }
      if (cursor !== undefined) seen.add(cursor);
      const page = await this.listTools(cursor !== undefined ? { cursor } : {}, options);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    }
    return tools;
  }

  /**
   * Calls a tool. When the tool listed an `outputSchema`, a result that is not an error must carry
   * `structuredContent` that fits it, or the call throws (turn this off with `validateOutput: false`).
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<CallToolResult> {
    const result = await this.callToolUnchecked(name, args, options);
    const schema = this.toolOutputs.get(name);
    if (schema === undefined || result.isError || this.options.validateOutput === false) return result;
    const problem =
      result.structuredContent === undefined
        ? "no structuredContent"
        : schemaViolation(schema, result.structuredContent, this.config.limits);
    if (problem) throw new McpClientError(`Tool ${name} answered with a result that does not fit its outputSchema (${problem})`);
    return result;
  }

  private async callToolUnchecked(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
    const lane = await this.ready();
    if (lane.era === "modern" && !this.toolHeaders.has(name)) await this.listAllTools().catch(() => undefined);
    const map = this.toolHeaders.get(name);
    if (map === null && lane.era === "modern") {
      throw new McpClientError(`Tool ${name} has invalid x-mcp-header annotations; the client will not call it`);
    }
    const headers = { ...(map ? paramHeaders(map, args) : {}), ...options?.headers };
    // 2025-11-25: a task is asked for only where the server takes tasks for tools/call and the tool allows one.
    if (lane.era === "legacy" && this.config.tasks && legacyTaskCalls(this.capabilities)) {
      if (!this.toolTasks.has(name)) await this.listAllTools().catch(() => undefined);
      const support = this.toolTasks.get(name);
      if (support === "optional" || support === "required") {
        return (await callLegacyTask(lane, { name, arguments: args }, this.config.tasks, {
          ...options,
          headers,
        })) as unknown as CallToolResult;
      }
    }
    return this.request<CallToolResult>("tools/call", { name, arguments: args }, { ...options, headers });
  }

  listResources(params: { cursor?: string } = {}, options?: CallOptions): Promise<ListResourcesResult> {
    return this.request("resources/list", params, options);
  }
  listResourceTemplates(params: { cursor?: string } = {}, options?: CallOptions): Promise<ListResourceTemplatesResult> {
    return this.request("resources/templates/list", params, options);
  }
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request("resources/read", { uri }, options);
  }
  listPrompts(params: { cursor?: string } = {}, options?: CallOptions): Promise<ListPromptsResult> {
    return this.request("prompts/list", params, options);
  }
  getPrompt(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<GetPromptResult> {
    return this.request("prompts/get", { name, arguments: args }, options);
  }
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: CallOptions,
  ): Promise<CompleteResult> {
    return this.request("completion/complete", { ref, argument, ...(context ? { context: { arguments: context } } : {}) }, options);
  }

  /**
   * Tells the server the app's roots changed, so it asks for them again: `notifications/roots/list_changed`
   * in 2025-11-25. 2026-07-28 has no such notice (a server asks for the roots within each request that
   * needs them), so there this does nothing.
   */
  async rootsChanged(): Promise<void> {
    await (await this.ready()).rootsChanged();
  }

  /** `ping` exists only in 2025-11-25; in 2026-07-28 any request shows the server is there, so this discovers. */
  async ping(signal?: AbortSignal): Promise<void> {
    await (await this.ready()).ping(signal);
  }

  /**
   * Subscribes to list changes and resource updates. Resolves once the
   * server has acknowledged (2026-07-28) or the session stream is open
   * (2025-11-25, after `resources/subscribe` for each URI); read it with
   * `for await`, end it with `close()` or the signal.
   */
  async listen(filter: ListenFilter, options: { signal?: AbortSignal } = {}): Promise<Subscription> {
    const lane = await this.ready();
    const controller = new AbortController();
    options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), { once: true });
    const onEach = (n: ServerNotification) => this.cache?.invalidate(n.method);
    try {
      const started = await lane.listen(filter, controller.signal);
      return new Subscription(started.filter, started.messages, controller, onEach);
    } catch (err) {
      controller.abort();
      throw err;
    }
  }

  /**
   * Sends a 2026-07-28 request whose answer is a long stream (`events/stream`) and returns its
   * messages as they come, unfiltered; aborting `signal` ends it. For extension modules built on the
   * client (./events); it has no deadline, as a listen stream has none.
   */
  async openStream(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ id: number; messages: AsyncGenerator<WireMessage> }> {
    const lane = await this.ready();
    if (lane.era !== "modern") throw new McpClientError(`${method} exists only in 2026-07-28; this server speaks ${lane.version}`);
    return lane.open(method, params, { signal });
  }

  /** Ends the client: DELETE of the 2025-11-25 session; nothing to end in 2026-07-28. */
  async close(): Promise<void> {
    await this.lane?.close();
    this.lane = undefined;
  }
}
