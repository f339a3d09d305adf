// Why: both revisions through the project's own client, as a client would use them: 2026-07-28
// server/discover and tools/list; a 2025-11-25 session's initialize, tools/list and DELETE; and the
// answer to a 2025 request without the session id (Claude has been seen sending none). The client
// that connects is kept for the checks of views, skills and --call.
import { FAULTS } from "../faults.mjs";
import { cappedFetch, describe, edgeSignature, jsonOf } from "../http.mjs";
import { fault } from "../report.mjs";
import { sessionlessToolsList } from "../wire.mjs";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const VIEW_MIME_TYPE = "text/html;profile=mcp-app";
const MODERN_CODES = new Set([-32020, -32021, -32022]);

/** What the doctor lets the client read of one answer: a tools/list of a few hundred tools fits, a flood does not. */
const CLIENT_BODY_LIMIT = 8 << 20;

const errorText = (err) =>
  `${err?.status ? `answered ${err.status}` : "failed"}${err?.code !== undefined ? `, JSON-RPC ${err.code}` : ""}: ${err?.message ?? err}`;

/**
 * A fetch that remembers the last answer of each method, so a check can name the HTTP status behind an
 * error (and, for a 429 or 403, whose refusal it was and which scope it asked for).
 */
function recordingFetch(last) {
  const capped = cappedFetch(CLIENT_BODY_LIMIT);
  return async (input, init) => {
    const res = await capped(input, init);
    const method = (init?.method ?? "GET").toUpperCase();
    last[method] = { status: res.status };
    if (res.status === 429 || res.status === 403) last.refusal = { status: res.status, headers: res.headers };
    if (method === "POST" && res.ok && /"method"\s*:\s*"initialize"/.test(String(init?.body ?? ""))) last.initialized = true;
    last.session = res.headers.get("mcp-session-id") ?? last.session;
    // The client starts a new session when its id answers 404, which would hide a server that loses them.
    if (res.status === 404 && method === "POST" && new Headers(init?.headers).has("mcp-session-id")) last.lost = (last.lost ?? 0) + 1;
    return res;
  };
}

/** initialize succeeded without Mcp-Session-Id and a later request was refused for want of a session. */
const lostId = (err, last) =>
  last.initialized && !last.session && [400, 404].includes(err?.status) && /session/i.test(String(err?.message));

/**
 * A 429 is a rate limit, not a broken revision: the edge's (with its signature) or the server's own,
 * which the doctor's requests count toward too.
 */
function rateLimited(err, last) {
  if (err?.status !== 429) return undefined;
  const headers = last.refusal?.status === 429 ? last.refusal.headers : new Headers();
  const edge = edgeSignature({ headers, text: "" });
  return {
    fault: fault(
      "rate-limited",
      FAULTS.rateLimited(
        edge ? `Cloudflare's edge (${edge.summary})` : "the server's own rate limit (no edge signature)",
        headers.get("retry-after"),
        err?.message ?? String(err),
      ),
    ),
  };
}

export async function revisionChecks(ctx, report) {
  if (ctx.state.blocked) return;
  if (ctx.state.authRequired && !ctx.token) {
    await report.step("2026-07-28 and 2025-11-25 requests", () => ({
      skip: "the server asks for authorization: pass --token <access token> to check behind it",
    }));
    return;
  }
  const { McpClient, SKILLS_EXTENSION } = ctx.lib;
  const options = (protocol, last) => ({
    protocol,
    headers: ctx.headers(),
    timeoutMs: ctx.timeoutMs,
    sessionStream: false,
    validateOutput: false,
    clientInfo: { name: "mcp-worker-template doctor", version: "0.1.0" },
    extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] }, [SKILLS_EXTENSION]: {} },
    fetch: recordingFetch(last),
  });

  const modernLast = {};
  const modern = new McpClient(ctx.url, options("2026-07-28", modernLast));
  let modernOk = false;
  await report.step("2026-07-28: server/discover", async () => {
    try {
      await modern.connect();
      modernOk = true;
      const name = modern.serverInfo ? `${modern.serverInfo.name} ${modern.serverInfo.version ?? ""}`.trim() : "a server";
      return { detail: `${name}; capabilities: ${Object.keys(modern.capabilities).join(", ") || "none"}` };
    } catch (err) {
      const limited = rateLimited(err, modernLast);
      if (limited) return limited;
      // A server of 2025 only answers 400/404/405 without a 2026 error: hosted clients fall back, nothing is wrong.
      if ([400, 404, 405].includes(err?.status) && !MODERN_CODES.has(err?.code))
        return { skip: `the server speaks 2025-11-25 only (${errorText(err)})` };
      return { fault: fault("modern-broken", FAULTS.modernBroken(`server/discover ${errorText(err)}`)) };
    }
  });
  if (modernOk) {
    await report.step("2026-07-28: tools/list", async () => {
      try {
        const tools = await modern.listAllTools();
        ctx.state.tools = tools;
        return { detail: `${tools.length} tool(s)` };
      } catch (err) {
        return rateLimited(err, modernLast) ?? { fault: fault("modern-broken", FAULTS.modernBroken(`tools/list ${errorText(err)}`)) };
      }
    });
    ctx.state.client = modern;
    ctx.state.clientLast = modernLast;
  }

  const last = {};
  const legacy = new McpClient(ctx.url, options("2025-11-25", last));
  let session;
  await report.step("2025-11-25: initialize", async () => {
    try {
      await legacy.connect();
      session = last.session;
      ctx.state.sessionId = session;
      return {
        detail: `${legacy.protocolVersion}, session id ${session ? `of ${session.length} characters` : "none (a stateless server)"}`,
      };
    } catch (err) {
      const limited = rateLimited(err, last);
      if (limited) return limited;
      // initialize gave a session id and the next request with it (notifications/initialized) got 404.
      if (err?.status === 404 && last.session)
        return {
          fault: fault(
            "session-lost",
            FAULTS.sessionLost(`(notifications/initialized, right after initialize) answered 404: ${err?.message ?? err}`),
          ),
        };
      // initialize succeeded without an id, and the next request was refused: the id was lost on the way.
      if (lostId(err, last)) return { fault: fault("session-lost", FAULTS.sessionLost(errorText(err), true)) };
      return { fault: fault("legacy-broken", FAULTS.legacyBroken(`initialize ${errorText(err)}`)) };
    }
  });
  await report.step("2025-11-25: a request without Mcp-Session-Id (as Claude may send)", async () => {
    const a = await ctx.send(sessionlessToolsList());
    const body = jsonOf(a);
    // A clear JSON-RPC answer (an error telling the client to initialize, or a result from a stateless server) is healthy.
    if (a.status > 0 && a.status < 500 && body && (body.error || body.result)) return { detail: describe(a), ms: a.ms };
    return { fault: fault("sessionless-unclear", FAULTS.sessionlessUnclear(describe(a))), ms: a.ms };
  });
  if (!legacy.protocolVersion) return;
  await report.step("2025-11-25: tools/list in the session", async () => {
    try {
      const tools = await legacy.listAllTools();
      ctx.state.tools ??= tools;
      if (last.lost) return { fault: fault("session-lost", FAULTS.sessionLost("answered 404 (the client had to start a new session)")) };
      return { detail: `${tools.length} tool(s)` };
    } catch (err) {
      const limited = rateLimited(err, last);
      if (limited) return limited;
      if (err?.status === 404) return { fault: fault("session-lost", FAULTS.sessionLost(errorText(err))) };
      if (lostId(err, last)) return { fault: fault("session-lost", FAULTS.sessionLost(errorText(err), true)) };
      return { fault: fault("legacy-broken", FAULTS.legacyBroken(`tools/list ${errorText(err)}`)) };
    }
  });
  if (!ctx.state.client) {
    ctx.state.client = legacy;
    ctx.state.clientLast = last;
  }
  ctx.state.closeLegacy = async () => {
    if (ctx.state.client === legacy) ctx.state.client = undefined;
    await legacy.close().catch(() => undefined);
    return last.DELETE?.status;
  };
}

/** DELETE of the doctor's 2025 session: run last, after the checks that may use that session. */
export async function deleteCheck(ctx, report) {
  if (!ctx.state.closeLegacy) return;
  await report.step("2025-11-25: DELETE ends the session", async () => {
    const status = await ctx.state.closeLegacy();
    if (status === undefined) return { detail: "no session to end (a stateless server)" };
    // 405: the server does not let clients end sessions (allowed by the spec); 404: it lost the session already.
    if ((status >= 200 && status < 300) || status === 405) return { detail: String(status) };
    if (status === 404) return { fault: fault("session-lost", FAULTS.sessionLost("(DELETE) answered 404")) };
    return { fault: fault("legacy-broken", FAULTS.legacyBroken(`DELETE answered ${status}`)) };
  });
}
