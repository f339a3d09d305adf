/**
 * `mountServer` (docs/mount.md): another MCP server's tools served as this server's own, under a
 * prefix. The upstream is reached with the dual-era client (src/engine/client/), whose fallback picks
 * the revision it speaks; downstream, the mounted tools are listed and called on both revisions like
 * the app's, through this server's authorization, policy, rate limits, spans and log lines. An app
 * without mounts imports none of this, and so carries no client.
 */
import { McpClient, type AuthProvider, type McpClientOptions } from "./client/client";
import type { Protocol } from "./client/era";
import { McpClientError } from "./client/errors";
import type { Fetch } from "./client/wire";
import type { HandlerContext } from "./mcp/context";
import { McpError } from "./mcp/errors";
import type { InputRequest } from "./mcp/input";
import type { Mount } from "./mcp/mounts";
import type { CallToolResult } from "./mcp/types";

export interface MountOptions<Env = any> {
  /** Mounted tools are named `<prefix>_<tool>`: letters, digits, `-` and `.` (no `_`, so names stay unambiguous). */
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

const PREFIX = /^[A-Za-z0-9.-]{1,32}$/;
/**
 * The URL a service binding is called at: the binding decides where the request goes; the URL is what
 * the upstream reads (localhost passes the default ALLOWED_HOSTS of a Worker built on this template).
 */
const SERVICE_URL = "http://localhost/mcp";

export function mountServer<Env = any>(options: MountOptions<Env>): Mount {
  const { prefix } = options;
  if (!PREFIX.test(prefix)) throw new Error(`mountServer: prefix "${prefix}" must be 1 to 32 letters, digits, "-" or "." (no "_")`);
  const bound = options.listTtlMs ?? 60_000;
  let listed: { tools: Record<string, unknown>[]; until: number } | undefined;
  // Kept across requests, so that a token it obtained serves every call until it expires.
  let credentials: AuthProvider | undefined;

  /** A client for this request: a Worker may not reuse one request's connections in another. */
  const clientFor = (ctx: HandlerContext<any>, more: McpClientOptions = {}): McpClient => {
    const target = typeof options.url === "function" ? options.url(ctx.env as Env) : options.url;
    const service = typeof target === "string" ? undefined : target;
    const url = service ? (options.serviceUrl ?? SERVICE_URL) : (target as string);
    const fetch: Fetch | undefined = service ? (input, init) => service.fetch(input, init) : undefined;
    return new McpClient(url, {
      ...more,
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(fetch ? { fetch } : {}),
      headers: options.headers?.(ctx.env as Env) ?? {},
      ...(options.auth ? { auth: (credentials ??= options.auth(ctx.env as Env)) } : {}),
      timeoutMs: options.timeoutMs,
      sessionStream: false,
      // The downstream client checks what it asked for; this server passes results on as they are.
      validateOutput: false,
    });
  };

  /** What a failure of the upstream is downstream: its JSON-RPC error as it was, else a tool error naming the mount. */
  const failure = (err: unknown, what: string): CallToolResult => {
    if (err instanceof McpClientError && err.code !== undefined && err.status !== undefined && err.status < 500) throw new McpError(err.code, err.message, err.data);
    if (err instanceof McpError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    console.error(JSON.stringify({ mcp: "mount_failed", mount: prefix, what, message: reason }));
    return { content: [{ type: "text", text: `The mounted server "${prefix}" could not be reached for ${what}: ${reason}` }], isError: true };
  };

  return {
    prefix,
    scopes: options.scopes,
    toolScopes: options.toolScopes,
    async tools(ctx) {
      if (listed && listed.until > Date.now()) return listed.tools;
      const client = clientFor(ctx);
      try {
        const page = await client.listTools({}, { signal: ctx.signal });
        const tools = [...page.tools] as unknown as Record<string, unknown>[];
        for (let cursor = page.nextCursor, pages = 1; cursor && pages < 20; pages++) {
          const next = await client.listTools({ cursor }, { signal: ctx.signal });
          tools.push(...(next.tools as unknown as Record<string, unknown>[]));
          cursor = next.nextCursor;
        }
        const ttl = typeof page.ttlMs === "number" && page.ttlMs >= 0 ? Math.min(page.ttlMs, bound) : bound;
        const renamed = tools.map(({ execution: _execution, ...tool }) => ({ ...tool, name: `${prefix}_${tool.name as string}` }));
        listed = { tools: renamed, until: Date.now() + ttl };
        return renamed;
      } catch (err) {
        // A list this server cannot complete leaves the mount's tools out rather than failing the app's.
        console.error(JSON.stringify({ mcp: "mount_failed", mount: prefix, what: "tools/list", message: err instanceof Error ? err.message : String(err) }));
        return listed?.tools ?? [];
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
      const client = clientFor(ctx, {
        handlers: {
          elicitation: (params) => relay({ method: "elicitation/create", params } as InputRequest),
          sampling: (params) => relay({ method: "sampling/createMessage", params } as InputRequest),
          roots: () => relay({ method: "roots/list" }),
        },
      });
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
  };
}
