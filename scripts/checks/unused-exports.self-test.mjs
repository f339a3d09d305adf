// Why: the unused-exports check must be able to fail. It runs against a planted tree with one
// export used elsewhere, one used only in its own file, one used nowhere, and one listed as public.
import { fileURLToPath } from "node:url";
import { checkUnusedExports } from "./unused-exports.mjs";
import { expectations, plantTree } from "./tree.mjs";

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "es2022",
    module: "es2022",
    moduleResolution: "bundler",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ["src", "test"],
});

export function selfTestUnusedExports() {
  const { expect, result } = expectations("unused exports");
  const root = plantTree("unused-exports", {
    "tsconfig.json": TSCONFIG,
    "src/lib.ts": [
      "export const used = 1;",
      "export const onlyHere = 2;",
      "export const nowhere = 3;",
      "export const forUsers = 4;",
      "export type Shape = { a: number };",
      "export const total = onlyHere + 1;",
    ].join("\n"),
    "src/main.ts": 'import { used, total } from "./lib";\nexport default used + total;\n',
    "test/lib.test.ts": 'import type { Shape } from "../src/lib";\nexport const s: Shape = { a: 1 };\n',
  });
  const r = checkUnusedExports(root, (key) => key === "src/lib.ts: forUsers" || key === "src/main.ts: default");
  const names = r.unused
    .map((u) => u.replace(/^src\/lib\.ts: /, ""))
    .sort()
    .join(",");
  expect(!r.ok, "a tree with unused exports fails");
  expect(names === "nowhere,onlyHere", `exactly the exports no other file uses are reported (got: ${names || "none"})`);
  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = selfTestUnusedExports();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}
