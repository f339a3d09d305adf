// Why: the most reported failure of connectors on Cloudflare: the zone's bot rules (AI Crawl Control,
// Block AI bots, a WAF rule) answer the connector's User-Agent with a 403 that never reaches the Worker.
// The same first requests are sent with each hosted client's agent and with a neutral one; only a
// refusal the neutral agent does not get is the client's, and the edge's signature says who refused.
import { HOSTED_AGENTS, NEUTRAL_AGENT } from "../agents.mjs";
import { FAULTS } from "../faults.mjs";
import { describe, edgeSignature } from "../http.mjs";
import { fault } from "../report.mjs";
import { discoverRequest, sessionlessToolsList } from "../wire.mjs";

/**
 * The answers to a first request of each revision (2026 discover, a 2025 request) under one User-Agent.
 * The 2025 one opens no session: five agents' sessions would spend a server's session rate limit
 * (this template's allows 30 a minute), and a filter on User-Agent refuses any request alike.
 */
async function firstAnswers(ctx, ua) {
  const discover = await ctx.send(discoverRequest(), { ua });
  const legacy = await ctx.send(sessionlessToolsList(), { ua });
  return [discover, legacy];
}

// A 429 without the edge's signature is the server's own rate limit (the doctor's requests count too), not a judgement of the agent.
const refused = (a) => a.status === 0 || (a.status >= 300 && a.status !== 429) || (a.status === 429 && edgeSignature(a) !== undefined);

export async function agentChecks(ctx, report) {
  if (ctx.state.blocked) return;
  const neutral = await firstAnswers(ctx, NEUTRAL_AGENT);
  for (const agent of HOSTED_AGENTS) {
    await report.step(`User-Agent ${agent.name} gets what a neutral agent gets`, async () => {
      const answers = await firstAnswers(ctx, agent.ua);
      const ms = Math.max(...answers.map((a) => a.ms));
      const i = answers.findIndex(
        (a, n) => refused(a) && (a.status !== neutral[n].status || (edgeSignature(a) && !edgeSignature(neutral[n]))),
      );
      if (i < 0) return { detail: answers.map(describe).join("; "), ms };
      const edge = edgeSignature(answers[i]);
      return edge
        ? { fault: fault("edge-blocks-agent", FAULTS.edgeBlocksAgent(agent, edge)), ms }
        : { fault: fault("agent-refused", FAULTS.agentRefused(agent, `${describe(answers[i])} (neutral: ${describe(neutral[i])})`)), ms };
    });
  }
}
