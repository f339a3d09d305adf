// Why: the bench reports bundle size and start-up CPU for this template, the floor and
// the peers, and explains where the start-up time goes. Three tools live here:
//  - build(): `wrangler deploy --dry-run` into a temp dir (minified as wrangler.toml says, or
//    with --minify false), returning the emitted JS and its sizes;
//  - checkStartup(): `wrangler check startup --worker <prebuilt bundle>` parsed ("Active: …").
//    A prebuilt bundle is used because `check startup --config X` does not hand --config to
//    its inner build (it profiles the cwd's wrangler.toml instead); the .cpuprofile goes to a
//    temp dir that is removed;
//  - profileStartup(): the same measurement as `check startup` (import the main module inside
//    a fresh workerd isolate under the V8 profiler) done directly with wrangler's own
//    miniflare, with a 50 µs sampling interval instead of V8's default 1 ms, repeated, and
//    aggregated by function and by bundled source module, so the profile says something.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT, atExit, run } from "../../scripts/lib/procs.mjs";

export function tempDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, remove: () => (rmSync(dir, { recursive: true, force: true }), unhook()) };
}

/**
 * `wrangler deploy --dry-run --outdir` for a config. minify: undefined = as configured.
 * @param {string} config
 * @param {string} outdir
 * @param {{ minify?: boolean }} [options]
 * @returns {Promise<{dir: string, files: string[], raw: number, gzip: number, main: string}>}
 */
export async function build(config, outdir, { minify } = {}) {
  const args = ["deploy", "--dry-run", "--config", config, "--outdir", outdir];
  if (minify !== undefined) args.push("--minify", String(minify));
  const r = await run("wrangler", args, { timeoutMs: 180_000, capture: true });
  if (r.code !== 0) throw new Error(`wrangler ${args.join(" ")} failed (code ${r.code}):\n${r.out.slice(-3000)}`);
  const files = readdirSync(outdir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.m?js$/.test(f))
    .sort();
  if (files.length === 0) throw new Error(`no JS in ${outdir}`);
  const bytes = Buffer.concat(files.map((f) => readFileSync(path.join(outdir, f))));
  const main = files.includes("index.js") ? "index.js" : files[0];
  return { dir: outdir, files, main, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** `wrangler deploy --dry-run --outfile` — the multipart bundle `check startup --worker` takes. */
export async function buildUploadBundle(config, outfile) {
  const r = await run("wrangler", ["deploy", "--dry-run", "--config", config, "--outfile", outfile], { timeoutMs: 180_000, capture: true });
  if (r.code !== 0) throw new Error(`wrangler deploy --outfile failed:\n${r.out.slice(-3000)}`);
  return outfile;
}

/** One `wrangler check startup` run on a prebuilt bundle: { active, sampled, window, samples } in ms. */
export async function checkStartup(bundleFile, tmp) {
  const outfile = path.join(tmp, `startup-${process.hrtime.bigint()}.cpuprofile`);
  const r = await run("wrangler", ["check", "startup", "--worker", bundleFile, "--outfile", outfile], {
    timeoutMs: 120_000,
    capture: true,
  });
  rmSync(outfile, { force: true });
  const num = (label) => {
    const m = new RegExp(`${label}:\\s*([\\d.]+)\\s*ms`).exec(r.out);
    return m ? Number(m[1]) : NaN;
  };
  const samples = /Samples:\s*(\d+)/.exec(r.out);
  if (r.code !== 0 || Number.isNaN(num("Active")))
    throw new Error(`wrangler check startup failed (code ${r.code}):\n${r.out.slice(-2000)}`);
  return {
    active: num("Active"),
    sampled: num("Sampled time"),
    window: num("Profile window"),
    samples: samples ? Number(samples[1]) : NaN,
  };
}

// ── a finer start-up profile, with wrangler's own miniflare ─────────────────

export function loadMiniflare() {
  // Resolve miniflare exactly as wrangler does, so the bench adds no dependency of its own.
  const req = createRequire(createRequire(path.join(ROOT, "package.json")).resolve("wrangler/package.json"));
  return req("miniflare");
}

function inspectorCall(ws, id, method, params = {}) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`inspector ${method} timed out`)), 30_000);
    const onMessage = (event) => {
      const msg = JSON.parse(String(event.data));
      if (msg.id !== id) return;
      clearTimeout(timer);
      ws.removeEventListener("message", onMessage);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result);
    };
    ws.addEventListener("message", onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

/**
 * Imports `main` from a built output dir inside a fresh workerd isolate under the V8
 * profiler (like `wrangler check startup`), `reps` times. Returns the raw profiles.
 * @param {string} outdir
 * @param {string} main
 * @param {{ compatibilityDate?: string, compatibilityFlags?: string[], reps?: number, intervalUs?: number }} [options]
 */
export async function profileStartup(outdir, main, { compatibilityDate, compatibilityFlags = [], reps = 7, intervalUs = 50 } = {}) {
  const { Miniflare, convertV4MiniflareOptions } = loadMiniflare();
  const options = (o) => (convertV4MiniflareOptions ? convertV4MiniflareOptions(o) : o);
  const modules = readdirSync(outdir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.m?js$/.test(f))
    .map((f) => ({ type: "ESModule", path: path.join(outdir, f) }));
  const harness = path.join(outdir, "__startup-harness.mjs");
  const profiles = [];
  for (let i = 0; i < reps; i++) {
    const mf = new Miniflare(
      options({
        name: "profiler",
        compatibilityDate,
        compatibilityFlags,
        modulesRoot: outdir,
        modules: [
          {
            type: "ESModule",
            path: harness,
            contents: `export default { async fetch() { await import(${JSON.stringify(`./${main}`)}); return new Response("ok"); } };`,
          },
          ...modules,
        ],
        inspectorPort: 0,
        handleStructuredLogs: () => {},
      }),
    );
    let ws;
    try {
      await mf.ready;
      const inspector = await mf.getInspectorURL();
      ws = new WebSocket(new URL("/core:user:profiler", inspector.href));
      await new Promise((resolve, reject) => {
        ws.addEventListener("open", resolve, { once: true });
        ws.addEventListener("error", () => reject(new Error("inspector connection failed")), { once: true });
      });
      await inspectorCall(ws, 1, "Profiler.enable");
      await inspectorCall(ws, 2, "Profiler.setSamplingInterval", { interval: intervalUs });
      await inspectorCall(ws, 3, "Profiler.start");
      const res = await mf.dispatchFetch("https://example.com/");
      const text = await res.text();
      if (text !== "ok") throw new Error(`start-up import failed: ${res.status} ${text.slice(0, 500)}`);
      const { profile } = await inspectorCall(ws, 4, "Profiler.stop");
      profiles.push(profile);
    } finally {
      try {
        ws?.close();
      } catch {}
      await mf.dispose();
    }
  }
  return profiles;
}

/**
 * 50 µs start-up profiles of several builds in interleaved rounds: each round profiles every build
 * once, in a rotating order, so a change in the machine's load falls on all of them and not on
 * whichever ran in its stretch. `builds`: { [key]: { dir, main, compat } }. Returns { [key]: profile[] }.
 */
/**
 * @param {Record<string, any>} builds
 * @param {number} rounds
 * @param {(line: string) => void} [onProgress]
 */
export async function interleavedProfiles(builds, rounds, onProgress = () => {}) {
  const keys = Object.keys(builds);
  const out = Object.fromEntries(keys.map((key) => [key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(round + k) % keys.length];
      const { dir, main, compat } = builds[key];
      out[key].push(...(await profileStartup(dir, main, { ...compat, reps: 1 })));
    }
    onProgress(`  start-up profile round ${round + 1} of ${rounds}`);
  }
  return out;
}

/**
 * What `wrangler check startup` computes from a profile: every sample's time delta counts
 * as active unless its node is "(idle)". Also splits the active time into the worker's own
 * JavaScript (by module and by function), V8/workerd native time "(program)" and GC.
 * @param {any} profile
 * @param {(line: number) => string} [moduleOf] the bundled module a 0-based line of the bundle belongs to
 * @param {string} [mainFile]
 */
export function summarize(profile, moduleOf = () => "?", mainFile = "index.js") {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = { active: 0, idle: 0, program: 0, gc: 0, js: 0, byFunction: new Map(), byModule: new Map() };
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const cf = nodes.get(id)?.callFrame ?? { functionName: "?" };
    if (cf.functionName === "(idle)") return void (out.idle += dt);
    out.active += dt;
    if (cf.functionName === "(program)") return void (out.program += dt);
    if (cf.functionName === "(garbage collector)") return void (out.gc += dt);
    out.js += dt;
    const node = nodes.get(id);
    // Frames of the profiler's own harness module (its `await import()` of the bundle, where
    // V8 books compiling the bundle) are kept apart from the bundle's modules.
    const inBundle = cf.url === mainFile || cf.url.endsWith(`/${mainFile}`);
    const mod = !cf.url
      ? "(native/builtin)"
      : inBundle
        ? moduleOf(cf.lineNumber)
        : cf.url.includes("__startup-harness")
          ? "(harness: the import() call, where V8 books compiling the bundle)"
          : cf.url;
    const fn = `${cf.functionName || "(module body)"} @ ${mod}${cf.url ? `:${cf.lineNumber + 1}` : ""}`;
    out.byFunction.set(fn, (out.byFunction.get(fn) ?? 0) + dt);
    // A module body (or any function) spanning several bundled modules: split its time by the
    // lines its samples hit (positionTicks, 1-based lines) rather than by where it starts.
    const ticks = inBundle ? (node?.positionTicks ?? []) : [];
    const total = ticks.reduce((a, t) => a + t.ticks, 0);
    if (total === 0) out.byModule.set(mod, (out.byModule.get(mod) ?? 0) + dt);
    else
      for (const t of ticks) {
        const m = moduleOf(t.line - 1);
        out.byModule.set(m, (out.byModule.get(m) ?? 0) + (dt * t.ticks) / total);
      }
  });
  return out;
}

/**
 * Maps a 0-based line of an unminified esbuild bundle to the source module it came from,
 * using the `// src/…` / `// node_modules/…` comments esbuild writes before each module.
 */
export function moduleMapper(bundleText) {
  const marks = [];
  bundleText.split("\n").forEach((line, i) => {
    const m = /^\/\/ (\S+\.(?:[cm]?[jt]s|json))$/.exec(line);
    if (!m) return;
    const p = m[1];
    const nm = p.lastIndexOf("node_modules/");
    // npm packages by package path; project files from src/, bench/ or test/ on.
    const name =
      nm !== -1
        ? `npm:${p.slice(nm + "node_modules/".length)}`
        : p.replace(/^(?:\.\.\/)+/, "").replace(/^.*?\b((?:src|bench|test)\/)/, "$1");
    marks.push([i, name]);
  });
  return (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let best = "(bundle prelude)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        best = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  };
}
