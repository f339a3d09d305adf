/**
 * How an imported operation is named as a tool: its `operationId` with every character outside
 * `[A-Za-z0-9_-]` made `_`, or (without an id) its method and path; at most 64 characters (the
 * longest name every host accepts); unique, with a stable suffix. Pure, so the build step
 * (scripts/openapi.mjs) and the Worker name a document the same way.
 */

/** The longest tool name an import makes: hosts cut or refuse longer ones. */
const MAX_NAME = 64;

/** An operation's name before it is made unique: its id sanitised, or its method and path. */
export function baseName(operationId: unknown, method: string, path: string): string {
  const raw =
    typeof operationId === "string" && operationId.trim() !== ""
      ? operationId.trim()
      : // `GET /repos/{owner}/{repo}` → `get_repos_owner_repo`: the braces say nothing a model needs.
        `${method}_${path.replace(/[{}]/g, "")}`;
  const name = raw
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .replace(/_{2,}/g, "_")
    .replace(/^_+|_+$/g, "");
  return (name || method).slice(0, MAX_NAME);
}

/**
 * Unique names for `bases`, in document order: the first keeps its base, each later one that meets a
 * name already taken gets `_2`, `_3`… (cut so the whole stays within MAX_NAME). The same document always
 * gives the same names. `onRenamed` hears of each renaming, for the app check's notes.
 */
export function uniqueNames(bases: readonly string[], onRenamed?: (index: number, base: string, name: string) => void): string[] {
  const taken = new Set<string>();
  const lower = new Set<string>();
  return bases.map((base, index) => {
    let name = base;
    // Hosts may fold case: `getUser` and `getuser` are one name to some of them.
    for (let n = 2; taken.has(name) || lower.has(name.toLowerCase()); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    if (name !== base) onRenamed?.(index, base, name);
    taken.add(name);
    lower.add(name.toLowerCase());
    return name;
  });
}
