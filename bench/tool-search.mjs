// Why: issue 49 asks that a large API reach a model through a few governed tools. This measures, in
// one run, on GitHub's REST API (bench/tool-search/github.mjs: 1,223 operations as tools):
//   - tools/list tokens (o200k, gpt-tokenizer): every tool listed flat, against toolSearch()'s list,
//     read from the running server;
//   - recall@5 of search_tools, through the server, on the labelled sets of bench/tool-search/queries.json
//     (keyword-style, natural language, and a held-out natural-language set no table was tuned on),
//     beside plain BM25 over names and summaries (the baseline the issue names);
//   - the search index's build time for 1,000 tools (once per isolate, on the first search);
//   - Worker CPU per `call_tool` against the same direct `tools/call`, interleaved rounds, workerd direct.
// Prints a Markdown report, and the targets (bench/lib/targets.mjs TOOL_SEARCH) met or not.
// The phase is bench/lib/tool-search.mjs.
// Run: npx node bench/tool-search.mjs [calls per round, default 1000] [rounds, default 5]
import { toolSearchPhase } from "./lib/tool-search.mjs";

const calls = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const { section, misses } = await toolSearchPhase({ calls, rounds }, (line) => console.error(line));
console.log(section);
if (process.env.VERBOSE) console.log(`\nmissed:\n${misses.join("\n")}`);
