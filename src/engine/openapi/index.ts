/**
 * `fromOpenApi` (docs/openapi.md): an OpenAPI 3.0 or 3.1 document, or its compact form from
 * `npm run openapi`, as tool definitions for `defineApp({ tools })`, one per operation. Each is a
 * plain tool: the app's authorization, middleware, rate limits and spans apply to it as to any other,
 * and a search over the app's tools finds it by its name, title and description. Opt-in: an app that
 * does not import it carries none of this folder.
 */
import type { ToolAnnotations, ToolDefinition } from "../mcp/app";
import type { HandlerContext } from "../mcp/context";
import { isObject } from "../mcp/guards";
import { COMPACT_FORMAT, compactOpenApi, type CompactDocument, type CompactOperation, type CompactOptions } from "./compact";
import { callOperation, type Upstream } from "./request";

export type { CompactDocument, CompactOperation, CompactOptions } from "./compact";

/** What an include or exclude filter sees of an operation. */
export interface ImportedOperation {
  /** The tool's name (after sanitising, the 64-character cut and the suffix that makes it unique). */
  name: string;
  method: string;
  path: string;
  tags: readonly string[];
}

/**
 * Operations chosen by what they are: each field given must match (any of its values), so
 * `{ tags: ["issues"], methods: ["GET"] }` is every GET tagged `issues`. Or a function of the operation.
 */
export type OperationFilter =
  | {
      names?: readonly string[];
      tags?: readonly string[];
      /** Upper case: GET, POST… */
      methods?: readonly string[];
      /** Path templates, or their beginnings: `/repos/{owner}/{repo}/issues` matches its sub-paths too. */
      paths?: readonly string[];
    }
  | ((op: ImportedOperation) => boolean);

export interface OpenApiOptions<Env = any> extends CompactOptions {
  /** Where the API is: a URL, or a function of `env` (a var). Default: the document's first server. */
  baseUrl?: string | ((env: Env) => string);
  /**
   * Headers for every request, from `env` and the call's context (`ctx.caller`, `ctx.auth`): the
   * upstream's credentials, `(env) => ({ Authorization: \`Bearer ${env.GITHUB_TOKEN}\` })`. They
   * are sent upstream and never reach a result, a log line or the model.
   */
  headers?: (env: Env, ctx: HandlerContext<Env>) => Record<string, string> | Promise<Record<string, string>>;
  /** Send the requests through this service binding instead of the internet (`(env) => env.API`). */
  fetcher?: (env: Env) => { fetch: typeof fetch };
  /** Only these operations become tools (default: every one). */
  include?: OperationFilter;
  /** These operations do not become tools (applied after `include`). */
  exclude?: OperationFilter;
  /** The scopes a call needs, in place of what the operation's `security` names (undefined keeps those). */
  scopes?: (op: ImportedOperation) => readonly string[] | undefined;
  /** What errors call the upstream ("GitHub answered issues_create with 404…"); default: the document's title. */
  name?: string;
  /** How long a call waits for the upstream's answer (default 30 000 ms). */
  timeoutMs?: number;
  /** The largest answer read (default 1 MiB): a larger one is a tool error, never held whole. */
  maxResponseBytes?: number;
}

/**
 * What an import decided for its document (compact.ts notes), kept on each tool it made under this
 * key for the app check (check-app.ts reads the same registered symbol without importing this folder).
 */
const IMPORT_NOTES = Symbol.for("mcp.openapi.notes");

/** `document`'s operations as tools: a parsed OpenAPI 3.x document, or the compact form `npm run openapi` writes. */
export function fromOpenApi<Env = any>(
  document: Record<string, unknown> | CompactDocument,
  options: OpenApiOptions<Env> = {},
): ToolDefinition<any, undefined, Env>[] {
  if (!isObject(document)) throw new Error("fromOpenApi: the document must be a parsed JSON object");
  const compact =
    document.format === COMPACT_FORMAT
      ? (document as unknown as CompactDocument)
      : compactOpenApi(document as Record<string, unknown>, options);
  const base = options.baseUrl ?? compact.server;
  if (base === undefined || (typeof base === "string" && !URL.canParse(base)))
    throw new Error(
      `fromOpenApi: ${compact.info.title} needs options.baseUrl (an absolute URL or a function of env): ${base === undefined ? "the document names no server" : `its server "${base}" is not an absolute URL`}`,
    );
  const upstream: Upstream = {
    baseUrl: typeof base === "function" ? base : () => base,
    headers: options.headers as Upstream["headers"],
    fetcher: options.fetcher,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes ?? 1 << 20,
    label: options.name ?? compact.info.title,
  };
  const chosen = (op: ImportedOperation) =>
    (!options.include || matches(options.include, op)) && !(options.exclude && matches(options.exclude, op));
  const tools: ToolDefinition<any, undefined, Env>[] = [];
  for (const op of compact.operations) {
    const seen: ImportedOperation = { name: op.name, method: op.method, path: op.path, tags: op.tags ?? [] };
    if (chosen(seen)) tools.push(toolOf(op, options.scopes?.(seen) ?? op.scopes, upstream));
  }
  const notes = { document: compact.info.title, notes: compact.notes };
  for (const tool of tools) Object.defineProperty(tool, IMPORT_NOTES, { value: notes });
  return tools;
}

function toolOf(op: CompactOperation, scopes: readonly string[] | undefined, upstream: Upstream): ToolDefinition<any, undefined, any> {
  return {
    name: op.name,
    ...(op.title ? { title: op.title } : {}),
    ...(op.description || op.deprecated ? { description: `${op.deprecated ? "Deprecated. " : ""}${op.description ?? ""}`.trim() } : {}),
    annotations: annotationsOf(op.method),
    inputSchema: op.inputSchema,
    ...(scopes?.length ? { scopes } : {}),
    handler: (args, ctx) => callOperation(op, args, ctx, upstream),
  };
}

/** What HTTP says of a method: GET and HEAD only read, DELETE destroys, and every call reaches outside the server. */
function annotationsOf(method: string): ToolAnnotations {
  return {
    readOnlyHint: method === "GET" || method === "HEAD",
    destructiveHint: method === "DELETE",
    idempotentHint: method === "GET" || method === "HEAD" || method === "PUT" || method === "DELETE",
    openWorldHint: true,
  };
}

function matches(filter: OperationFilter, op: ImportedOperation): boolean {
  if (typeof filter === "function") return filter(op);
  const { names, tags, methods, paths } = filter;
  return (
    (!names || names.includes(op.name)) &&
    (!tags || tags.some((t) => op.tags.includes(t))) &&
    (!methods || methods.some((m) => m.toUpperCase() === op.method)) &&
    (!paths || paths.some((p) => op.path === p || op.path.startsWith(p.endsWith("/") ? p : `${p}/`)))
  );
}
