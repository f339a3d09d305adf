/**
 * `mountServer` (docs/mount.md): another MCP server's tools, prompts and resources served as this server's own,
 * under a prefix. The upstream is reached with the dual-era client (src/engine/client/), whose fallback picks
 * the revision it speaks; downstream, they are served on both revisions like
 * the app's, through this server's authorization, policy, rate limits, spans and log lines. An app
 * without mounts imports none of this, and so carries no client.
 */
import { MemoryCache } from "../client/cache";
import { McpClient, type AuthProvider, type McpClientOptions } from "../client/client";
import type { Protocol } from "../client/era";
import { checkEndpoint } from "../client/auth/endpoints";
import { McpClientError } from "../client/errors";
import type { Fetch } from "../client/wire";
import type { HandlerContext } from "../mcp/context";
import { ErrorCode, McpError, invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { COMPLETION_METHODS } from "../mcp/methods/completion";
import { PROMPT_METHODS } from "../mcp/methods/prompts";
import { mountedResource, mountedTool, type MountedList } from "../mcp/mounts";
import { RESOURCE_METHODS } from "../mcp/methods/resources";
import { paginate } from "../mcp/pagination";
import { servedBy, type MethodTable } from "../mcp/registry";
import type { InputRequest } from "../mcp/input";
import type { Mount } from "../mcp/mounts";
import type { CallToolResult } from "../mcp/types";

export interface MountOptions<Env = any> {
  /**
   * Mounted tools and prompts are named `<prefix>_<name>`, resources `<prefix>+<uri>`: a letter, then
   * letters, digits, `-` and `.` (no `_`, so names stay unambiguous), at most 32.
   */
  prefix: string;
  /**
   * Where the upstream's MCP endpoint is: a URL, or a function of `env` giving a URL (kept in a var or
   * a secret) or a service binding to another Worker (`(env) => env.NOTES_MCP`; its `/mcp` is called).
   */
  url: string | ((env: Env) => string | Fetcher);
  /**
   * Headers for every request to the upstream, from `env` (a token kept in a secret:
   * `(env) => ({ Authorization: \`Bearer ${env.EX_TOKEN}\` })`). None by default; the caller's own
   * token is never sent.
   */
  headers?: (env: Env) => Record<string, string>;
  /**
   * Credentials obtained for the upstream, made once per isolate from `env`: OAuth client credentials
   * with the issuer pinned, `(env) => new ClientCredentials({ clientId, clientSecret: env.EX_SECRET,
   * issuer })` from `./client`. None by default.
   */
  auth?: (env: Env) => AuthProvider;
  /** The scopes a call of any mounted tool needs here (docs/authorization.md). */
  scopes?: readonly string[];
  /** Scopes by the upstream tool's name, in place of `scopes` for that tool. */
  toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** How long the upstream's tool list is kept before it is asked again (default 60 000 ms; the upstream's ttlMs when shorter). */
  listTtlMs?: number;
  /** With a service binding: the URL the upstream Worker is called at (default `http://localhost/mcp`), for its host check. */
  serviceUrl?: string;
  /** Which revision to speak upstream: `auto` (the default) tries 2026-07-28 and falls back to 2025-11-25. */
  protocol?: Protocol;
  /** How long a call may wait on the upstream without an answer or progress (default 60 000 ms). */
  timeoutMs?: number;
}

const PREFIX = /^[A-Za-z][A-Za-z0-9.-]{0,31}$/;
/** The request that lists each kind. */
const LIST_METHOD: Record<MountedList, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};
/**
 * The URL a service binding is called at: the binding decides where the request goes; the URL is what
 * the upstream reads (localhost passes the default ALLOWED_HOSTS of a Worker built on this template).
 */
const SERVICE_URL = "http://localhost/mcp";
/** The notification each list's change is, upstream and here. */
const CHANGED: Record<MountedList, string> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed",
  resourceTemplates: "notifications/resources/list_changed",
};
/** The lists an upstream's list-changed notification makes stale. */
const STALE: Record<string, MountedList[]> = {
  "notifications/tools/list_changed": ["tools"],
  "notifications/prompts/list_changed": ["prompts"],
  "notifications/resources/list_changed": ["resources", "resourceTemplates"],
};

/**
 * The lists and reads of prompts and resources with the mounts' own: the app's first (PROMPT_METHODS,
 * RESOURCE_METHODS, which an app with prompts or resources brings anyway), then each mount's under its
 * prefix. A local URI that starts like a mount's (`ex+…`) is the mount's.
 */
const MOUNT_METHODS: MethodTable = {
  "resources/list": {
    needs: "resources",
    run: async (reg, params, ctx) =>
      paginate(
        "resources",
        [...reg.resourceList, ...(await Promise.all((reg.mounts ?? []).map((m) => m.resources(ctx)))).flat()],
        params.cursor,
        reg.pageSize,
      ),
  },
  "resources/templates/list": {
    needs: "resources",
    run: async (reg, params, ctx) =>
      paginate(
        "resourceTemplates",
        [...reg.templateList, ...(await Promise.all((reg.mounts ?? []).map((m) => m.resourceTemplates(ctx)))).flat()],
        params.cursor,
        reg.pageSize,
      ),
  },
  "resources/read": {
    needs: "resources",
    run: (reg, params, ctx) => {
      const mounted = typeof params.uri === "string" && mountedResource(reg.mounts, params.uri);
      return mounted ? mounted[0].readResource(mounted[1], ctx) : RESOURCE_METHODS["resources/read"]!.run(reg, params, ctx);
    },
  },
  "prompts/list": {
    needs: "prompts",
    run: async (reg, params, ctx) =>
      paginate(
        "prompts",
        [...reg.promptList, ...(await Promise.all((reg.mounts ?? []).map((m) => m.prompts(ctx)))).flat()],
        params.cursor,
        reg.pageSize,
      ),
  },
  "completion/complete": {
    needs: "completions",
    run: (reg, params, ctx) => {
      const ref = isObject(params.ref) ? params.ref : {};
      // A mounted prompt or template is completed upstream; the app's own (and bad params) here.
      const prompt =
        ref.type === "ref/prompt" && typeof ref.name === "string" && !reg.prompts.has(ref.name) && mountedTool(reg.mounts, ref.name);
      if (prompt) return prompt[0].complete({ type: "ref/prompt", name: prompt[1] }, params, ctx);
      const template =
        ref.type === "ref/resource" &&
        typeof ref.uri === "string" &&
        !reg.templates.some((t) => t.def.uriTemplate === ref.uri) &&
        mountedResource(reg.mounts, ref.uri);
      if (template && isObject(params.argument)) return template[0].complete({ type: "ref/resource", uri: template[1] }, params, ctx);
      return COMPLETION_METHODS["completion/complete"]!.run(reg, params, ctx);
    },
  },
  "prompts/get": {
    needs: "prompts",
    run: (reg, params, ctx) => {
      const name = params.name;
      const mounted = typeof name === "string" && !reg.prompts.has(name) && mountedTool(reg.mounts, name);
      if (!mounted) return PROMPT_METHODS["prompts/get"]!.run(reg, params, ctx);
      const args = params.arguments ?? {};
      if (!isObject(args) || Object.values(args).some((a) => typeof a !== "string"))
        throw invalidParams("params.arguments must be an object of strings");
      return mounted[0].getPrompt(mounted[1], args as Record<string, string>, ctx);
    },
  },
};

export function mountServer<Env = any>(options: MountOptions<Env>): Mount {
  const { prefix } = options;
  if (!PREFIX.test(prefix))
    throw new Error(
      `mountServer: prefix "${prefix}" must be a letter then up to 31 letters, digits, "-" or "." (no "_": names stay unambiguous; it starts mounted URIs' schemes)`,
    );
  const bound = options.listTtlMs ?? 60_000;
  /** The upstream's lists, renamed, by kind ("tools", "prompts"), each kept until its `until`. */
  const listed = new Map<string, { items: Record<string, unknown>[]; until: number }>();
  // Kept across requests, so that a token it obtained serves every call until it expires.
  let credentials: AuthProvider | undefined;
  /**
   * The upstream's cacheable answers a call needs before it is made (`server/discover`, and `tools/list`
   * for the tool's `x-mcp-header` arguments), kept in this isolate for the upstream's `ttlMs`. One
   * partition: every call upstream carries the mount's credentials, never the caller's.
   */
  let answers = new MemoryCache(16);

  /**
   * Tells this server's listeners (2026 listen streams, 2025 GET streams, through the hub as `ctx.notify`
   * does) that a mounted list changed. Each isolate that sees the change says so once: a listener may
   * hear it more than once, which costs it one list.
   */
  const relayChange = (ctx: HandlerContext<any>, kind: MountedList): Promise<void> => {
    // What calls kept of the upstream's lists is stale too.
    answers = new MemoryCache(16);
    const n = ctx.notify;
    const sent = kind === "tools" ? n.toolsListChanged() : kind === "prompts" ? n.promptsListChanged() : n.resourcesListChanged();
    return sent.catch((err: unknown) => {
      console.error(JSON.stringify({ mcp: "mount_relay_failed", mount: prefix, what: CHANGED[kind], message: String(err) }));
    });
  };

  /**
   * The upstream said a list changed, on a stream of a request this server made (a 2025 call's SSE
   * answer): the kept list is stale at once, and this server's listeners are told.
   */
  const upstreamNotified = (ctx: HandlerContext<any>, method: string): void => {
    const stale = STALE[method];
    if (!stale) return;
    for (const kind of stale) listed.delete(kind);
    void relayChange(ctx, stale[0]!);
  };

  /** A client for this request: a Worker may not reuse one request's connections in another. */
  const clientFor = (ctx: HandlerContext<any>, more: McpClientOptions = {}, cached = false): McpClient => {
    const target = typeof options.url === "function" ? options.url(ctx.env as Env) : options.url;
    const service = typeof target === "string" ? undefined : target;
    const url = service ? (options.serviceUrl ?? SERVICE_URL) : (target as string);
    const refused = service ? undefined : refusal(url, (ctx.env as { MCP_DEV?: string }).MCP_DEV === "on");
    const fetch: Fetch | undefined = service
      ? (input, init) => service.fetch(input, init)
      : refused
        ? () => Promise.reject(refused)
        : undefined;
    return new McpClient(url, {
      ...more,
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(fetch ? { fetch } : {}),
      headers: options.headers?.(ctx.env as Env) ?? {},
      ...(options.auth ? { auth: (credentials ??= options.auth(ctx.env as Env)) } : {}),
      timeoutMs: options.timeoutMs,
      ...(cached ? { cache: answers, cachePartition: prefix } : {}),
      sessionStream: false,
      onNotification: (m) => upstreamNotified(ctx, m.method),
      // The downstream client checks what it asked for; this server passes results on as they are.
      validateOutput: false,
    });
  };

  /**
   * Why a URL may not be mounted here, if it may not: the client's rules for the endpoints it is sent
   * to. Plain http and private, link-local or loopback addresses are refused in a deployed Worker (a
   * header or token in clear, a reach into an internal network); under `npm run dev` (MCP_DEV=on) a
   * local upstream such as `http://127.0.0.1:8788/mcp` works as it is.
   */
  const refusal = (url: string, dev: boolean): McpClientError | undefined => {
    try {
      checkEndpoint(url, `URL of the mounted server "${prefix}"`, "https://mount.invalid/", { allowHttp: dev, allowPrivateNetwork: dev });
      return undefined;
    } catch (err) {
      return err as McpClientError;
    }
  };

  /** What a failure of the upstream is downstream: its JSON-RPC error as it was, else a tool error naming the mount. */
  const failure = (err: unknown, what: string): CallToolResult => {
    if (err instanceof McpClientError && err.code !== undefined && err.status !== undefined && err.status < 500)
      throw new McpError(err.code, err.message, err.data);
    if (err instanceof McpError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    console.error(JSON.stringify({ mcp: "mount_failed", mount: prefix, what, message: reason }));
    return {
      content: [{ type: "text", text: `The mounted server "${prefix}" could not be reached for ${what}: ${reason}` }],
      isError: true,
    };
  };

  /** An upstream entry as listed here: a name with the prefix and `_`, a URI (or template) with the prefix and `+`. */
  const renamedEntry = (kind: MountedList, item: Record<string, unknown>) =>
    kind === "resources"
      ? { ...item, uri: `${prefix}+${item.uri as string}` }
      : kind === "resourceTemplates"
        ? { ...item, uriTemplate: `${prefix}+${item.uriTemplate as string}` }
        : { ...item, name: `${prefix}_${item.name as string}` };

  /** One of the upstream's lists (all its pages, up to 20), renamed with the prefix and kept a while. */
  async function list(ctx: HandlerContext<any>, kind: MountedList): Promise<Record<string, unknown>[]> {
    const kept = listed.get(kind);
    if (kept && kept.until > Date.now()) return kept.items;
    const client = clientFor(ctx);
    try {
      // An upstream without prompts or resources has none to list.
      if (kind !== "tools") {
        await client.connect();
        if (!client.capabilities[kind === "prompts" ? "prompts" : "resources"]) return [];
      }
      const items: Record<string, unknown>[] = [];
      let ttlMs: unknown;
      let cursor: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = (await client.request(LIST_METHOD[kind], cursor ? { cursor } : {}, { signal: ctx.signal })) as Record<string, unknown>;
        items.push(...((page[kind] as Record<string, unknown>[] | undefined) ?? []));
        ttlMs ??= page.ttlMs;
        cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
        if (!cursor) break;
      }
      const ttl = typeof ttlMs === "number" && ttlMs >= 0 ? Math.min(ttlMs, bound) : bound;
      const renamed = items.map(({ execution: _execution, ...item }) => renamedEntry(kind, item));
      listed.set(kind, { items: renamed, until: Date.now() + ttl });
      // A list that differs from the one kept before is a change this server's listeners hear of.
      if (kept && JSON.stringify(kept.items) !== JSON.stringify(renamed)) await relayChange(ctx, kind);
      return renamed;
    } catch (err) {
      // A list this server cannot complete leaves the mount's entries out rather than failing the app's.
      console.error(
        JSON.stringify({
          mcp: "mount_failed",
          mount: prefix,
          what: LIST_METHOD[kind],
          message: err instanceof Error ? err.message : String(err),
        }),
      );
      return kept?.items ?? [];
    } finally {
      void client.close().catch(() => undefined);
    }
  }

  return servedBy<Mount>(
    {
      prefix,
      scopes: options.scopes,
      toolScopes: options.toolScopes,
      tools: (ctx) => list(ctx, "tools"),
      lists: (kind, name) => listed.get(kind)?.items.some((item) => item.name === name) ?? false,
      prompts: (ctx) => list(ctx, "prompts"),
      resources: (ctx) => list(ctx, "resources"),
      resourceTemplates: (ctx) => list(ctx, "resourceTemplates"),
      async readResource(uri, ctx) {
        const client = clientFor(ctx);
        try {
          const result = (await client.readResource(uri, { signal: ctx.signal })) as unknown as { contents?: Record<string, unknown>[] };
          return { ...result, contents: (result.contents ?? []).map((c) => ({ ...c, uri: `${prefix}+${c.uri as string}` })) };
        } catch (err) {
          const failed = failure(err, `the resource ${uri}`);
          throw new McpError(ErrorCode.InternalError, (failed.content[0] as { text: string }).text);
        } finally {
          void client.close().catch(() => undefined);
        }
      },
      async complete(ref, params, ctx) {
        const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
        if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string")
          throw invalidParams("completion/complete needs params.argument with string name and value");
        const context = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : undefined;
        const client = clientFor(ctx);
        try {
          await client.connect();
          if (!client.capabilities.completions) return { completion: { values: [], total: 0, hasMore: false } };
          const result = await client.complete(
            ref,
            { name: argument.name, value: argument.value },
            context as Record<string, string> | undefined,
            { signal: ctx.signal },
          );
          return { completion: result.completion };
        } catch (err) {
          const failed = failure(err, `the completion of ${ref.type === "ref/prompt" ? ref.name : ref.uri}`);
          throw new McpError(ErrorCode.InternalError, (failed.content[0] as { text: string }).text);
        } finally {
          void client.close().catch(() => undefined);
        }
      },
      async getPrompt(name, args, ctx) {
        const client = clientFor(ctx);
        try {
          return (await client.getPrompt(name, args, { signal: ctx.signal })) as unknown as Record<string, unknown>;
        } catch (err) {
          const failed = failure(err, `the prompt ${name}`);
          throw new McpError(ErrorCode.InternalError, (failed.content[0] as { text: string }).text);
        } finally {
          void client.close().catch(() => undefined);
        }
      },
      async callTool(name, args, ctx) {
        // What the upstream asks of the user is asked of this server's client, by the same key on every
        // run of this call (the n-th question is `<prefix>:<n>`), so the answer is there when the call
        // runs again: a 2026 client retries with it, a 2025 session's request resumes with it.
        let asked = 0;
        let pending: unknown;
        const stop = new AbortController();
        const relay = <T>(request: InputRequest): T => {
          const key = `${prefix}:${asked++}`;
          try {
            return ctx.input.ask({ [key]: request })[key] as T;
          } catch (thrown) {
            pending = thrown;
            stop.abort();
            throw thrown;
          }
        };
        const client = clientFor(
          ctx,
          {
            handlers: {
              elicitation: (params) => relay({ method: "elicitation/create", params } as InputRequest),
              sampling: (params) => relay({ method: "sampling/createMessage", params } as InputRequest),
              roots: () => relay({ method: "roots/list" }),
            },
          },
          true,
        );
        try {
          return await client.callTool(name, args, {
            signal: AbortSignal.any([ctx.signal, stop.signal]),
            onProgress: (p) => ctx.progress(p.progress, p.total, p.message),
          });
        } catch (err) {
          if (pending !== undefined) throw pending;
          if (ctx.signal.aborted) throw err;
          return failure(err, `the tool ${name}`);
        } finally {
          void client.close().catch(() => undefined);
        }
      },
    },
    { tables: [MOUNT_METHODS] },
  );
}
