// Why: a start-up profile samples wall time, so on a shared machine every preemption lands in it
// (a bare Worker reads 0–30 ms in `check startup`). CPU time does not move with the load. This
// loads the same bundle into many isolates of one workerd (one Worker each, imported by its first
// request through a harness module, as the profiler does), reads the process's CPU time around
// those first requests, and divides: CPU ms per start-up, less the same for an empty module.
// Linux only (/proc): its threads' run times, to the nanosecond (procstat.mjs threadsCpuMs), where the
// process's 10 ms clock ticks made the error 10 ms / isolates.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { threadsCpuMs, workerdChildren } from "./procstat.mjs";
import { loadMiniflare } from "./startup.mjs";

/**
 * Loads `kinds` (module sets) into `isolates` Workers each of one workerd, interleaved, sends each
 * Worker its first request (`request` for the kinds that serve it) and returns the CPU ms a Worker of
 * each kind spent on it.
 */
async function cpuPerKind(kinds, { compatibilityDate, compatibilityFlags = [], isolates, request, later = 0 }) {
  const { Miniflare, convertV4MiniflareOptions } = loadMiniflare();
  const options = (o) => (convertV4MiniflareOptions ? convertV4MiniflareOptions(o) : o);
  const before = new Set(workerdChildren());
  const workers = Array.from({ length: kinds.length * isolates }, (_, i) => ({
    name: `w${i}`,
    compatibilityDate,
    compatibilityFlags,
    ...kinds[i % kinds.length].modules(),
  }));
  const mf = new Miniflare(options({ workers, handleStructuredLogs: () => {} }));
  try {
    await mf.ready;
    const pids = workerdChildren().filter((p) => !before.has(p));
    const cpu = () => threadsCpuMs(pids);
    const stubs = await Promise.all(workers.map((w) => mf.getWorker(w.name)));
    const spent = kinds.map(() => 0);
    const spentLater = kinds.map(() => 0);
    const send = (kind, stub) =>
      kind.call
        ? stub.fetch(`https://example.com${request.path}`, { method: "POST", headers: request.headers, body: request.body })
        : stub.fetch("https://example.com/");
    for (const [i, stub] of stubs.entries()) {
      const kind = kinds[i % kinds.length];
      const start = cpu();
      const res = await send(kind, stub);
      const text = await res.text();
      spent[i % kinds.length] += cpu() - start;
      if (text !== "ok") throw new Error(`start-up ${kind.call ? "first call" : "import"} failed: ${res.status} ${text.slice(0, 300)}`);
      // The same isolate's next requests, read apart from its first.
      const next = cpu();
      for (let n = 0; n < later; n++) {
        const again = await send(kind, stub);
        if ((await again.text()) !== "ok") throw new Error(`start-up: request ${n + 2} of an isolate failed: ${again.status}`);
      }
      spentLater[i % kinds.length] += cpu() - next;
    }
    return { first: spent.map((ms) => ms / isolates), later: spentLater.map((ms) => (later ? ms / isolates / later : 0)) };
  } finally {
    await mf.dispose();
  }
}

// With `call`, the isolate's first request goes on to the bundle's own fetch, as a fresh isolate's
// first request does in production: V8 compiles each function on its first call, so the request
// path's code is compiled there and not at the import. Its answer is read whole, and must be a 200.
const harness = (main, call) =>
  !main
    ? `export default { async fetch() { return new Response("ok"); } };`
    : call
      ? `export default { async fetch(request, env, ctx) { const m = await import(${JSON.stringify(`./${main}`)}); const res = await m.default.fetch(request, env, ctx); const text = await res.text(); return new Response(res.status === 200 ? "ok" : \`\${res.status} \${text}\`); } };`
      : `export default { async fetch() { await import(${JSON.stringify(`./${main}`)}); return new Response("ok"); } };`;

/** How many calls after its first each fresh isolate serves for the `next` figure. */
export const LATER_CALLS = 5;

/**
 * CPU ms one isolate spends importing `main` from a built output dir (`full`), and that net of the
 * same harness importing nothing (`ms`). `isolates` Workers per measurement. With `request`
 * ({ path, headers, body }, a POST), as many isolates again serve it as their first request through
 * the bundle's default fetch, in a workerd of their own: `call`, the import and a first request,
 * what a fresh isolate costs before its first answer, and `next`, the CPU ms of each of its next
 * LATER_CALLS calls (their mean).
 * @param {string} outdir
 * @param {string} main
 * @param {{ compatibilityDate?: string, compatibilityFlags?: string[], isolates?: number, request?: { path: string, headers: Record<string, string>, body: string } }} [options]
 * @returns {Promise<{ ms: number, full: number, base: number, call?: number, next?: number }>}
 */
export async function startupCpu(outdir, main, { compatibilityDate, compatibilityFlags, isolates = 40, request } = {}) {
  const files = readdirSync(outdir, { recursive: true, encoding: "utf8" }).filter((f) => /\.m?js$/.test(f));
  const harnessed = (contents) => ({
    modulesRoot: outdir,
    modules: [
      { type: "ESModule", path: path.join(outdir, "__startup-harness.mjs"), contents },
      ...files.map((f) => ({ type: "ESModule", path: path.join(outdir, f), contents: readFileSync(path.join(outdir, f), "utf8") })),
    ],
  });
  const importing = { modules: () => harnessed(harness(main, false)) };
  const empty = {
    modules: () => ({
      modulesRoot: outdir,
      modules: [{ type: "ESModule", path: path.join(outdir, "__startup-harness.mjs"), contents: harness(null) }],
    }),
  };
  const options = { compatibilityDate, compatibilityFlags, isolates, request };
  const {
    first: [full, base],
  } = await cpuPerKind([importing, empty], options);
  if (!request) return { ms: full - base, full, base };
  // The first calls in a workerd of their own: interleaved with them in one, the importing isolates
  // of the one-tool app read 4.51–4.60 ms in a full run, against 2.68–4.38 ms in the runs before,
  // while the bare Worker's did not move, so the import row would not compare with its history.
  // Then each isolate's next LATER_CALLS calls: a fresh isolate runs them before V8 has optimized the
  // request path, and a Worker that serves a few requests an isolate pays that on every call.
  const {
    first: [call],
    later: [next],
  } = await cpuPerKind([{ call: true, modules: () => harnessed(harness(main, true)) }], { ...options, later: LATER_CALLS });
  return { ms: full - base, full, base, call, next };
}
