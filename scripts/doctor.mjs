// Why: most failures of a deployed MCP server are not in the server: a zone's bot rule answering the
// connector's User-Agent, a custom domain missing from ALLOWED_HOSTS, slow or mismatched OAuth metadata,
// sessions that do not survive, a redirect on /mcp. This checks a deployment the way Claude, ChatGPT and
// the other hosted clients use it in their first minute, prints a line per step as it runs, and names
// the fix for each fault. It changes nothing: no tool is called unless asked (--call), the session it
// opens it deletes, and the one client it may register is named "mcp-worker-template doctor".
//
//   npm run doctor -- https://my-worker.example.workers.dev/mcp [--json] [--token …] [--call tool '{…}'] [--directory] [--max-result-chars n]
import { HOSTED_AGENTS, NEUTRAL_AGENT } from "./doctor/agents.mjs";
import { USAGE, readArgs } from "./doctor/args.mjs";
import { agentChecks } from "./doctor/checks/agents.mjs";
import { authChecks } from "./doctor/checks/auth.mjs";
import { INSPECTOR_ORIGIN, corsChecks } from "./doctor/checks/cors.mjs";
import { directoryChecks } from "./doctor/checks/directory.mjs";
import { discoveryChecks } from "./doctor/checks/discovery.mjs";
import { extensionChecks } from "./doctor/checks/extensions.mjs";
import { quirkChecks } from "./doctor/checks/quirks.mjs";
import { reachChecks } from "./doctor/checks/reach.mjs";
import { resultChecks } from "./doctor/checks/results.mjs";
import { deleteCheck, revisionChecks } from "./doctor/checks/revisions.mjs";
import { request } from "./doctor/http.mjs";
import { loadClient } from "./doctor/load-client.mjs";
import { clean, createReport } from "./doctor/report.mjs";

let args;
try {
  args = readArgs(process.argv.slice(2));
} catch (err) {
  console.error(`${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const report = createReport({ json: args.json });
// A request may run past the budget (to say by how much) but not for ever.
const timeoutMs = args.budgetMs + Math.max(args.budgetMs, 5000);
const ctx = {
  url: args.url,
  token: args.token,
  call: args.call,
  browserOrigin: args.origin ?? INSPECTOR_ORIGIN,
  originNamed: args.origin !== undefined,
  directory: args.directory,
  maxResultChars: args.maxResultChars,
  budgetMs: args.budgetMs,
  timeoutMs,
  state: {},
  /** The headers of every request: the neutral agent (or a hosted client's) and the token, when given and wanted. */
  headers: ({ ua = NEUTRAL_AGENT, auth = true } = {}) => ({
    "User-Agent": ua,
    ...(auth && args.token ? { Authorization: `Bearer ${args.token}` } : {}),
  }),
  /**
   * One request with those headers, to `url` (the server's unless told).
   * @param {{ method?: string, headers?: Record<string, string>, body?: string }} spec
   * @param {{ url?: string, ua?: string, auth?: boolean }} [options]
   */
  send: (spec, { url = args.url, ua, auth } = {}) =>
    request(url, { ...spec, headers: { ...ctx.headers({ ua, auth }), ...spec.headers }, timeoutMs }),
};

if (!args.json)
  console.log(`mcp doctor: ${clean(args.url)} (budget ${args.budgetMs} ms; agents: ${HOSTED_AGENTS.map((a) => a.name).join(", ")})\n`);
ctx.lib = await loadClient();
await reachChecks(ctx, report);
await agentChecks(ctx, report);
await revisionChecks(ctx, report);
await quirkChecks(ctx, report);
await directoryChecks(ctx, report);
await resultChecks(ctx, report);
await authChecks(ctx, report);
await corsChecks(ctx, report);
await extensionChecks(ctx, report);
await discoveryChecks(ctx, report);
await deleteCheck(ctx, report);
const summary = report.finish(args.url);
process.exit(summary.ok ? 0 : 1);
