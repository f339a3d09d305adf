// Why: a count that cannot rise proves nothing. This plants each kind of revision branch the check
// must see (if, ?:, comparison, guard, switch case, element key, a nested test counted once) beside
// what it must not count (comments, types, object fields, the exempt folders), and expects the exact
// count, the file:line of each, and a failure once the count passes the allowance.
import { fileURLToPath } from "node:url";
import { checkRevisionBranches } from "./revision-branches.mjs";
import { expectations, plantTree } from "./tree.mjs";

export function selfTestRevisionBranches() {
  const { expect, result } = expectations("revision-branches");
  const root = plantTree("revision-branches", {
    "src/engine/http/lane.ts": [
      '// if (era === "legacy") in a comment is no branch',
      'type Era = "modern" | "legacy";',
      "export function f(era: Era, version: string, legacy: boolean, by: Record<Era, number>) {",
      '  const owner = { era: "legacy" };',
      '  if (era === "legacy") return 1;',
      "  const t = legacy ? 2 : 3;",
      '  const newer = version >= "2025-11-25";',
      "  const g = legacy && t;",
      '  switch (owner.era) { case "modern": return 4; }',
      '  if ((era === "modern" && legacy) || newer) return by[era];',
      "  return g;",
      "}",
    ].join("\n"),
    "src/engine/mcp/revisions/a.ts": 'export const x = (era: string) => (era === "legacy" ? 1 : 2);\n',
    "src/engine/mcp/versions.ts": 'export const isLegacyVersion = (v: unknown) => v === "2025-11-25";\n',
    "src/engine/client/lane.ts": "export const y = (legacy: boolean) => (legacy ? 1 : 2);\n",
  });
  const within = checkRevisionBranches(root, 8);
  const lines = within.branches.map((b) => b.split("  ")[0]).join(",");
  expect(within.count === 8, `eight branches counted (got ${within.count}: ${within.branches.join("; ")})`);
  expect(
    lines ===
      "src/engine/http/lane.ts:5,src/engine/http/lane.ts:6,src/engine/http/lane.ts:7,src/engine/http/lane.ts:8,src/engine/http/lane.ts:9,src/engine/http/lane.ts:9,src/engine/http/lane.ts:10,src/engine/http/lane.ts:10",
    `each branch named by file:line (got ${lines})`,
  );
  expect(within.ok, "a count at the allowance passes");
  const over = checkRevisionBranches(root, 7);
  expect(!over.ok && /1 more than allowed/.test(over.message), "a count above the allowance fails and says by how much");
  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = selfTestRevisionBranches();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
