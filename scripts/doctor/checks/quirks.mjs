// Why: hosted clients send request shapes the spec does not allow (a 2026-07-28 body with a 2025-11-25
// version header, the header twice, an Accept with one type); a server that refuses them is "connected"
// in the client while every call fails. This replays each recorded shape (../quirks.mjs, with the public
// thread it comes from) as the client sends it, in the session the revision checks opened, and names
// the client a refusal breaks.
import { FAULTS } from "../faults.mjs";
import { fault } from "../report.mjs";
import { QUIRKS, quirkProblem, quirkRequest } from "../quirks.mjs";

const LANE = { modern: "2026-07-28", legacy: "2025-11-25 session" };

export async function quirkChecks(ctx, report) {
  if (ctx.state.blocked) return;
  if (ctx.state.authRequired && !ctx.token) {
    await report.step("hosted clients' request shapes", () => ({
      skip: "the server asks for authorization: pass --token <access token> to check behind it",
    }));
    return;
  }
  /** One request as the client sends it; null, when the lane does not apply to this server. */
  const send = async (c) => {
    const [, init] = quirkRequest(c, ctx.url, { sessionId: ctx.state.sessionId });
    // Node's fetch sends `Accept: */*` when a request names none: an empty value is the nearest it can send.
    const headers = /** @type {Record<string, string>} */ ({ ...init.headers });
    if (!("Accept" in headers)) headers.Accept = "";
    const a = await ctx.send({ method: "POST", headers, body: init.body });
    return { status: a.status, contentType: a.headers.get("content-type") ?? "", text: a.text, ms: a.ms, error: a.error };
  };
  /** Whether the well-formed request of a lane is served: a quirk is only judged where it is. */
  const served = new Map();
  const laneWorks = async (lane) => {
    if (!served.has(lane)) {
      if (lane === "legacy" && !ctx.state.sessionId) served.set(lane, false);
      else
        served.set(
          lane,
          quirkProblem(/** @type {any} */ ({ quirk: { [lane]: {} }, lane }), await send({ quirk: { [lane]: { headers: {} } }, lane })) ===
            undefined,
        );
    }
    return served.get(lane);
  };
  for (const quirk of QUIRKS) {
    await report.step(`${quirk.client}: ${quirk.sends}`, async () => {
      const results = [];
      let ms = 0;
      for (const lane of /** @type {("modern" | "legacy")[]} */ (["modern", "legacy"]).filter((l) => quirk[l])) {
        if (!(await laneWorks(lane))) continue;
        const answer = await send({ quirk, lane });
        ms += answer.ms;
        const problem = answer.error ? `failed: ${answer.error}` : quirkProblem({ quirk, lane }, answer);
        results.push({ lane, problem });
      }
      if (results.length === 0)
        return { skip: "the well-formed request of its revision is not served here (see the revision checks above)" };
      const refused = results.filter((r) => r.problem);
      if (refused.length)
        return {
          fault: fault("quirk-refused", FAULTS.quirkRefused(quirk, refused.map((r) => `on ${LANE[r.lane]}: ${r.problem}`).join("; "))),
          ms,
        };
      return { detail: `served on ${results.map((r) => LANE[r.lane]).join(" and ")} (${quirk.threads.join(", ")})`, ms };
    });
  }
}
