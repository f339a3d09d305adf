// Why: docs/architecture.md's source map is how a contributor finds the engine's parts, and a map
// that misses a folder sends them hunting (it missed events/, mount.ts and user-state.ts once, a
// round after they landed). This check reads the map's block and fails on any folder or root file
// of src/engine/ it does not name at the engine's level; a name it keeps for a file that is gone
// fails too, so the map follows moves both ways.
//
//   node scripts/checks/source-map.mjs [root]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PAGE = "docs/architecture.md";

/** The names the map gives at src/engine/'s level: the first words of its lines indented one step below `engine/`. */
export function mappedNames(markdown) {
  const block = /## Project structure\s+```[^\n]*\n([\s\S]*?)```/.exec(markdown)?.[1] ?? "";
  const lines = block.split("\n");
  const start = lines.findIndex((l) => /^\s*engine\/\s/.test(l));
  if (start < 0) return [];
  const depth = lines[start].search(/\S/) + 2;
  const names = [];
  for (const line of lines.slice(start + 1)) {
    const at = line.search(/\S/);
    if (at < 0) continue;
    if (at < depth) break;
    if (at > depth) continue;
    // "a.ts, b.ts   what they hold": every name before the description.
    const head = line.slice(at).split(/\s{2,}/)[0];
    names.push(...head.split(/,\s*/).map((n) => n.trim()));
  }
  return names;
}

/** @returns {{ ok: boolean, message: string }} */
export function checkSourceMap(root = ROOT) {
  const engine = path.join(root, "src", "engine");
  const present = readdirSync(engine, { withFileTypes: true })
    .filter((e) => e.isDirectory() || /\.tsx?$/.test(e.name))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  const mapped = existsSync(path.join(root, PAGE)) ? mappedNames(readFileSync(path.join(root, PAGE), "utf8")) : [];
  const missing = present.filter((n) => !mapped.includes(n));
  const gone = mapped.filter((n) => /(\/|\.tsx?)$/.test(n) && !present.includes(n));
  const ok = missing.length === 0 && gone.length === 0;
  const lines = [`source map: ${present.length} folders and root files in src/engine/, ${mapped.length} named in ${PAGE}`];
  if (missing.length) lines.push(`  not in ${PAGE}'s source map (add a line under engine/): ${missing.join(", ")}`);
  if (gone.length) lines.push(`  named in ${PAGE}'s source map but not in src/engine/: ${gone.join(", ")}`);
  return { ok, message: lines.join("\n") };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkSourceMap(process.argv[2] ?? ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
