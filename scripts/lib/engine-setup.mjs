// Why: two parts of a Worker's setup live in the fork's own files, where an upgrade never reaches:
// the Durable Object a feature keeps its state in (bound in wrangler.toml, exported by src/index.ts)
// and the compatibility flags the engine relies on. A fork that turns a feature on in src/server.ts
// and misses its binding gets tools that fail at run time; one made before a flag was added runs
// without it, silently (no cancellation on 2026-07-28, or outbound fetches that may reach the
// Worker's private network). `npm run dev`, the app check in `npm test` and `npm run deploy` read
// the config and name exactly what is missing, with the lines to add.

/** What an app turns on that needs a Durable Object of its own (check-app.mjs learns which from the app). */
export const FEATURE_OBJECTS = [
  { feature: "tasks", binding: "MCP_TASK", className: "McpTask", doc: "docs/tasks.md", what: "a tool declares a task (durableTask)" },
  { feature: "events", binding: "MCP_EVENTS", className: "McpEvents", doc: "docs/events.md", what: "the app serves events([...])" },
  { feature: "userState", binding: "MCP_USER", className: "McpUser", doc: "docs/state.md", what: "the app sets userState" },
];

/** The compatibility flags the engine relies on, and what goes without each. */
export const ENGINE_FLAGS = [
  { flag: "enable_request_signal", why: "without it a 2026-07-28 client closing its stream does not cancel the request" },
  {
    flag: "global_fetch_strictly_public",
    why: "without it an outbound fetch to this Worker's own zone bypasses the front door (mounts, OAuth client metadata, webhooks)",
  },
];

/**
 * What `config` (wrangler's reading of `file`) lacks for the app's `features`, each as the problem
 * and the edit that fixes it. `bindings`: a used feature's object unbound (its tools fail);
 * `flags`: an engine flag missing.
 * @param {Record<string, boolean> | undefined} features
 * @param {{ compatibility_flags?: string[], durable_objects?: { bindings?: { name?: string, class_name?: string }[] } }} config
 * @param {string} file
 * @returns {{ bindings: { problem: string, fix: string }[], flags: { problem: string, fix: string }[] }}
 */
export function engineSetupProblems(features, config, file) {
  const bound = new Set((config.durable_objects?.bindings ?? []).map((b) => b.name));
  const bindings = FEATURE_OBJECTS.filter((f) => features?.[f.feature] && !bound.has(f.binding)).map((f) => ({
    problem: `${f.what}, but ${file} binds no ${f.binding}: its calls would fail.`,
    fix: `In ${file} add [[durable_objects.bindings]] name = "${f.binding}" class_name = "${f.className}" and a [[migrations]] entry with new_sqlite_classes = ["${f.className}"]; export ${f.className} from your entry (${f.doc})`,
  }));
  const flags = ENGINE_FLAGS.filter((f) => !(config.compatibility_flags ?? []).includes(f.flag)).map((f) => ({
    problem: `${file}'s compatibility_flags lack "${f.flag}": ${f.why}.`,
    fix: `In ${file} add "${f.flag}" to compatibility_flags (an upgrade cannot: the file is yours)`,
  }));
  return { bindings, flags };
}

/** One line of a setup problem, for a terminal. */
export const setupLine = (p) => `${p.problem} ${p.fix}`;

/**
 * The two parts of a wrangler.toml this check reads (top-level `compatibility_flags` and the
 * top-level `[[durable_objects.bindings]]` names), without importing wrangler: `npm test` runs the
 * app check first and wrangler's import alone costs seconds. `npm run dev` and `npm run deploy`
 * read the whole config through wrangler and judge that instead.
 * @param {string} text
 */
export function scanWranglerToml(text) {
  /** @type {string[] | undefined} */
  let flags;
  /** @type {{ name?: string, class_name?: string }[]} */
  const bindings = [];
  let table = "";
  /** @type {{ name?: string, class_name?: string } | undefined} */
  let entry;
  const strings = (s) => [...s.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]);
  // Multi-line arrays are joined first: `compatibility_flags = [\n "a",\n "b"\n]`.
  const joined = text.replace(/\[[^\]\n]*\n[^\]]*\]/g, (a) => a.replace(/\n/g, " "));
  for (const raw of joined.split("\n")) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      table = header[1];
      entry = table === "durable_objects.bindings" && line.startsWith("[[") ? {} : undefined;
      if (entry) bindings.push(entry);
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    if (table === "" && kv[1] === "compatibility_flags") flags = strings(kv[2]);
    if (entry && (kv[1] === "name" || kv[1] === "class_name")) entry[kv[1]] = strings(kv[2])[0];
  }
  return { compatibility_flags: flags ?? [], durable_objects: { bindings: bindings.filter((b) => b.name) } };
}
