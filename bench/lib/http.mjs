// Why: the load and bench scripts need a client that costs little CPU on a machine the
// servers share, so they speak HTTP/1.1 with node:http keep-alive (no dependency) rather
// than fetch. The MCP wire on top (builders, SSE) is test/engine/wire, shared with the vitest
// helpers; this file only adapts node:http to it.
//
// Safety: every request goes to a URL the caller got from startWrangler (127.0.0.1);
// `assertLoopback` refuses anything else, and every request has its own timeout.
import http from "node:http";
import { EventStream, iterableSource } from "../../test/engine/wire/index.ts";

export function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(host)) throw new Error(`bench: refusing non-loopback target ${url}`);
}

/**
 * A keep-alive client for one origin. `request()` resolves with the whole body;
 * `open()` resolves at the response head and hands back the live response (SSE).
 */
export class Client {
  constructor(url, { connections = 64, timeoutMs = 30_000, idleMs = 1000 } = {}) {
    assertLoopback(url);
    this.url = new URL(url);
    this.timeoutMs = timeoutMs;
    // A socket left idle for `idleMs` (while other rows of a bench run) is closed here, before the
    // server closes it on its side: a request sent on a socket the server already closed fails
    // with "socket hang up" and would be booked as the row's error.
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets: connections,
      maxFreeSockets: connections,
      scheduling: "lifo",
      timeout: idleMs,
    });
  }

  /** Starts a request; resolves with the IncomingMessage (body unread). */
  open(method, headers = {}, body) {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname + this.url.search,
          method,
          agent: this.agent,
          headers: body === undefined ? headers : { ...headers, "Content-Length": Buffer.byteLength(body) },
        },
        resolve,
      );
      req.setTimeout(this.timeoutMs, () =>
        req.destroy(new Error(`timeout after ${this.timeoutMs} ms: ${method} ${headers["Mcp-Method"] ?? ""}`)),
      );
      req.once("error", reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** A whole request: { status, headers, text }. */
  async request(method, headers = {}, body) {
    const res = await this.open(method, headers, body);
    return { status: res.statusCode, headers: res.headers, text: await readBody(res, this.timeoutMs) };
  }

  /** This client as the wire's one HTTP exchange (see test/engine/wire `Send`). */
  get send() {
    return async ({ method, headers, body }) => {
      const r = await this.request(method, headers, body);
      return { status: r.status, header: (name) => r.headers[name.toLowerCase()], text: r.text };
    };
  }

  close() {
    this.agent.destroy();
  }
}

export function readBody(res, timeoutMs) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const timer = setTimeout(() => res.destroy(new Error(`body not complete after ${timeoutMs} ms`)), timeoutMs);
    const settle = (fn, value) => {
      clearTimeout(timer);
      fn(value);
    };
    res.on("data", (c) => chunks.push(c));
    res.once("end", () => settle(resolve, Buffer.concat(chunks).toString("utf8")));
    res.once("error", (e) => settle(reject, e));
    res.once("aborted", () => settle(reject, new Error("response aborted")));
  });
}

/** Fails with the status and the start of the body unless the response is 200. */
export async function expectOk(res, what) {
  if (res.statusCode !== 200) throw new Error(`${what}: HTTP ${res.statusCode} ${(await readBody(res, 5000)).slice(0, 300)}`);
  return res;
}

export const isSse = (res) => String(res.headers["content-type"] ?? "").startsWith("text/event-stream");

/** An SSE response as the wire's event reader. */
export const eventsOf = (res) => new EventStream(iterableSource(res));

/** The JSON-RPC messages of a response, whether it came as JSON or as SSE. */
export async function readMessages(res, timeoutMs) {
  if (isSse(res)) return (await eventsOf(res).rest(timeoutMs)).flatMap((e) => (e.message ? [e.message] : []));
  const text = await readBody(res, timeoutMs);
  return text === "" ? [] : [JSON.parse(text)];
}
