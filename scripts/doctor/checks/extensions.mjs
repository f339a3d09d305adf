// Why: what a host loads after tools/list: the MCP Apps views the tools declare (a host renders the
// tool's text alone when its view cannot be read) and the skills the server declares (each file checked
// against its listed size and digest by the client). Only with --call does the doctor call a tool. A view's
// `_meta` is judged by the app check's rules (src/engine/mcp/view-hosts.ts), and its Claude domain against
// the URL the doctor is pointed at: Claude derives it from the URL a user adds, which the app cannot know.
import { FAULTS } from "../faults.mjs";
import { isLoopback } from "../http.mjs";
import { fault } from "../report.mjs";

const VIEWS_CHECKED = 5;
const SKILLS_CHECKED = 5;
const viewOf = (tool) => tool._meta?.ui?.resourceUri ?? tool._meta?.["ui/resourceUri"];

export async function extensionChecks(ctx, report) {
  const client = ctx.state.client;
  if (!client) return;
  const views = [...new Set((ctx.state.tools ?? []).map(viewOf).filter((u) => typeof u === "string"))];
  await report.step("MCP Apps views the tools declare", async () => {
    if (!views.length) return { skip: "no tool declares a view" };
    const faults = [];
    const notes = [];
    for (const uri of views.slice(0, VIEWS_CHECKED)) {
      try {
        const { contents } = await client.readResource(uri, { timeoutMs: ctx.timeoutMs });
        const part = contents.find((c) => c.uri === uri) ?? contents[0];
        const type = String(part?.mimeType ?? "");
        if (!type.startsWith("text/html") || !(part.text || part.blob))
          faults.push(fault("view-unreadable", FAULTS.viewUnreadable(uri, `reads as ${type || "no content"}`)));
        const meta = part?._meta && typeof part._meta === "object" ? part._meta : {};
        const judged = await viewDomainJudged(ctx, uri, meta.ui?.domain);
        if (judged?.fault) faults.push(judged.fault);
        else if (judged?.note) notes.push(judged.note);
        // The app check's other rules (CSP origins, permissions, ChatGPT's domain): what hosts drop, said.
        notes.push(...ctx.lib.viewMetaWarnings({ ...meta, ui: { ...meta.ui, domain: undefined } }, `view ${uri}`));
      } catch (err) {
        faults.push(fault("view-unreadable", FAULTS.viewUnreadable(uri, `cannot be read: ${err?.message ?? err}`)));
      }
    }
    const said = notes.length ? `; ${notes.join("; ")}` : "";
    return { faults, detail: `${Math.min(views.length, VIEWS_CHECKED)} of ${views.length} read${said}` };
  });

  await report.step("skills the server declares", async () => {
    const { SKILLS_EXTENSION, listSkills, loadSkill } = ctx.lib;
    if (!client.capabilities?.extensions?.[SKILLS_EXTENSION]) return { skip: "the server declares no skills" };
    let skills;
    try {
      skills = (await listSkills(client, undefined, { timeoutMs: ctx.timeoutMs })).skills ?? [];
    } catch (err) {
      return { fault: fault("skill-unreadable", FAULTS.skillUnreadable("skills/list", `fails: ${err?.message ?? err}`)) };
    }
    const faults = [];
    for (const entry of skills.slice(0, SKILLS_CHECKED)) {
      try {
        await loadSkill(client, entry, { timeoutMs: ctx.timeoutMs });
      } catch (err) {
        faults.push(fault("skill-unreadable", FAULTS.skillUnreadable(entry.uri, `fails: ${err?.message ?? err}`)));
      }
    }
    return { faults, detail: `${Math.min(skills.length, SKILLS_CHECKED)} of ${skills.length} loaded and verified` };
  });

  if (ctx.call) {
    await report.step(`tools/call ${ctx.call.name} (asked for with --call)`, async () => {
      try {
        const r = await client.callTool(ctx.call.name, ctx.call.args, { timeoutMs: ctx.timeoutMs });
        const text = (r.content ?? [])
          .filter((c) => c.type === "text")
          .map((c) => c.text)
          .join(" ");
        if (r.isError)
          return { fault: fault("call-failed", FAULTS.callFailed(ctx.call.name, `the tool answered isError: ${text.slice(0, 200)}`)) };
        return { detail: text.slice(0, 120) || "a result" };
      } catch (err) {
        const refusal = ctx.state.clientLast?.refusal;
        const challenge = refusal?.status === 403 ? (refusal.headers.get("www-authenticate") ?? "") : "";
        if (err?.status === 403 && /error\s*=\s*"?insufficient_scope/i.test(challenge)) {
          const scope = challenge.match(/scope\s*=\s*"([^"]*)"/i)?.[1];
          return { fault: fault("scope-refused", FAULTS.scopeRefused(ctx.call.name, scope)) };
        }
        return { fault: fault("call-failed", FAULTS.callFailed(ctx.call.name, String(err?.message ?? err))) };
      }
    });
  }
}

/**
 * A view's Claude domain (`_meta.ui.domain`) against the URL the doctor is pointed at: a fault where Claude
 * would refuse it (not its form, or made for another URL), a note where it cannot be judged (a loopback
 * URL, which no hosted client adds), nothing where it is unset or right.
 */
export async function viewDomainJudged(ctx, uri, domain) {
  if (domain === undefined) return undefined;
  const expected = await ctx.lib.claudeViewDomain(ctx.url);
  const local = isLoopback(new URL(ctx.url).hostname);
  // A loopback URL is no URL a user adds: the value to set is the deployed URL's.
  const value = local
    ? "the value `npm run server-json -- --url <your deployed /mcp URL>` prints"
    : `"${expected}", the value for ${ctx.url} (\`npm run server-json -- --url ${ctx.url}\` prints it)`;
  const fix = `set defineView({ domain }) to ${value}, then deploy; or leave domain unset (Claude then gives the view an origin of its own); docs/views-and-skills.md`;
  if (!ctx.lib.isClaudeDomain(domain))
    return {
      fault: fault(
        "view-domain-wrong",
        FAULTS.viewDomainWrong(
          uri,
          `its _meta.ui.domain "${domain}" is not Claude's form (32 hex digits of the SHA-256 of the server's URL, then .claudemcpcontent.com, no scheme)`,
          fix,
        ),
      ),
    };
  if (domain === expected) return undefined;
  if (local)
    return {
      note: `view ${uri}: its domain ${domain} is for another URL than this local one; run the doctor against the deployed URL to check it`,
    };
  return {
    fault: fault(
      "view-domain-wrong",
      FAULTS.viewDomainWrong(
        uri,
        `its _meta.ui.domain ${domain} is not ${expected}, the one Claude derives from ${ctx.url}: it was made for another URL (another host, path or a trailing slash)`,
        fix,
      ),
    ),
  };
}
