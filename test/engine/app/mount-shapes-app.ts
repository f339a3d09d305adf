/**
 * A fixture app with an MCP Apps view that mounts an upstream run in this isolate (an engine app
 * whose results carry URIs: a tool's resource_link and embedded resource, a prompt's embedded
 * resource), reached through bindings that reshape its answers as odd upstreams do:
 * - `sh`: as it is, but its tool `asks` is listed only to a client that declares elicitation, and a
 *   call of `burst` streams 300 `notifications/tools/list_changed` before its result;
 * - `odd`: its tool list also names tools with a line break, a control character and 5,000 characters;
 * - `pg`: every page of its tool list says there is another;
 * - `hush`: a call is answered with a stream that never speaks (its timeout is 300 ms).
 * Its local tool `local_prompts_changed` tells listeners the prompts changed: a test's barrier.
 * What test/engine/integration/mount-results.test.ts calls (2026-07-28 only: no session class).
 */
import { createMcpWorker, defineApp, definePrompt, defineResource, defineTool, defineView, mountServer } from "../../../src/mcp";

const NOTE = { uri: "notes://one", mimeType: "text/plain", text: "the first note" };

const upstreamApp = defineApp({
  info: { name: "shapes-upstream", version: "1.0.0" },
  tools: [
    defineTool({
      name: "linked",
      description: "Answers a link to a note and the note itself.",
      handler: () => ({
        content: [
          { type: "resource_link", uri: NOTE.uri, name: "one" },
          { type: "resource", resource: NOTE },
        ],
      }),
    }),
    defineTool({ name: "burst", handler: () => "burst" }),
    defineTool({ name: "asks", handler: () => "asked" }),
  ],
  resources: [defineResource({ uri: NOTE.uri, name: "one", mimeType: NOTE.mimeType, read: () => NOTE.text })],
  prompts: [definePrompt({ name: "cite", get: () => [{ role: "user", content: { type: "resource", resource: NOTE } }] })],
});
const upstream = createMcpWorker(upstreamApp);

type Rewrite = (method: string, body: Record<string, unknown>, answer: Record<string, unknown>) => Response | Record<string, unknown>;

/** The upstream in this isolate, its JSON answers passed through `rewrite` (by the request's method). */
const inProcess =
  (rewrite: Rewrite) =>
  (env: object): Fetcher =>
    ({
      async fetch(input: RequestInfo | URL, init?: RequestInit) {
        let request = new Request(input as never, init as never);
        const body = request.method === "POST" ? ((await request.clone().json()) as Record<string, unknown>) : {};
        // The cursor `pg` makes up is the first page's to its upstream.
        const params = body.params as { cursor?: string } | undefined;
        if (params?.cursor === "more") {
          delete params.cursor;
          request = new Request(request, { body: JSON.stringify(body) });
        }
        const ctx = { waitUntil: (p: Promise<unknown>) => void p.catch(() => undefined), passThroughOnException() {} };
        const res = await upstream.fetch(request, env as never, ctx as never);
        if (!res.headers.get("Content-Type")?.includes("application/json") || typeof body.method !== "string") return res;
        const out = rewrite(body.method, body, (await res.json()) as Record<string, unknown>);
        if (out instanceof Response) return out;
        const headers = new Headers(res.headers);
        headers.delete("Content-Length");
        return Response.json(out, { status: res.status, headers });
      },
    }) as unknown as Fetcher;

type Answer = { result?: Record<string, unknown> };
/** The result of a JSON answer, as an object to spread. */
const resultOf = (answer: Answer) => answer.result ?? {};
const toolsOf = (answer: Answer) => (answer.result?.tools ?? []) as Record<string, unknown>[];

/** `sh`: `asks` only for a client that can answer a question; 300 list changes on a call of `burst`. */
const shapes: Rewrite = (method, body, answer) => {
  const params = (body.params ?? {}) as { name?: string; _meta?: Record<string, { elicitation?: unknown }> };
  if (method === "tools/list" && !params._meta?.["io.modelcontextprotocol/clientCapabilities"]?.elicitation)
    return { ...answer, result: { ...resultOf(answer), tools: toolsOf(answer).filter((t) => t.name !== "asks") } };
  if (method !== "tools/call" || params.name !== "burst") return answer;
  const changed = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`;
  const stream = `${changed.repeat(300)}event: message\ndata: ${JSON.stringify(answer)}\n\n`;
  return new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
};

/** `odd`: three more tools, named as no tool may be. */
const oddNames: Rewrite = (method, _body, answer) => {
  if (method !== "tools/list") return answer;
  const like = toolsOf(answer)[0]!;
  const odd = ["two\nlines", "bell\u0007", "x".repeat(5000)].map((name) => ({ ...like, name }));
  return { ...answer, result: { ...resultOf(answer), tools: [...toolsOf(answer), ...odd] } };
};

/** `hush`: a call that never answers, as an upstream that waits on a question sent where the mount does not listen. */
const hushed: Rewrite = (method, _body, answer) =>
  method === "tools/call" ? new Response(new ReadableStream(), { headers: { "Content-Type": "text/event-stream" } }) : answer;

/** `pg`: a next page, always. */
const endless: Rewrite = (method, _body, answer) =>
  method === "tools/list" ? { ...answer, result: { ...resultOf(answer), nextCursor: "more" } } : answer;

const view = defineView({ uri: "ui://shapes/view.html", name: "shapes_view", asset: "/views/shapes.html" });

export default defineApp({
  info: { name: "mount-shapes-app", version: "1.0.0" },
  tools: [
    defineTool({ name: "local_viewed", view, handler: () => "viewed" }),
    defineTool({
      name: "local_prompts_changed",
      handler: async (_args, ctx) => {
        await ctx.notify.promptsListChanged();
        return "told";
      },
    }),
  ],
  mounts: [
    mountServer({ prefix: "sh", url: inProcess(shapes) }),
    mountServer({ prefix: "odd", url: inProcess(oddNames), listTtlMs: 0 }),
    mountServer({ prefix: "pg", url: inProcess(endless), listTtlMs: 0 }),
    mountServer({ prefix: "hush", url: inProcess(hushed), timeoutMs: 300 }),
  ],
});
