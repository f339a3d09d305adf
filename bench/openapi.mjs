// Why: `fromOpenApi` promises that a document the size of GitHub's (13 MB) does not cost its 13 MB in
// the Worker. This measures, in one run, three builds of the same one-tool app: alone, with GitHub's
// 1,223 operations imported from the compact form `npm run openapi` writes, and with the full
// document imported as it is. For each: the Worker bundle (`wrangler deploy --dry-run`, gzip -9) and
// the start-up CPU of a fresh isolate's first request (import, then the first tools/list, which
// compiles the app's registry), net of an isolate that imports nothing; rounds interleaved in
// rotating order so that load which comes and goes hits every build alike. Linux only (/proc).
//
//   node bench/openapi.mjs [--rounds 3] [--isolates 12] [--no-full]
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { ROOT } from "../scripts/lib/procs.mjs";
import { writeCompact } from "../scripts/openapi.mjs";
import { buildModernRequest } from "../test/engine/wire/index.ts";
import { median } from "./lib/runner.mjs";
import { pidsCpuMs, workerdChildren } from "./lib/procstat.mjs";
import { build, loadMiniflare, tempDir } from "./lib/startup.mjs";

const { values: opt } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    isolates: { type: "string", default: "12" },
    "no-full": { type: "boolean", default: false },
  },
});
const DOCUMENT = path.join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
const COMPAT = { compatibilityDate: "2026-11-01", compatibilityFlags: ["enable_request_signal"] };
const posix = (p) => p.split(path.sep).join("/");

/** The app's source: one tool of its own, and GitHub's operations from `document` when given. */
const appSource = (
  document,
) => `import { createMcpWorker, defineApp, defineTool${document ? ", fromOpenApi" : ""} } from "${posix(path.join(ROOT, "src/mcp.ts"))}";
${document ? `import github from "${posix(document)}";\n` : ""}
const ping = defineTool({ name: "ping", title: "Ping", annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false }, handler: () => "pong" });
const app = defineApp({
  info: { name: "openapi-bench", version: "1.0.0" },
  tools: [ping${document ? `, ...fromOpenApi(github, { baseUrl: "https://api.github.com", headers: (env) => ({ Authorization: \`Bearer \${env.GITHUB_TOKEN}\` }) })` : ""}],
});
const worker = createMcpWorker(app);
export const { McpHub, McpSession, McpTask } = worker;
export default worker;
`;

const WRANGLER = `name = "openapi-bench"
main = "index.ts"
compatibility_date = "${COMPAT.compatibilityDate}"
compatibility_flags = ${JSON.stringify(COMPAT.compatibilityFlags)}
minify = true
keep_names = false

[[durable_objects.bindings]]
name = "MCP_HUB"
class_name = "McpHub"

[[durable_objects.bindings]]
name = "MCP_SESSION"
class_name = "McpSession"

[[durable_objects.bindings]]
name = "MCP_TASK"
class_name = "McpTask"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["McpHub", "McpSession", "McpTask"]
`;

/** Builds one app in `dir` as wrangler deploys it. */
async function buildApp(dir, document) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "index.ts"), appSource(document));
  writeFileSync(path.join(dir, "wrangler.toml"), WRANGLER);
  return build(path.join(dir, "wrangler.toml"), path.join(dir, "out"));
}

/** The first request a fresh isolate serves: a 2026-07-28 tools/list. */
const FIRST = (() => {
  const { message, headers } = buildModernRequest("tools/list", {}, { clientInfo: { name: "bench", version: "0" } });
  return { headers, body: JSON.stringify(message) };
})();

/** The module each isolate runs: imports the Worker, serves the first request through it, says "ok". */
const harness = (main) => `export default { async fetch() {
  ${
    main
      ? `const { default: worker } = await import(${JSON.stringify(`./${main}`)});
  const res = await worker.fetch(new Request("http://localhost/mcp", { method: "POST", headers: ${JSON.stringify(FIRST.headers)}, body: ${JSON.stringify(FIRST.body)} }), {}, { waitUntil() {}, passThroughOnException() {} });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"tools"')) return new Response(\`first request: \${res.status} \${text.slice(0, 300)}\`);`
      : ""
  }
  return new Response("ok");
} };`;

/**
 * CPU ms per fresh isolate for its import and first request, net of an isolate that imports nothing:
 * `isolates` of each in one workerd, the process's CPU read around each first request.
 */
async function firstRequestCpu(outdir, main, isolates) {
  const { Miniflare, convertV4MiniflareOptions } = loadMiniflare();
  const files = readdirSync(outdir, { recursive: true, encoding: "utf8" }).filter((f) => /\.m?js$/.test(f));
  const modules = (withApp) => ({
    modulesRoot: outdir,
    modules: [
      { type: "ESModule", path: path.join(outdir, "__first-request.mjs"), contents: harness(withApp ? main : null) },
      ...(withApp
        ? files.map((f) => ({ type: "ESModule", path: path.join(outdir, f), contents: readFileSync(path.join(outdir, f), "utf8") }))
        : []),
    ],
  });
  const workers = Array.from({ length: 2 * isolates }, (_, i) => ({ name: `w${i}`, ...COMPAT, ...modules(i % 2 === 0) }));
  const before = new Set(workerdChildren());
  const options = { workers, handleStructuredLogs: () => {} };
  const mf = new Miniflare(convertV4MiniflareOptions ? convertV4MiniflareOptions(options) : options);
  try {
    await mf.ready;
    const pids = workerdChildren().filter((p) => !before.has(p));
    const spent = [0, 0];
    for (const [i, w] of workers.entries()) {
      const stub = await mf.getWorker(w.name);
      const start = pidsCpuMs(pids);
      const text = await (await stub.fetch("https://example.com/")).text();
      spent[i % 2] += pidsCpuMs(pids) - start;
      if (text !== "ok") throw new Error(`${w.name}: ${text}`);
    }
    return (spent[0] - spent[1]) / isolates;
  } finally {
    await mf.dispose();
  }
}

const tmp = tempDir("mcp-openapi-bench-");
try {
  const compactFile = path.join(tmp.dir, "github.openapi.json");
  const compact = await writeCompact(DOCUMENT, compactFile);
  const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
  const apps = [
    { key: "none", label: "one tool, no import", document: undefined },
    { key: "compact", label: "+ GitHub, compact form (npm run openapi)", document: compactFile },
    ...(opt["no-full"] ? [] : [{ key: "full", label: "+ GitHub, full document", document: DOCUMENT }]),
  ];
  for (const app of apps) {
    app.built = await buildApp(path.join(tmp.dir, app.key), app.document);
    app.cpu = [];
  }
  const rounds = Number(opt.rounds);
  const isolates = Number(opt.isolates);
  console.error(
    `▶ first-request CPU, ${rounds} interleaved rounds of ${isolates} isolates each; load average ${os.loadavg()[0].toFixed(2)}`,
  );
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < apps.length; k++) {
      const app = apps[(round + k) % apps.length];
      app.cpu.push(await firstRequestCpu(app.built.dir, app.built.main, isolates));
    }
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const none = apps[0];
  console.log(`\n## OpenAPI import: GitHub's REST API (@octokit/openapi, ${compact.operations} operations)\n`);
  console.log(
    `document ${kib(compact.inBytes)} (gzip ${kib(gz(DOCUMENT))}); compact form ${kib(compact.outBytes)} (gzip ${kib(gz(compactFile))})\n`,
  );
  console.log("| app | bundle (minified) | bundle (gzip -9) | first request CPU (median) | rounds |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const app of apps) {
    const delta = app === none ? "" : ` (+${(median(app.cpu) - median(none.cpu)).toFixed(1)} ms)`;
    console.log(
      `| ${app.label} | ${kib(app.built.raw)} | ${kib(app.built.gzip)} | ${median(app.cpu).toFixed(1)} ms${delta} | ${app.cpu.map((c) => c.toFixed(1)).join(", ")} |`,
    );
  }
  console.log(
    `\nMeasured by \`node bench/openapi.mjs\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC (${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}); first request: import + a 2026-07-28 tools/list, net of an empty isolate.`,
  );
} finally {
  tmp.remove();
}
