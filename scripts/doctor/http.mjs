// Why: most of the doctor's checks are about what HTTP answer a hosted client gets (a status, a header,
// an edge's block page), which the MCP client rightly hides behind an error. This is one timed request
// with redirects left visible and the answer kept whole, plus the two readings every check needs: is it
// the platform edge speaking, and is it the Worker's own JSON-RPC refusal.

/** What the doctor keeps of an answer's body; the rest is never read (a hostile server may send gigabytes). */
export const BODY_LIMIT = 65_536;

/** The first `limit` bytes of a body as text; reading stops there and the rest of the stream is cancelled. */
async function readCapped(body, limit) {
  if (!body) return "";
  const reader = body.getReader();
  const chunks = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short is kept as far as it came.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, Math.min(c.byteLength, bytes.length - at));
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * A fetch for the project's client whose answers end with an error past `limit` bytes, so that no
 * answer, however long, is read whole into memory.
 */
export function cappedFetch(limit, inner = fetch) {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body) return res;
    let seen = 0;
    const capped = res.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new Error(`the answer is longer than ${limit} bytes; the doctor stopped reading it`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The headers every MCP POST carries. */
export const MCP_POST = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/**
 * One request, never following a redirect, ended after `timeoutMs`. Returns what came back (status,
 * headers, at most BODY_LIMIT bytes of body text, read no further) and how long it took, or `error` when nothing came back.
 * @param {string | URL} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string, timeoutMs?: number }} [options]
 */
export async function request(url, { method = "GET", headers = {}, body, timeoutMs = 20_000 } = {}) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readCapped(res.body, BODY_LIMIT);
    return { status: res.status, headers: res.headers, text, ms: Math.round(performance.now() - t0) };
  } catch (err) {
    const ms = Math.round(performance.now() - t0);
    const timedOut = err?.name === "TimeoutError";
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
    return {
      status: 0,
      headers: new Headers(),
      text: "",
      ms,
      error: timedOut ? `no answer within ${timeoutMs} ms` : String(cause),
      timedOut,
    };
  }
}

/** The JSON body of an answer (the first `data:` of an SSE answer), or undefined. */
export function jsonOf(answer) {
  const type = answer.headers.get("content-type") ?? "";
  let text = answer.text;
  if (type.includes("text/event-stream")) {
    text =
      text
        .split("\n")
        .find((l) => l.startsWith("data:") && l.slice(5).trim() !== "")
        ?.slice(5) ?? "";
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error in the answer, when there is one. */
export const rpcErrorOf = (answer) => {
  const e = jsonOf(answer)?.error;
  return e && typeof e.code === "number" ? e : undefined;
};

const BLOCK_PAGE =
  /attention required|sorry, you have been blocked|just a moment|cf-error-details|cf-chl-|challenge-platform|cloudflare ray id|error code:? 10\d\d/i;

/**
 * Whether the answer came from Cloudflare's edge rather than the Worker: a `cf-mitigated` header, or
 * `server: cloudflare` with a block or challenge page instead of JSON. A Worker's own answers also carry
 * `server: cloudflare` once deployed, so that header alone proves nothing.
 */
export function edgeSignature(answer) {
  const mitigated = answer.headers.get("cf-mitigated");
  const server = (answer.headers.get("server") ?? "").toLowerCase();
  const page = BLOCK_PAGE.test(answer.text);
  if (!mitigated && !(server === "cloudflare" && page)) return undefined;
  const parts = [`server: ${server || "(none)"}`];
  if (mitigated) parts.push(`cf-mitigated: ${mitigated}`);
  if (page) parts.push("a block/challenge page");
  const ray = answer.headers.get("cf-ray");
  return { summary: parts.join(", "), ray };
}

/** Where a redirect points, resolved against the request URL. */
export const locationOf = (answer, url) => {
  const loc = answer.headers.get("location");
  return loc ? new URL(loc, url).href : undefined;
};

/** A short account of an answer for a report line: "403 (text/html)", "no answer: ECONNREFUSED". */
export function describe(answer) {
  if (answer.status === 0) return `no answer: ${answer.error}`;
  const err = rpcErrorOf(answer);
  if (err) return `${answer.status}, JSON-RPC ${err.code} "${String(err.message).slice(0, 100)}"`;
  const type = (answer.headers.get("content-type") ?? "").split(";")[0];
  return `${answer.status}${type ? ` (${type})` : ""}`;
}

export const isLoopback = (hostname) => ["localhost", "127.0.0.1", "[::1]", "::1"].includes(hostname) || hostname.endsWith(".localhost");
