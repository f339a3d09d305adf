/**
 * The upstream as a mount reaches it: one client per use, opened and closed here (a Worker may not
 * reuse one request's connections in another), with the mount's address, headers, credentials and
 * the answers kept across requests. `use` is the one place a client's lifetime is decided.
 */
import { MemoryCache } from "../client/cache";
import { McpClient, type AuthProvider, type McpClientOptions } from "../client/client";
import { checkEndpoint } from "../client/auth/endpoints";
import type { McpClientError } from "../client/errors";
import type { InputHandlers } from "../client/handlers";
import type { Fetch } from "../client/wire";
import type { HandlerContext } from "../mcp/context";
import type { MountOptions } from "./options";

/**
 * The URL a service binding is called at: the binding decides where the request goes; the URL is what
 * the upstream reads (localhost passes the default ALLOWED_HOSTS of a Worker built on this template).
 */
const SERVICE_URL = "http://localhost/mcp";

/** What a use that relays nothing answers the upstream's question with (a list, a read: nobody to ask). */
const refuse = (): never => {
  throw new Error("A mounted server may ask the user only during a tool call");
};
const REFUSING: InputHandlers = { elicitation: refuse, sampling: refuse, roots: refuse };

/** A mount has no client options to allow an address: what does, in a refusal's words. */
const MOUNT_ALLOWED_BY = {
  http: "a deployed Worker mounts https URLs only; `npm run dev` (MCP_DEV=on) allows a local http upstream, and a service binding reaches another Worker",
  privateNetwork:
    "a deployed Worker mounts public hosts only; `npm run dev` (MCP_DEV=on) allows a local upstream, and a service binding reaches another Worker",
};

export class Upstream<Env> {
  // Kept across requests, so that a token it obtained serves every call until it expires.
  private credentials: AuthProvider | undefined;
  /**
   * The upstream's cacheable answers a call needs before it is made (`server/discover`, and `tools/list`
   * for the tool's `x-mcp-header` arguments), kept in this isolate for the upstream's `ttlMs`. One
   * partition: every call upstream carries the mount's credentials, never the caller's.
   */
  private answers = new MemoryCache(16);

  constructor(
    private readonly options: MountOptions<Env>,
    /**
     * The notifications the upstream sent on one use's streams (a list changed), each method once, when
     * that use ends: a burst of 300 on one call is one relay to this server's listeners.
     */
    private readonly onNotified: (ctx: HandlerContext<any>, methods: ReadonlySet<string>) => void,
  ) {}

  /**
   * Why a deployed Worker would refuse this upstream's URL with `env` (plain http, a private address),
   * if it would: `npm run deploy` names it before the Worker goes out. A service binding, or a URL
   * the settings do not give yet, is not judged.
   */
  deployRefusal(env: Env): string | undefined {
    let target: string | Fetcher;
    try {
      target = typeof this.options.url === "function" ? this.options.url(env) : this.options.url;
    } catch {
      return undefined;
    }
    return typeof target === "string" && target ? this.refusal(target, false)?.message : undefined;
  }

  /** Forgets the answers kept for calls: a list they hold changed. */
  forgetAnswers(): void {
    this.answers = new MemoryCache(16);
  }

  /**
   * Runs `work` with a client of its own for this request, closed when it is done, whatever happens.
   * Every client declares the questions a mount relays (elicitation, sampling, roots), so that an
   * upstream shows a list client the tools it shows a call client; `handlers` answer them (a call
   * relays them to this server's client), and a use that passes none refuses them.
   */
  async use<T>(
    ctx: HandlerContext<any>,
    work: (client: McpClient) => Promise<T>,
    handlers: InputHandlers = REFUSING,
    cached = false,
  ): Promise<T> {
    const heard = new Set<string>();
    const client = this.client(ctx, { handlers, onNotification: (m) => void heard.add(m.method) }, cached);
    try {
      return await work(client);
    } finally {
      void client.close().catch(() => undefined);
      if (heard.size) this.onNotified(ctx, heard);
    }
  }

  private client(ctx: HandlerContext<any>, more: McpClientOptions, cached: boolean): McpClient {
    const { options } = this;
    const target = typeof options.url === "function" ? options.url(ctx.env as Env) : options.url;
    const service = typeof target === "string" ? undefined : target;
    const url = service ? (options.serviceUrl ?? SERVICE_URL) : (target as string);
    const refused = service ? undefined : this.refusal(url, (ctx.env as { MCP_DEV?: string }).MCP_DEV === "on");
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
      ...(options.auth ? { auth: (this.credentials ??= options.auth(ctx.env as Env)) } : {}),
      timeoutMs: options.timeoutMs,
      ...(cached ? { cache: this.answers, cachePartition: options.prefix } : {}),
      sessionStream: false,
      // The downstream client checks what it asked for; this server passes results on as they are.
      validateOutput: false,
    });
  }

  /**
   * Why a URL may not be mounted here, if it may not: the client's rules for the endpoints it is sent
   * to. Plain http and private, link-local or loopback addresses are refused in a deployed Worker (a
   * header or token in clear, a reach into an internal network); under `npm run dev` (MCP_DEV=on) a
   * local upstream such as `http://127.0.0.1:8788/mcp` works as it is.
   */
  private refusal(url: string, dev: boolean): McpClientError | undefined {
    try {
      checkEndpoint(url, `URL of the mounted server "${this.options.prefix}"`, "https://mount.invalid/", {
        allowHttp: dev,
        allowPrivateNetwork: dev,
        allowedBy: MOUNT_ALLOWED_BY,
      });
      return undefined;
    } catch (err) {
      return err as McpClientError;
    }
  }
}
