// Why: browser-based clients (the MCP Inspector in direct mode, web apps) reach /mcp only through CORS:
// a preflight that allows every header either revision sends, and answers that name the origin and
// expose Mcp-Session-Id (and WWW-Authenticate when signing in), or the browser hides them. Hosted
// connectors (Claude, ChatGPT) call from their servers and need none of it, so the check is made for a
// real foreign origin (the Inspector's unless --origin names one), and a server that sends no CORS at
// all, or refuses that origin, is a fault only for an origin the user named with --origin. CORS that is
// sent but incomplete breaks the browser clients the server meant to allow, and is always a fault.
import { FAULTS } from "../faults.mjs";
import { rpcErrorOf } from "../http.mjs";
import { fault } from "../report.mjs";
import { deleteSession, initializeRequest } from "../wire.mjs";

/** The MCP Inspector's own origin (`npx @modelcontextprotocol/inspector`): the browser client most servers meet. */
export const INSPECTOR_ORIGIN = "http://localhost:6274";

const REQUESTED = ["content-type", "accept", "authorization", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name"];
const listed = (header) =>
  (header ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
const allowsOrigin = (a, origin) => [origin, "*"].includes(a.headers.get("access-control-allow-origin") ?? "");
const sendsCors = (a) => [...a.headers.keys()].some((k) => k.toLowerCase().startsWith("access-control-"));
const HOSTED_UNAFFECTED = "hosted connectors call from their servers and are not affected";

export async function corsChecks(ctx, report) {
  if (ctx.state.blocked) return;
  const origin = ctx.browserOrigin;
  const named = ctx.originNamed;
  const label = named ? origin : `${origin} (the MCP Inspector's)`;
  const refusedOrigin = (a) => {
    if (!(a.status === 403 && /\bOrigin\b/i.test(rpcErrorOf(a)?.message ?? a.text))) return undefined;
    return named
      ? { fault: fault("origin-refused", FAULTS.originRefused(origin)), ms: a.ms }
      : {
          detail: `403: the server refuses browser pages from ${origin} (it allows the origins it lists; pass --origin to check one); ${HOSTED_UNAFFECTED}`,
          ms: a.ms,
        };
  };
  const noCors = (a, what) =>
    named
      ? {
          fault: fault("cors-missing", FAULTS.corsMissing(`${what} (${a.status || a.error}) has no Access-Control-* header`, true)),
          ms: a.ms,
        }
      : { detail: `${a.status || a.error}, no CORS: browser-based clients cannot connect; ${HOSTED_UNAFFECTED}`, ms: a.ms };

  await report.step(`CORS preflight from ${label}`, async () => {
    const a = await ctx.send(
      {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": REQUESTED.join(", ") },
      },
      { auth: false },
    );
    const refused = refusedOrigin(a);
    if (refused) return refused;
    if (!sendsCors(a)) return noCors(a, "the preflight answer");
    const allowed = listed(a.headers.get("access-control-allow-headers"));
    const methods = listed(a.headers.get("access-control-allow-methods"));
    const missing = [
      ...(a.status >= 200 && a.status < 300 ? [] : [`status ${a.status || a.error}`]),
      ...(allowsOrigin(a, origin) ? [] : ["Access-Control-Allow-Origin"]),
      ...(methods.includes("post") || methods.includes("*") ? [] : ["POST in Access-Control-Allow-Methods"]),
      ...(allowed.includes("*") ? [] : REQUESTED.filter((h) => !allowed.includes(h)).map((h) => `${h} in Access-Control-Allow-Headers`)),
    ];
    if (missing.length)
      return { fault: fault("cors-missing", FAULTS.corsMissing(`the preflight answer lacks ${missing.join(", ")}`)), ms: a.ms };
    return { detail: `${a.status}, allows ${allowed.length} headers`, ms: a.ms };
  });

  await report.step(`CORS on a POST from ${label}`, async () => {
    const a = await ctx.send(initializeRequest({ Origin: origin }));
    const session = a.headers.get("mcp-session-id");
    if (session) await ctx.send(deleteSession(session, { Origin: origin }));
    const refused = refusedOrigin(a);
    if (refused) return refused;
    if (!sendsCors(a)) return noCors(a, "the answer to a POST");
    const exposed = listed(a.headers.get("access-control-expose-headers"));
    const need = [...(session ? ["mcp-session-id"] : []), ...(a.status === 401 ? ["www-authenticate"] : [])];
    const missing = [
      ...(allowsOrigin(a, origin) ? [] : ["Access-Control-Allow-Origin"]),
      ...need.filter((h) => !exposed.includes(h) && !exposed.includes("*")).map((h) => `${h} in Access-Control-Expose-Headers`),
    ];
    if (missing.length)
      return {
        fault: fault("cors-missing", FAULTS.corsMissing(`the answer to a POST (${a.status}) lacks ${missing.join(", ")}`)),
        ms: a.ms,
      };
    return { detail: `${a.status}, exposes ${exposed.join(", ") || "nothing"}`, ms: a.ms };
  });
}
