// Why: the load and bench scripts drive the servers as real MCP clients do, on both lanes,
// and check every answer. The requests and the SSE reading come from test/engine/wire (the same
// code the vitest helpers use); this file sequences them over the node:http client.
import {
  buildModernRequest,
  freshId,
  legacyHeaders,
  openLegacySession,
  requestMessage,
  deleteHeaders,
  resultOf,
  streamHeaders,
} from "../../test/engine/wire/index.ts";
import { eventsOf, expectOk, isSse, readBody, readMessages } from "./http.mjs";

const CLIENT_INFO = { name: "mcp-bench", version: "0.0.0" };

/** A 2026-07-28 request as { headers, body } for the HTTP client. */
export function modernRequest(method, params = {}, opts = {}) {
  const { message, headers } = buildModernRequest(method, params, { clientInfo: CLIENT_INFO, ...opts });
  return { headers, body: JSON.stringify(message) };
}

/**
 * The address of simulated client `i` (`wrangler dev` takes CF-Connecting-IP from the request). The
 * engine holds one client to MAX_LISTEN_STREAMS and puts all its streams on one hub shard, so runs
 * that open many listen streams open each from a client of its own, as real listeners are.
 */
export const clientAddress = (i) => `198.18.${(i >> 8) & 255}.${i & 255}`;

/** One modern request, checked: resolves with the JSON-RPC result (JSON or SSE answer). */
export async function modernCall(client, method, params, opts) {
  const { headers, body } = modernRequest(method, params, opts);
  const res = await expectOk(await client.open("POST", headers, body), method);
  const msgs = await readMessages(res, client.timeoutMs);
  return resultOf(
    msgs.find((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined)),
    method,
  );
}

/** The engine test app's convert_temperature call number i, and the check of its answer. */
export const convertArgs = (i) => ({ name: "convert_temperature", arguments: { value: i % 200, from: i % 2 ? "celsius" : "fahrenheit" } });
export function checkConvert(i, result) {
  const c = result.structuredContent?.celsius;
  const want = i % 2 ? i % 200 : Math.round(((((i % 200) - 32) * 5) / 9) * 100) / 100;
  if (c !== want) throw new Error(`convert_temperature(${i}): celsius ${c}, expected ${want}: ${JSON.stringify(result).slice(0, 200)}`);
}

/**
 * A 2025-11-25 session over one Client: initialize (→ Mcp-Session-Id),
 * notifications/initialized, requests, answers to server requests, GET streams
 * (with Last-Event-ID), DELETE.
 */
export class LegacySession {
  constructor(client, { capabilities = {} } = {}) {
    this.client = client;
    this.capabilities = capabilities;
    this.id = undefined;
  }

  async open() {
    ({ id: this.id } = await openLegacySession(this.client.send, { capabilities: this.capabilities, clientInfo: CLIENT_INFO }));
    return this;
  }

  /** POSTs one raw message in the session; whole answer. */
  post(message) {
    return this.client.request("POST", legacyHeaders(this.id), JSON.stringify(message));
  }

  /** POSTs a request; resolves with the live response (JSON or SSE), checked to be 200. */
  async openRequest(method, params = {}, id = freshId()) {
    return expectOk(await this.client.open("POST", legacyHeaders(this.id), JSON.stringify(requestMessage(method, params, id))), method);
  }

  /** A request whose answer needs no client input; resolves with its result. */
  async call(method, params = {}) {
    const id = freshId();
    const msgs = await readMessages(await this.openRequest(method, params, id), this.client.timeoutMs);
    return resultOf(
      msgs.find((m) => m.id === id),
      method,
    );
  }

  /**
   * A request that the server answers on an SSE stream, with server-to-client requests
   * on the way: `answer(serverRequest)` returns the result to POST back for each.
   * Resolves with { result, events, serverRequests }.
   */
  async callWithInput(method, params, answer) {
    const id = freshId();
    const res = await this.openRequest(method, params, id);
    if (!isSse(res))
      throw new Error(
        `${method}: expected an SSE stream, got ${res.headers["content-type"]}: ${(await readBody(res, 5000)).slice(0, 200)}`,
      );
    let final;
    const posts = [];
    const events = await eventsOf(res).rest(this.client.timeoutMs, ({ message: m }) => {
      if (m?.method !== undefined && m.id !== undefined) posts.push(this.answer(m, answer(m)));
      else if (m?.id === id) final = m;
    });
    await Promise.all(posts);
    return { result: resultOf(final, method), events: events.length, serverRequests: posts.length };
  }

  async answer(serverRequest, result) {
    const r = await this.post({ jsonrpc: "2.0", id: serverRequest.id, result });
    if (r.status !== 202) throw new Error(`answer to ${serverRequest.method}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  }

  /** GET the session's stream from an event id; resolves with the wire's event reader. */
  async openGet(lastEventId) {
    return eventsOf(
      await expectOk(await this.client.open("GET", streamHeaders(this.id, lastEventId)), `GET (Last-Event-ID ${lastEventId})`),
    );
  }

  async close() {
    const r = await this.client.request("DELETE", deleteHeaders(this.id));
    if (r.status !== 200) throw new Error(`DELETE: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  }
}
