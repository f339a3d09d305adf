// Why: the first minute of a hosted client: is the URL https, does POST /mcp reach the Worker without a
// redirect, does the Worker accept the URL's own Host (a custom domain missing from ALLOWED_HOSTS) and
// Origin, is it an MCP server at all (not a page of another app on the path). A fault here stops the protocol checks, which would only repeat it.
import { FAULTS } from "../faults.mjs";
import { describe, edgeSignature, isLoopback, locationOf, rpcErrorOf } from "../http.mjs";
import { fault } from "../report.mjs";
import { discoverRequest } from "../wire.mjs";

const refusalText = (answer) => rpcErrorOf(answer)?.message ?? answer.text.slice(0, 300);

export async function reachChecks(ctx, report) {
  const url = new URL(ctx.url);
  await report.step("https", () =>
    url.protocol === "https:"
      ? { detail: "the URL is https" }
      : isLoopback(url.hostname)
        ? { detail: "http on a loopback host (local only: hosted clients need the deployed https URL)" }
        : { fault: fault("insecure-url", FAULTS.insecureUrl(ctx.url)) },
  );

  await report.step("POST /mcp reaches the server without a redirect", async () => {
    // Without the token: what a hosted client's first request gets, and whether the server asks for authorization.
    const a = await ctx.send(discoverRequest(), { auth: false });
    ctx.state.first = a;
    const stop = (id, body) => ((ctx.state.blocked = id), { fault: fault(id, body), ms: a.ms });
    if (a.status === 0) return stop("unreachable", FAULTS.unreachable(a.error));
    if (a.status >= 300 && a.status < 400) return stop("redirect", FAULTS.redirect(a.status, locationOf(a, ctx.url)));
    const edge = edgeSignature(a);
    if (edge) return stop("edge-blocks-all", FAULTS.edgeBlocksAll(edge));
    if (a.status === 403 && /\bHost\b.*(ALLOWED_HOSTS|not allowed)/i.test(refusalText(a))) {
      // The name the Worker saw (a route or proxy may send another than the URL's): that is the one to allow.
      const seen = refusalText(a).match(/Host "([^"]+)"/)?.[1] ?? url.host;
      return stop("host-refused", FAULTS.hostRefused(seen));
    }
    // A 2xx that is neither JSON nor SSE is another app answering the path (a site, a catch-all route).
    const type = (a.headers.get("content-type") ?? "").toLowerCase();
    if (a.status >= 200 && a.status < 300 && !/application\/json|text\/event-stream/.test(type))
      return stop("not-mcp", FAULTS.notMcp(describe(a)));
    if (a.status === 401) ctx.state.authRequired = true;
    return { detail: a.status === 401 ? "401: the server asks for authorization" : describe(a), ms: a.ms };
  });
  if (ctx.state.blocked) return;

  await report.step(`Origin ${url.origin} (the URL's own) is accepted`, async () => {
    const a = await ctx.send(discoverRequest({ Origin: url.origin }), { auth: false });
    if (a.status === 403 && /\bOrigin\b/i.test(refusalText(a)))
      return { fault: fault("origin-refused", FAULTS.originRefused(url.origin)), ms: a.ms };
    return { detail: describe(a), ms: a.ms };
  });
}
