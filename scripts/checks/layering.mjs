// Why: the engine is layered (protocol core, HTTP edge, Durable Objects, the app) so that each
// part can be read, tested and replaced on its own. Two things quietly undo that: an import
// cycle (no file of the cycle can be understood or loaded without the others) and a Durable
// Object reaching into the HTTP edge (objects are the storage side; the edge talks to them,
// never the other way round). This check fails on both, for every file under src/; FORBIDDEN
// below lists the directions that must never be taken.
//
//   node scripts/checks/layering.mjs [root]     (root defaults to the project)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readImports, resolveRelative } from "./imports.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Directories (relative to src/) whose files must not import anything under another one. */
export const FORBIDDEN = [
  { from: "engine/objects/", to: "engine/http/", why: "Durable Objects must not depend on the HTTP edge" },
  // The protocol core takes a message and gives a result; transports and storage build on it.
  { from: "engine/mcp/", to: "engine/http/", why: "the protocol core must not depend on the HTTP edge" },
  { from: "engine/mcp/", to: "engine/objects/", why: "the protocol core must not depend on Durable Objects" },
];

/**
 * Directories whose files import nothing outside themselves. The protocol core is read, tested and
 * bundled on its own (the client and the app check load it without the Worker); the public door
 * that adds the Worker, src/mcp.ts, sits beside it, outside.
 */
export const CONFINED = [{ dir: "engine/mcp/", why: "the protocol core must import nothing outside src/engine/mcp/" }];

/** @returns {{ ok: boolean, message: string, cycles: string[][], forbidden: string[], unresolved: string[] }} */
export function checkLayering(root = ROOT) {
  const src = path.join(root, "src");
  const rel = (abs) => path.relative(root, abs).split(path.sep).join("/");
  const files = readdirSync(src, { recursive: true })
    .map((f) => path.join(src, String(f)))
    .filter((f) => /\.(m|c)?tsx?$/.test(f))
    .sort();

  /** file → Map(imported file → first line of the import) */
  const graph = new Map();
  const forbidden = [];
  const unresolved = [];
  for (const file of files) {
    const edges = new Map();
    graph.set(file, edges);
    for (const { specifier, line } of readImports(file, readFileSync(file, "utf8"))) {
      const target = resolveRelative(file, specifier);
      if (target === null) continue;
      if (target === undefined) {
        unresolved.push(`${rel(file)}:${line} imports "${specifier}", which is no file`);
        continue;
      }
      if (!target.startsWith(src + path.sep)) continue; // outside src/: not part of the engine's graph
      if (!edges.has(target)) edges.set(target, line);
      const [from, to] = [path.relative(src, file), path.relative(src, target)].map((p) => p.split(path.sep).join("/"));
      for (const rule of FORBIDDEN) {
        if (from.startsWith(rule.from) && to.startsWith(rule.to)) {
          forbidden.push(`${rel(file)}:${line} imports ${rel(target)} (${rule.why})`);
        }
      }
      for (const rule of CONFINED) {
        if (from.startsWith(rule.dir) && !to.startsWith(rule.dir))
          forbidden.push(`${rel(file)}:${line} imports ${rel(target)} (${rule.why})`);
      }
    }
  }

  // Each file of a chain carries the line where it imports the next one.
  const cycles = findCycles(graph).map((cycle) => cycle.map((f, i) => `${rel(f)}:${graph.get(f).get(cycle[(i + 1) % cycle.length])}`));
  const ok = cycles.length === 0 && forbidden.length === 0 && unresolved.length === 0;
  const lines = [`layering: ${files.length} files under src/, ${cycles.length} import cycle(s), ${forbidden.length} forbidden import(s)`];
  if (cycles.length)
    lines.push(
      "  import cycles (file:line imports the next file):",
      ...cycles.map((c) => `    ${[...c, c[0].replace(/:\d+$/, "")].join(" → ")}`),
    );
  if (forbidden.length) lines.push("  forbidden imports:", ...forbidden.map((f) => `    ${f}`));
  if (unresolved.length) lines.push("  unresolved relative imports:", ...unresolved.map((u) => `    ${u}`));
  return { ok, message: lines.join("\n"), cycles, forbidden, unresolved };
}

/**
 * Cycles of a directed graph, as lists of nodes. Listing every elementary cycle can explode,
 * so this lists, for each edge u → v that lies on a cycle, the shortest way back from v to u:
 * every edge of every cycle appears in at least one printed chain, and no chain is printed twice.
 */
export function findCycles(graph) {
  const cycles = new Map();
  for (const component of stronglyConnected(graph)) {
    for (const u of component) {
      for (const v of graph.get(u).keys()) {
        if (!component.has(v)) continue;
        const back = shortestPath(graph, v, u, component);
        const cycle = [u, ...back.slice(0, -1)];
        // Rotate so the smallest name leads: the same cycle found from two edges prints once.
        const start = cycle.indexOf([...cycle].sort()[0]);
        const canonical = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(canonical.join("\0"), canonical);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

/** Tarjan's algorithm; yields the components that hold a cycle (more than one node, or a self-import). */
function stronglyConnected(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const result = [];
  const connect = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v).keys()) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = new Set();
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.add(w);
      } while (w !== v);
      if (component.size > 1 || graph.get(v).has(v)) result.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return result;
}

/** Breadth-first path from → to inside `within`, both ends included. */
function shortestPath(graph, from, to, within) {
  const previous = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift();
    if (v === to) break;
    for (const w of graph.get(v).keys()) {
      if (within.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const pathBack = [];
  for (let v = to; v !== null; v = previous.get(v)) pathBack.unshift(v);
  return pathBack;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkLayering(process.argv[2] ? path.resolve(process.argv[2]) : ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
