// Why: a server is found before anyone connects: by its Server Card at <mcp URL>/server-card, by the AI
// Catalog of its domain, by the MCP Registry's entry, and by a person who opens its URL in a browser.
// Each of those is read without a token, so each is checked here without one: the card present, valid
// against the extension's schema (scripts/lib/server-card.schema.json), agreeing with what server/discover
// said, revalidated by its ETag; the catalog listing it; the page a browser gets; and what a directory's
// reviewer would flag in the card (faults with --directory). A server without a card is told so.
import { cardValidator } from "../../lib/server-card.mjs";
import { FAULTS } from "../faults.mjs";
import { jsonOf } from "../http.mjs";
import { fault } from "../report.mjs";

const CARD_TYPE = "application/mcp-server-card+json";
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The card's validator, or undefined where ajv is not installed. */
function validator() {
  try {
    return cardValidator();
  } catch {
    return undefined;
  }
}

/** Where the card and the page disagree with the live server (serverInfo from server/discover or initialize). */
function drift(card, info, url) {
  const found = [];
  for (const key of ["version", "title", "description", "websiteUrl"])
    if (info?.[key] !== undefined && card[key] !== undefined && card[key] !== info[key])
      found.push(`the card's ${key} "${card[key]}" is not serverInfo's "${info[key]}"`);
  const remotes = Array.isArray(card.remotes) ? card.remotes : [];
  if (remotes.length && !remotes.some((r) => r?.url === url))
    found.push(`no remote of the card is ${url} (it names ${remotes.map((r) => r?.url).join(", ")})`);
  return found;
}

export async function discoveryChecks(ctx, report) {
  const cardUrl = `${ctx.url.replace(/\/+$/, "")}/server-card`;
  let card;
  await report.step("Server Card (<mcp URL>/server-card, no token)", async () => {
    const a = await ctx.send({ headers: { Accept: CARD_TYPE } }, { url: cardUrl, auth: false });
    const parsed = a.status === 200 ? jsonOf(a) : undefined;
    // No card, or one behind a token: said, never a fault (the extension is experimental; no directory requires it yet).
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      const answer = `answers ${a.status || a.error}${a.status === 200 ? " with no JSON card" : ""}`;
      const behind = a.status === 401 || a.status === 403 ? " (a card must be readable without a token)" : "";
      return { detail: `none (${answer})${behind}: discovery by domain does not find this server; docs/discovery.md`, ms: a.ms };
    }
    const problems = [];
    const type = a.headers.get("content-type") ?? "";
    if (!type.startsWith(CARD_TYPE) && !type.startsWith("application/json"))
      problems.push(`its Content-Type is "${type}", not ${CARD_TYPE}`);
    const validate = validator();
    problems.push(...(validate ? validate(parsed) : []));
    if (problems.length)
      return { fault: fault("server-card-invalid", FAULTS.serverCardInvalid(`the card at ${cardUrl}: ${problems.join("; ")}`)) };
    card = parsed;
    const drifted = drift(card, ctx.state.client?.serverInfo, ctx.url);
    if (drifted.length) return { fault: fault("server-card-drift", FAULTS.serverCardDrift(drifted.join("; "))) };
    const etag = a.headers.get("etag");
    const again = etag
      ? await ctx.send({ headers: { Accept: CARD_TYPE, "If-None-Match": etag } }, { url: cardUrl, auth: false })
      : undefined;
    const cache =
      again?.status === 304 ? "its ETag revalidates (304)" : etag ? `its ETag did not revalidate (${again?.status})` : "no ETag";
    const cors = a.headers.get("access-control-allow-origin") ? "" : "; no CORS header (browser clients cannot read it)";
    return {
      detail: `${card.name} ${card.version}: valid${validate ? "" : " (schema not checked: install ajv)"}, agrees with the server; ${cache}${cors}`,
      ms: a.ms,
    };
  });

  await report.step("AI Catalog (/.well-known/ai-catalog.json)", async () => {
    const catalogUrl = new URL("/.well-known/ai-catalog.json", ctx.url).href;
    const a = await ctx.send({ headers: { Accept: "application/ai-catalog+json, application/json" } }, { url: catalogUrl, auth: false });
    const entries = a.status === 200 ? jsonOf(a)?.entries : undefined;
    if (!Array.isArray(entries)) return { detail: `none (answers ${a.status || a.error}): domain discovery does not find the card` };
    const cards = entries.filter((e) => e?.type === CARD_TYPE);
    if (card && !cards.some((e) => e.url === cardUrl || e.data?.name === card.name))
      return { fault: fault("catalog-wrong", FAULTS.catalogWrong(`the catalog lists ${cards.length} card(s), none at ${cardUrl}`)) };
    return {
      detail: `${entries.length} entr${entries.length === 1 ? "y" : "ies"}, ${cards.length} Server Card(s)${card ? ", this server's among them" : ""}`,
    };
  });

  await report.step("a browser opening the URL", async () => {
    const a = await ctx.send({ headers: { Accept: BROWSER_ACCEPT } }, { auth: false });
    const type = a.headers.get("content-type") ?? "";
    if (a.status === 200 && type.startsWith("text/html"))
      return {
        detail: `a page (${a.text.length} bytes${a.headers.get("content-security-policy") ? ", with a CSP" : ", no CSP"}) saying how to add the server`,
        ms: a.ms,
      };
    return {
      detail: `answers ${a.status || a.error} ${type}: a person who opens the link sees an error (discovery() serves a page; docs/discovery.md)`,
      ms: a.ms,
    };
  });

  if (!card) return;
  await report.step("what a directory's reviewer would flag in the card", () => {
    // A local server is http by nature: only a deployed one is judged on https.
    const local = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(ctx.url);
    const refused = ctx.lib.registryProblems(card).filter((p) => !(local && p.startsWith("remotes")));
    const missing = [!card.title && "a title", !card.websiteUrl && "a websiteUrl", !card.icons?.length && "icons"].filter(Boolean);
    const wish = missing.length ? `; a reviewer would also ask for ${missing.join(", ")}` : "";
    if (!refused.length) return { detail: `nothing the registry refuses${wish}` };
    if (!ctx.directory) return { detail: `${refused.join("; ")} (pass --directory to make these faults)${wish}` };
    return { faults: refused.map((f) => fault("directory-listing", FAULTS.directoryListing(f))) };
  });
}
