/**
 * A small OpenAPI 3.1 document of our own (a notes API) imported with `fromOpenApi`, and the upstream
 * it is called through: a fetcher that records every request it is sent and answers by path. What
 * test/engine/integration/openapi.test.ts drives through /mcp: naming (a collision, the 64-character
 * cut, an operation without an id), flat arguments and a body kept whole, the argument check,
 * annotations, scopes from `security`, the headers function, and the bounds on time and size.
 */
import { defineApp, defineAuthorization, defineTool, fromOpenApi } from "../../../src/mcp";

export const LONG_ID = `reports/${"generate-the-quarterly-summary-".repeat(3)}now`;

export const notesDocument = {
  openapi: "3.1.0",
  info: { title: "Notes API", version: "1.0.0" },
  servers: [{ url: "https://notes.example" }],
  components: {
    securitySchemes: {
      oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://notes.example/token", scopes: {} } } },
    },
    parameters: { id: { name: "id", in: "path", required: true, schema: { type: "string" }, description: "The note's id." } },
    schemas: {
      note: {
        type: "object",
        required: ["title"],
        properties: {
          title: { type: "string", minLength: 1, description: "The note's title." },
          text: { type: ["string", "null"] },
          tags: { type: "array", items: { type: "string" }, maxItems: 5 },
          id: { type: "string", readOnly: true },
        },
      },
    },
  },
  security: [{ oauth: ["notes:read"] }],
  paths: {
    "/notes/{id}": {
      parameters: [{ $ref: "#/components/parameters/id" }],
      get: {
        operationId: "notes/get",
        summary: "Get a note",
        description: "Returns one note.\n\nA second paragraph nobody needs.",
        parameters: [{ name: "fields", in: "query", schema: { type: "array", items: { type: "string", enum: ["title", "text"] } } }],
      },
      delete: { operationId: "notes/delete", summary: "Delete a note", security: [{ oauth: ["notes:write"] }] },
    },
    "/notes": {
      post: {
        operationId: "notes/create",
        summary: "Create a note",
        security: [{ oauth: ["notes:write"] }],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/note" } } } },
      },
    },
    "/vars/{name}": {
      patch: {
        operationId: "vars/update",
        summary: "Update a variable",
        parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } } },
          },
        },
      },
    },
    "/dup/a": { get: { operationId: "dup.name", summary: "First of two" } },
    "/dup/b": { get: { operationId: "dup/name", summary: "Second of two" } },
    "/reports": { post: { operationId: LONG_ID, summary: "A report" } },
    "/things/{thingId}": {
      get: { summary: "A thing", parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "integer" } }] },
    },
    "/slow": { get: { operationId: "slow", summary: "Never answers in time" } },
    "/big": { get: { operationId: "big", summary: "Answers too much" } },
    "/stall": { get: { operationId: "stall", summary: "Starts its answer and never ends it" } },
    "/fail": { get: { operationId: "fail", summary: "Answers 503" } },
    "/list": { get: { operationId: "list", summary: "Answers a list" } },
    "/admin/purge": { post: { operationId: "admin/purge", summary: "Left out by the exclude filter" } },
  },
};

/** A request the upstream was sent. */
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Every request the upstream was sent, in order (tests empty it). */
export const sent: Sent[] = [];

/** Answers like a small notes API; `/slow` waits for the caller to give up, `/stall` starts an answer it never ends, `/big` streams 64 KiB. */
const upstream = {
  async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const body = await request.text();
    sent.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
    const pathname = new URL(request.url).pathname.replace(/^\/api/, "");
    if (pathname === "/slow")
      return new Promise((_resolve, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
    if (pathname === "/stall") {
      const start = new TextEncoder().encode('{"partial":');
      return new Response(new ReadableStream({ start: (c) => c.enqueue(start), pull: () => new Promise(() => {}) }));
    }
    if (pathname === "/big") {
      const chunk = new TextEncoder().encode(`"${"x".repeat(1022)}",`);
      let n = 0;
      return new Response(new ReadableStream({ pull: (c) => (n++ < 64 ? c.enqueue(chunk) : c.close()) }));
    }
    if (pathname === "/fail")
      return new Response(`upstream trouble ${"!".repeat(2000)}`, { status: 503, statusText: "Service Unavailable" });
    if (pathname === "/list") return Response.json([{ id: "1" }, { id: "2" }]);
    if (request.method === "DELETE") return new Response(null, { status: 204 });
    return Response.json({ ok: true, method: request.method, path: pathname, received: body ? JSON.parse(body) : null });
  },
};

type NotesEnv = { NOTES_TOKEN?: string };

export const notesTools = fromOpenApi<NotesEnv>(notesDocument, {
  baseUrl: "https://notes.example/api",
  fetcher: () => upstream as unknown as { fetch: typeof fetch },
  // The upstream's credential from env, and who is calling, from the call's context.
  headers: (env, ctx) => ({ Authorization: `Bearer ${env.NOTES_TOKEN ?? "none"}`, "X-Caller": ctx.caller.principal || "anonymous" }),
  exclude: { paths: ["/admin"] },
  timeoutMs: 300,
  maxResponseBytes: 16 * 1024,
});

export default defineApp<NotesEnv>({
  info: { name: "openapi-notes", version: "1.0.0" },
  tools: [...notesTools, defineTool({ name: "local_ping", handler: () => "pong" })],
  authorization: defineAuthorization(),
});
