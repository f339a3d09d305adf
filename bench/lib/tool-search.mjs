// Why: issue 49's measurements of toolSearch() on a large API, in one run (bench/tool-search.mjs runs
// it alone, `npm run bench -- --tool-search` writes its section of bench/RESULTS.md):
//   - tools/list tokens (o200k, gpt-tokenizer): every tool listed flat, against toolSearch()'s list,
//     read from the running server;
//   - recall@5 of search_tools, through the server, on the labelled sets of bench/tool-search/queries.json
//     (keyword-style, natural language, and a held-out natural-language set no table was tuned on),
//     beside plain BM25 over names and summaries (the baseline the issue names);
//   - the search index's build time for 1,000 tools (once per isolate, on the first search);
//   - Worker CPU per `call_tool` against the same direct `tools/call`, interleaved rounds, workerd direct.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { buildIndex } from "../../src/engine/mcp/surfaces/search-index.ts";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { githubTools } from "../tool-search/github.mjs";
import { Client } from "./http.mjs";
import { modernCall, modernRequest } from "./mcp.mjs";
import { pidsCpuMs } from "./procstat.mjs";
import { startDirect } from "./direct.mjs";
import { tempDir } from "./startup.mjs";
import { median, runLoad } from "./runner.mjs";
import { TOOL_SEARCH } from "./targets.mjs";

const concurrency = 8;
const QUERIES = JSON.parse(readFileSync(path.join(ROOT, "bench/tool-search/queries.json"), "utf8"));
const SETS = { keyword: "keyword-style", natural: "natural language", heldout: "natural language, held out" };

/**
 * Runs the whole measurement; `calls` per round of each CPU row, `rounds` interleaved rounds.
 * Returns the report's section (Markdown, its targets met or not) and the queries search_tools missed.
 * @param {{ calls: number, rounds: number }} settings
 * @param {(line: string) => void} [progress]
 */
export async function toolSearchPhase({ calls, rounds }, progress = () => {}) {
  const tools = githubTools();
  writeFileSync(path.join(ROOT, "bench/tool-search/github-tools.json"), JSON.stringify(tools.map(({ path: _p, method: _m, ...t }) => t)));
  const listed = (list) => JSON.stringify({ tools: list });
  const wire = tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema }));

  /** Plain BM25 over each tool's name and summary (one field, words split on anything not a letter or digit). */
  function plainBm25(docs) {
    const split = (s) =>
      (s ?? "")
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean);
    const bags = docs.map((d) => split(`${d.name} ${d.title ?? ""}`));
    const avg = bags.reduce((n, b) => n + b.length, 0) / bags.length;
    const df = new Map();
    for (const bag of bags) for (const w of new Set(bag)) df.set(w, (df.get(w) ?? 0) + 1);
    return (query, k) => {
      const scores = bags.map((bag) => {
        let s = 0;
        for (const w of new Set(split(query))) {
          const tf = bag.filter((x) => x === w).length;
          if (!tf) continue;
          const n = df.get(w);
          const idf = Math.log(1 + (bags.length - n + 0.5) / (n + 0.5));
          s += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * bag.length) / avg));
        }
        return s;
      });
      return scores
        .map((s, i) => [s, i])
        .filter(([s]) => s > 0)
        .sort((a, b) => b[0] - a[0])
        .slice(0, k)
        .map(([, i]) => docs[i].name);
    };
  }

  const recall = async (set, top5) => {
    let found = 0;
    const misses = [];
    for (const { q, want } of QUERIES[set]) {
      const top = await top5(q);
      if (top.some((n) => want.includes(n))) found++;
      else misses.push(q);
    }
    return { found, total: QUERIES[set].length, share: found / QUERIES[set].length, misses };
  };

  // The index's build time for 1,000 tools, in this process (Node; the Worker builds the same code once per isolate).
  const first1000 = tools
    .slice(0, 1000)
    .map((t) => ({ name: t.name, title: t.title, description: t.description, args: Object.keys(t.inputSchema.properties) }));
  // CPU time, not wall time: on a busy machine the wall clock also counts the other processes' turns.
  const builds = [];
  for (let i = 0; i < 9; i++) {
    const before = process.cpuUsage();
    buildIndex(first1000);
    const used = process.cpuUsage(before);
    builds.push((used.user + used.system) / 1000);
  }

  const tmp = tempDir("mcp-bench-tool-search-");
  let server;
  let client;
  try {
    progress("tool search: serving GitHub's API behind toolSearch() (workerd direct)");
    server = await startDirect("bench/tool-search/wrangler.toml", path.join(tmp.dir, "server"), { ratelimits: {} });
    client = new Client(server.url, { connections: concurrency });
    const surfaceList = (await modernCall(client, "tools/list", {})).tools;
    const search = async (query) =>
      (await modernCall(client, "tools/call", { name: "search_tools", arguments: { query, limit: 5 } })).structuredContent.tools.map(
        (t) => t.name,
      );
    const baseline = plainBm25(tools);
    const recalls = {};
    for (const set of Object.keys(SETS)) {
      recalls[set] = { surface: await recall(set, search), baseline: await recall(set, async (q) => baseline(q, 5)) };
    }

    // CPU: the same tool, directly and through call_tool, interleaved.
    const target = { name: "issues_get", arguments: { owner: "octocat", repo: "hello-world", issue_number: 1 } };
    const rows = {
      direct: target,
      call_tool: { name: "call_tool", arguments: target },
    };
    const cpu = { direct: 0, call_tool: 0 };
    const done = { direct: 0, call_tool: 0 };
    const op = (row) => async () => {
      const { headers, body } = modernRequest("tools/call", rows[row]);
      const r = await client.request("POST", headers, body);
      if (r.status !== 200 || !r.text.includes('"operation":"issues_get"'))
        throw new Error(`${row}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    };
    for (const row of Object.keys(rows)) await runLoad({ name: "warm-up", total: 300, concurrency, maxMs: 60_000, op: op(row) });
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so a load change on the machine falls on both.
      for (const row of round % 2 ? ["call_tool", "direct"] : ["direct", "call_tool"]) {
        const before = pidsCpuMs(server.pids);
        const r = await runLoad({ name: row, total: calls, concurrency, maxMs: 300_000, op: op(row) });
        if (r.errors > 0) throw new Error(`${row}: ${r.errors} of ${calls} calls failed: ${JSON.stringify(r.errorSamples).slice(0, 300)}`);
        cpu[row] += pidsCpuMs(server.pids) - before;
        done[row] += calls;
      }
    }
    const per = (row) => (cpu[row] / done[row]) * 1000;

    const flatTokens = countTokens(listed(wire));
    const flat1000 = countTokens(listed(wire.slice(0, 1000)));
    const summaries = countTokens(listed(tools.map(({ name, title }) => ({ name, title }))));
    const surfaceTokens = countTokens(listed(surfaceList));
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    const ratio = per("call_tool") / per("direct");
    const lines = [
      `## Tool search on GitHub's REST API (${tools.length} operations, @octokit/openapi 23.0.2)`,
      "",
      "| tools/list (o200k tokens) | tokens |",
      "|---|---:|",
      `| every operation listed flat, with input schemas | ${flatTokens.toLocaleString("en")} |`,
      `| the first 1,000 operations listed flat | ${flat1000.toLocaleString("en")} |`,
      `| names and summaries alone | ${summaries.toLocaleString("en")} |`,
      `| toolSearch(): search_tools and call_tool | ${surfaceTokens.toLocaleString("en")} |`,
      "",
      "| recall@5 | queries | search_tools | plain BM25 over names and summaries |",
      "|---|---:|---:|---:|",
      ...Object.entries(SETS).map(
        ([set, label]) =>
          `| ${label} | ${recalls[set].surface.total} | ${pct(recalls[set].surface.share)} | ${pct(recalls[set].baseline.share)} |`,
      ),
      "",
      `Index build for 1,000 tools (Node, CPU time, median of 9): ${median(builds).toFixed(1)} ms, once per isolate on the first search.`,
      "",
      `Worker CPU per call (workerd direct, ${rounds} interleaved rounds of ${calls}): direct tools/call ${per("direct").toFixed(0)} µs, call_tool ${per("call_tool").toFixed(0)} µs: ${ratio.toFixed(2)}×.`,
      "",
      "| | target |",
      "|---|---|",
      `| ${surfaceTokens <= TOOL_SEARCH.listTokens ? "✅" : "❌"} | tools/list ≤ ${TOOL_SEARCH.listTokens.toLocaleString("en")} tokens for a 1,000-operation document: ${surfaceTokens.toLocaleString("en")} |`,
      `| ${recalls.keyword.surface.share >= TOOL_SEARCH.recallKeyword ? "✅" : "❌"} | recall@5 ≥ ${pct(TOOL_SEARCH.recallKeyword)} on keyword-style queries: ${pct(recalls.keyword.surface.share)} |`,
      `| ${recalls.natural.surface.share >= TOOL_SEARCH.recallNatural ? "✅" : "❌"} | recall@5 ≥ ${pct(TOOL_SEARCH.recallNatural)} on natural-language queries: ${pct(recalls.natural.surface.share)} (held out: ${pct(recalls.heldout.surface.share)}) |`,
      `| ${ratio <= TOOL_SEARCH.callToolCpu ? "✅" : "❌"} | call_tool Worker CPU ≤ ${TOOL_SEARCH.callToolCpu}× the direct tools/call's: ${ratio.toFixed(2)}× |`,
    ];
    const misses = Object.keys(SETS).flatMap((set) => recalls[set].surface.misses.map((q) => `${set}: ${q}`));
    return { section: lines.join("\n"), misses };
  } finally {
    client?.close();
    await server?.stop();
    tmp.remove();
  }
}
