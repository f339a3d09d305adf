// Why: the doctor's command line, read with node:util's parseArgs so that a typo is an error, not a
// silently ignored flag.
import { parseArgs } from "node:util";

export const USAGE = `Usage: npm run doctor -- <url> [options]

  <url>                   the server's MCP endpoint, e.g. https://my-worker.example.workers.dev/mcp
  --json                  print one JSON document instead of lines
  --token <bearer>        an access token, to check what lies behind the server's authorization
  --call <tool> <json>    also call this tool with these arguments (nothing is called otherwise)
  --origin <origin>       a browser origin that must be able to connect (CORS); without it the MCP
                          Inspector's origin is checked, and no CORS is not a fault
  --directory             check the tools against Claude's and ChatGPT's directory rules (faults)
  --budget-ms <ms>        the hosted clients' time budget per request (default 10000)
  --max-result-chars <n>  the tool result a host takes, in characters (default 50000: Claude Code's
                          25,000 tokens); a tool whose declared output cannot fit it is a fault
  --help`;

export function readArgs(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      token: { type: "string" },
      call: { type: "string" },
      origin: { type: "string" },
      directory: { type: "boolean", default: false },
      "budget-ms": { type: "string", default: "10000" },
      "max-result-chars": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return { help: true };
  // --call takes two words: the tool's name, then its arguments as JSON (the positional that is an object).
  const isJson = (p) => p.trim().startsWith("{");
  const [target, ...rest] = positionals.filter((p) => !isJson(p));
  const jsonArgs = positionals.filter(isJson);
  if (!target) throw new Error("a URL is required");
  const url = new URL(target);
  if (jsonArgs.length > (values.call === undefined ? 0 : 1)) throw new Error("one JSON argument, after --call <tool>");
  let call;
  if (values.call !== undefined) {
    const raw = jsonArgs[0] ?? "{}";
    const args = JSON.parse(raw);
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("--call's arguments must be a JSON object");
    call = { name: values.call, args };
  }
  if (rest.length) throw new Error(`unexpected argument: ${rest[0]}`);
  const budgetMs = Number(values["budget-ms"]);
  if (!Number.isFinite(budgetMs) || budgetMs <= 0) throw new Error("--budget-ms must be a positive number");
  const maxResultChars = values["max-result-chars"] === undefined ? undefined : Number(values["max-result-chars"]);
  if (maxResultChars !== undefined && !(Number.isSafeInteger(maxResultChars) && maxResultChars > 0))
    throw new Error("--max-result-chars must be a positive whole number");
  const { json, token, origin, directory } = values;
  return { url: url.href, json, token, call, origin, directory, budgetMs, maxResultChars };
}
