/**
 * Helpers for the tests of the engine's MCP client (src/engine/client): a `fetch`
 * that reaches the engine test app in this workerd (so the client meets the
 * real server on both revisions), a recorder of every JSON-RPC message the
 * client sends, and a scripted server for behaviour the engine never shows
 * (a 2025-only server, one that asks where it may not, an OAuth server
 * without PKCE).
 */
import { SELF } from "cloudflare:test";
import type { Fetch } from "../../../src/engine/client";

export const MCP_URL = "http://localhost/mcp";

/** The engine test app, as the client's `fetch`. */
export const engineFetch: Fetch = (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init);

export interface Sent {
  method?: string;
  id?: string | number;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** Wraps a fetch so the test sees every JSON-RPC message the client POSTs, in order. */
export function recording(next: Fetch = engineFetch): { fetch: Fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: Fetch = (input, init) => {
    if (typeof init?.body === "string") sent.push(JSON.parse(init.body) as Sent);
    return next(input, init);
  };
  return { fetch, sent };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/**
 * A server played by the test: `answer` gets each JSON-RPC request and returns
 * its `result` (or a Response, for anything else). Notifications and answers
 * to server requests are accepted with 202.
 */
export function scripted(answer: (message: Sent, request: Request) => unknown): Fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = (await request.json()) as Sent;
    if (message.id === undefined || message.method === undefined) return new Response(null, { status: 202 });
    const out = await answer(message, request);
    if (out instanceof Response) return out;
    return json({ jsonrpc: "2.0", id: message.id, result: out }, 200, message.method === "initialize" ? { "Mcp-Session-Id": "s1" } : {});
  };
}

export { json };
