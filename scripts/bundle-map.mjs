// Why: the engine has a gzip budget (test/engine/e2e/bundle.mjs), and to keep under it one has to know
// where the bytes go. This bundles an entry as wrangler does (esbuild, ESM, minified, the workerd
// conditions, no keep_names) and prints, per group of source files: the minified bytes the group puts
// into the bundle, and how much smaller the gzip gets when the group's bytes are cut out of it (found
// through the source map; a rough figure, since gzip shares repeats across groups, but one that
// ranks the groups). Not a check: run it by hand before and after trimming.
//
//   node scripts/bundle-map.mjs [entry, default test/engine/app/index.ts] [--files]
//   (--files: one row per source file instead of per group)
// The last lines say what the bundle's words weigh: its prose (error messages, log lines,
// descriptions: string literals with words in them) and its SQL, by the gzip lost when each is
// blanked. Those are what a reader of an error or a log needs, not code that could be smaller.
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import ts from "typescript";
import { AS_WRANGLER_DOES } from "../test/engine/e2e/ext-cost.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const perFile = args.includes("--files");
const entry = args.find((a) => !a.startsWith("--")) ?? "test/engine/app/index.ts";

/** The group a source file counts under: a package, or a folder of src/. */
function groupOf(file) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1];
  if (perFile) return file;
  const m = /^src\/(mcp\/(?:methods|revisions|ext)|[^/]+)\//.exec(file);
  return m ? `src/${m[1]}` : file.startsWith("src/") ? "src/*.ts" : path.dirname(file);
}

const out = await build({
  entryPoints: [path.join(ROOT, entry)],
  ...AS_WRANGLER_DOES,
  sourcemap: "external",
  metafile: true,
  write: false,
  outfile: path.join(ROOT, "bundle-map.js"),
  logLevel: "silent",
});
const js = out.outputFiles.find((f) => f.path.endsWith(".js")).text;
const map = JSON.parse(out.outputFiles.find((f) => f.path.endsWith(".map")).text);
const rel = (f) => path.relative(ROOT, path.resolve(ROOT, f)).split(path.sep).join("/");

// Base64 VLQ, as source maps write their mappings.
const B64 = Object.fromEntries([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]));
function decodeVlq(s) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const c of s) {
    const d = B64[c];
    value += (d & 31) << shift;
    if (d & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

// Which source each character of the output came from: a mapping segment runs to the next one.
const lines = js.split("\n");
const owner = []; // per output line: [[column, sourceIndex], ...]
let source = 0;
map.mappings.split(";").forEach((line, i) => {
  let col = 0;
  owner[i] = [];
  for (const seg of line.split(",")) {
    if (!seg) continue;
    const [dc, ds] = decodeVlq(seg);
    col += dc;
    if (ds !== undefined) source += ds;
    owner[i].push([col, ds === undefined ? -1 : source]);
  }
});
const groupOfSource = map.sources.map((s) => groupOf(rel(path.join(path.dirname(path.join(ROOT, "bundle-map.js")), s))));

/** The bundle with every character that `drop(group)` claims left out. */
function without(drop) {
  let text = "";
  lines.forEach((line, i) => {
    const segs = owner[i] ?? [];
    let at = 0;
    // Output before the first segment (the module glue esbuild writes) stays.
    if (segs.length === 0 || segs[0][0] > 0) text += line.slice(0, segs[0]?.[0] ?? line.length);
    segs.forEach(([col, src], k) => {
      at = col;
      const end = segs[k + 1]?.[0] ?? line.length;
      if (src < 0 || !drop(groupOfSource[src])) text += line.slice(at, end);
    });
    text += "\n";
  });
  return text;
}

const gz = (s) => gzipSync(Buffer.from(s), { level: 9 }).length;
const total = gz(js);
const raw = new Map();
for (const [file, input] of Object.entries(Object.values(out.metafile.outputs).find((o) => o.entryPoint).inputs)) {
  const g = groupOf(rel(file));
  raw.set(g, (raw.get(g) ?? 0) + input.bytesInOutput);
}
const rows = [...raw]
  .filter(([, b]) => b > 0)
  .map(([group, bytes]) => ({ group, bytes, gzipDelta: total - gz(without((g) => g === group)) }));
rows.sort((a, b) => b.gzipDelta - a.gzipDelta);

const pad = (s, n) => String(s).padStart(n);
console.log(`${entry}: raw ${js.length} B, gzip ${total} B (level 9; wrangler's own gzip may differ by a few bytes)`);
console.log(`${"group".padEnd(48)} ${pad("raw B", 8)} ${pad("-gzip B", 8)}`);
for (const r of rows) console.log(`${r.group.padEnd(48)} ${pad(r.bytes, 8)} ${pad(r.gzipDelta, 8)}`);

/** The bundle's string and template literals of one kind, each blanked to a one-letter string. */
function blanked(kinds) {
  const file = ts.createSourceFile("bundle.js", js, ts.ScriptTarget.ESNext, true);
  const cuts = [];
  const visit = (node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const kind = /^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE)\b/.test(node.text)
        ? "sql"
        : node.text.length > 20 && / [a-z]+ /.test(node.text)
          ? "prose"
          : undefined;
      if (kind && kinds.includes(kind)) {
        const start = node.getStart(file);
        // Keep each literal's own delimiters (a template's head ends in "${", its middle starts with "}").
        const open = js[start];
        const close = js.slice(node.getEnd() - 2, node.getEnd()) === "${" ? "${" : js[node.getEnd() - 1];
        cuts.push([start, node.getEnd(), `${open}x${close}`]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let text = js;
  for (const [start, end, put] of cuts.sort((a, b) => b[0] - a[0])) text = text.slice(0, start) + put + text.slice(end);
  return text;
}
const prose = total - gz(blanked(["prose"]));
const sql = total - gz(blanked(["sql"]));
const words = gz(blanked(["prose", "sql"]));
console.log(`words: prose (messages, log lines, descriptions) ${prose} B gzip, SQL ${sql} B; the bundle without either ${words} B gzip`);
