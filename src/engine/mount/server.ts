/**
 * One mounted server as the core sees it (the `Mount` of src/engine/mcp/mounts.ts): its lists, and
 * each operation run against the upstream through a client of its own (upstream.ts). A failure is an
 * error (failure.ts) on every path; `callTool` alone turns a MountError into a tool result.
 */
import type { McpClient } from "../client/client";
import type { InputHandlers } from "../client/handlers";
import type { Progress } from "../client/lane";
import type { HandlerContext } from "../mcp/context";
import { invalidParams, toolError } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import type { InputRequest } from "../mcp/input";
import type { Mount, MountedList } from "../mcp/mounts";
import type { CallToolResult } from "../mcp/types";
import { MountError, mountFailure } from "./failure";
import { MountLists, mountableName } from "./lists";
import type { MountOptions } from "./options";
import { Renamer } from "./results";
import { Upstream } from "./upstream";

export class MountedServer<Env> implements Mount {
  readonly prefix: string;
  readonly scopes: readonly string[] | undefined;
  readonly toolScopes: Readonly<Record<string, readonly string[]>> | undefined;
  private readonly upstream: Upstream<Env>;
  private readonly listed: MountLists;
  private readonly rename: Renamer;

  constructor(options: MountOptions<Env>) {
    this.prefix = options.prefix;
    this.scopes = options.scopes;
    this.toolScopes = options.toolScopes;
    this.upstream = new Upstream(options, (ctx, methods) => this.listed.notified(ctx, methods));
    this.listed = new MountLists(options.prefix, this.upstream, options.listTtlMs ?? 60_000);
    this.rename = new Renamer(options.prefix);
  }

  tools(ctx: HandlerContext<any>) {
    return this.listed.get(ctx, "tools");
  }
  prompts(ctx: HandlerContext<any>) {
    return this.listed.get(ctx, "prompts");
  }
  resources(ctx: HandlerContext<any>) {
    return this.listed.get(ctx, "resources");
  }
  resourceTemplates(ctx: HandlerContext<any>) {
    return this.listed.get(ctx, "resourceTemplates");
  }
  lists(kind: MountedList, name: string): boolean {
    return this.listed.holds(kind, name);
  }

  deployRefusal(env: unknown): string | undefined {
    return this.upstream.deployRefusal(env as Env);
  }

  /** `work` against the upstream, its failure the error it is here (failure.ts; `uri`, the upstream's, written as this server's). */
  private async against<T>(ctx: HandlerContext<any>, what: string, work: (client: McpClient) => Promise<T>, uri?: string): Promise<T> {
    try {
      return await this.upstream.use(ctx, work);
    } catch (err) {
      throw mountFailure(err, this.prefix, what, uri);
    }
  }

  async readResource(uri: string, ctx: HandlerContext<any>): Promise<Record<string, unknown>> {
    const read = (client: McpClient) => client.readResource(uri, { signal: ctx.signal }) as Promise<unknown>;
    return this.rename.read((await this.against(ctx, `the resource ${uri}`, read, uri)) as Record<string, unknown>);
  }

  async complete(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    params: Record<string, unknown>,
    ctx: HandlerContext<any>,
  ): Promise<Record<string, unknown>> {
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string")
      throw invalidParams("completion/complete needs params.argument with string name and value");
    const context = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : undefined;
    const what = `the completion of ${ref.type === "ref/prompt" ? ref.name : ref.uri}`;
    return this.against(ctx, what, async (client) => {
      await client.connect();
      if (!client.capabilities.completions) return { completion: { values: [], total: 0, hasMore: false } };
      const result = await client.complete(
        ref,
        { name: argument.name as string, value: argument.value as string },
        context as Record<string, string> | undefined,
        { signal: ctx.signal },
      );
      return { completion: result.completion };
    });
  }

  async getPrompt(name: string, args: Record<string, string>, ctx: HandlerContext<any>): Promise<Record<string, unknown>> {
    const get = (client: McpClient) => client.getPrompt(name, args, { signal: ctx.signal }) as Promise<unknown>;
    return this.rename.prompt((await this.against(ctx, `the prompt ${name}`, get)) as Record<string, unknown>);
  }

  async callTool(name: string, args: Record<string, unknown>, ctx: HandlerContext<any>): Promise<CallToolResult> {
    // A name a list of this mount leaves out (mountableName) is no tool of this server's.
    if (!mountableName(this.prefix, name)) throw invalidParams(`Unknown tool: ${this.prefix}_${name}`);
    // What the upstream asks of the user is asked of this server's client, by the same key on every
    // run of this call (the n-th question is `<prefix>:<n>`), so the answer is there when the call
    // runs again: a 2026 client retries with it, a 2025 session's request resumes with it.
    let asked = 0;
    let pending: unknown;
    const stop = new AbortController();
    const relay = <T>(request: InputRequest): T => {
      const key = `${this.prefix}:${asked++}`;
      try {
        return ctx.input.ask({ [key]: request })[key] as T;
      } catch (thrown) {
        pending = thrown;
        stop.abort();
        throw thrown;
      }
    };
    const handlers: InputHandlers = {
      elicitation: (params) => relay({ method: "elicitation/create", params } as InputRequest),
      sampling: (params) => relay({ method: "sampling/createMessage", params } as InputRequest),
      roots: () => relay({ method: "roots/list" }),
    };
    const call = async (client: McpClient) => {
      const options = {
        signal: AbortSignal.any([ctx.signal, stop.signal]),
        onProgress: (p: Progress) => ctx.progress(p.progress, p.total, p.message),
      };
      return (await client.callTool(name, args, options)) as unknown as Record<string, unknown>;
    };
    try {
      return this.rename.toolResult(await this.upstream.use(ctx, call, handlers, true));
    } catch (err) {
      if (pending !== undefined) throw pending;
      if (ctx.signal.aborted) throw err;
      const failed = mountFailure(err, this.prefix, `the tool ${name}`);
      // The one place a failure becomes a result: the model reads why the mounted tool did not run.
      if (failed instanceof MountError)
        return toolError(WAITED.test(failed.message) ? `${failed.message}. ${UNHEARD_QUESTION}` : failed.message);
      throw failed;
    }
  }
}

/**
 * Why a 2025-11-25 upstream's call can end in a timeout or "Stream was cancelled": a mount hears the
 * call's own stream only, and an upstream that sends its question on its standalone GET stream (the
 * TypeScript SDK 1.x without `relatedRequestId`) waits there for an answer that never comes.
 */
/** How a call that waited for an answer in vain ends: the client's timeout, or the runtime cancelling the stream. */
const WAITED = /timed out|Stream was cancelled/;
const UNHEARD_QUESTION =
  "If the upstream asks the user something during this call, it must send the question on the call's own stream (relatedRequestId): a mount does not open the standalone stream (docs/mount.md)";
