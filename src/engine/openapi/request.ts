/**
 * One imported operation called: the arguments checked (validate.ts) and placed (path, query,
 * header, body), the request made with `fetch` under a time limit, and the answer read up to a size
 * limit. A JSON answer is the result's structured content (with its text, as the engine gives every
 * structured result); a non-2xx answer is a tool error with the status and a short excerpt. What the
 * app's `headers` add (the upstream's credentials) is never part of a result.
 */
import type { HandlerContext } from "../mcp/context";
import { ToolError } from "../mcp/errors";
import { readCapped } from "../mcp/read-capped";
import type { CallToolResult } from "../mcp/types";
import { isJson, type CompactOperation } from "./compact";
import { problemsOf } from "./validate";

/** How the calls of one import are made: resolved once from the options of `fromOpenApi`. */
export interface Upstream {
  baseUrl: (env: any) => string;
  headers?: (env: any, ctx: HandlerContext<any>) => Record<string, string> | Promise<Record<string, string>>;
  fetcher?: (env: any) => { fetch: typeof fetch };
  timeoutMs: number;
  maxResponseBytes: number;
  /** Names the upstream in errors: options.name, or the document's title. */
  label: string;
}

/** The longest excerpt of an error answer a result quotes. */
const EXCERPT = 500;

export async function callOperation(op: CompactOperation, args: Record<string, unknown>, ctx: HandlerContext<any>, up: Upstream) {
  const problems = problemsOf(op.inputSchema, args);
  if (problems.length) throw new ToolError(`Invalid arguments for ${op.name}: ${problems.join("; ")}`);
  const { url, headers, body } = requestOf(op, args, up.baseUrl(ctx.env));
  // The app's headers last: no argument can replace the upstream's credentials.
  for (const [k, v] of Object.entries((await up.headers?.(ctx.env, ctx)) ?? {})) headers.set(k, v);
  const binding = up.fetcher?.(ctx.env);
  // The time limit holds until the answer is read whole, not only until its headers.
  try {
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(up.timeoutMs)]);
    const init: RequestInit = {
      method: op.method,
      headers,
      body,
      // A redirect is answered as it is: a followed one could carry the credentials to another host.
      redirect: "manual",
      signal,
    };
    // The global fetch called as itself: workerd refuses it called on another object.
    const res = await (binding ? binding.fetch(url, init) : fetch(url, init));
    return await answerOf(op, res, up, signal);
  } catch (err) {
    if (err instanceof ToolError || ctx.signal.aborted) throw err;
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    // The error's own words (a refused connection, a bad address) say what to fix; they hold no header.
    const why = err instanceof Error ? err.message.slice(0, 200) : String(err).slice(0, 200);
    throw new ToolError(
      timedOut
        ? `${up.label} did not answer ${op.name} within ${up.timeoutMs} ms`
        : `${up.label} could not be reached for ${op.name}, or broke off its answer: ${why}`,
    );
  }
}

/** The URL, headers and body of a call; path values are encoded whole, so none can step out of its segment. */
function requestOf(op: CompactOperation, args: Record<string, unknown>, base: string) {
  const headers = new Headers({ Accept: "application/json" });
  const query = new URLSearchParams();
  const fields: Record<string, unknown> = {};
  let whole: unknown;
  let path = op.path;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const at = op.in[name];
    if (at === "path") {
      const text = String(value);
      if (text === "" || text === "." || text === "..")
        throw new ToolError(`Invalid arguments for ${op.name}: ${name}: "${text}" is not a path segment`);
      path = path.split(`{${name}}`).join(encodeURIComponent(text));
    } else if (at === "query") for (const item of Array.isArray(value) ? value : [value]) query.append(name, scalar(item));
    else if (at === "header") {
      const text = scalar(value);
      if (/[\r\n\0]/.test(text)) throw new ToolError(`Invalid arguments for ${op.name}: ${name}: a header value cannot hold a line break`);
      headers.set(name, text);
    } else if (name === op.body?.whole) whole = value;
    else fields[name] = value;
  }
  // A base from env that is missing or no URL is the app's mistake, said as such rather than as an internal error.
  const href = String(base).replace(/\/+$/, "") + path;
  if (!URL.canParse(href))
    throw new ToolError(
      `The base URL of ${op.name}'s API is not a URL (${JSON.stringify(String(base).slice(0, 100))}): check options.baseUrl`,
    );
  const url = new URL(href);
  for (const [k, v] of query) url.searchParams.append(k, v);
  let body: string | undefined;
  const sent = op.body?.whole ? whole : fields;
  // A flat body with no field given is still `{}` for a method that carries one; an optional whole body left out is not sent.
  if (op.body && (op.body.whole ? whole !== undefined : Object.keys(fields).length || (op.method !== "GET" && op.method !== "HEAD"))) {
    body = isJson(op.body.type) || typeof sent !== "string" ? JSON.stringify(sent) : sent;
    headers.set("Content-Type", op.body.type);
  }
  return { url, headers, body };
}

/** Rejects with the signal's reason when it aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => {
    signal.throwIfAborted();
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

/** Query and header values: objects as JSON, the rest as their text. */
const scalar = (v: unknown) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

async function answerOf(op: CompactOperation, res: Response, up: Upstream, signal: AbortSignal): Promise<CallToolResult> {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    const location = res.headers.get("Location") ?? undefined;
    const structured = { status: res.status, ...(location ? { location } : {}) };
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  }
  // Whatever the body is (a fetch's, which the signal ends, or a binding's stream, which it may not), the read stops at the limit.
  const bytes = res.body ? await Promise.race([readCapped(res.body, up.maxResponseBytes), aborted(signal)]) : new Uint8Array();
  if (bytes === null)
    throw new ToolError(
      `${up.label} answered ${op.name} with more than ${up.maxResponseBytes} bytes; ask for less (a smaller page, a filter)`,
    );
  const text = new TextDecoder().decode(bytes);
  if (!res.ok) {
    const excerpt = text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
    throw new ToolError(
      `${up.label} answered ${op.name} with ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${excerpt ? `: ${excerpt}` : ""}`,
    );
  }
  if (text === "") return { content: [{ type: "text", text: `${res.status}: no content` }], structuredContent: { status: res.status } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON (a raw file, a diff): the text as it is.
    return { content: [{ type: "text", text }] };
  }
  // Structured content is an object: a list or a scalar is wrapped.
  const structured =
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: "text", text }], structuredContent: structured };
}
